package pmtiles

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTileID(t *testing.T) {
	t.Parallel()
	// The table of spec 4.1.
	for _, c := range []struct {
		z    uint8
		x, y uint32
		id   uint64
	}{{0, 0, 0, 0}, {1, 0, 0, 1}, {1, 0, 1, 2}, {1, 1, 1, 3}, {1, 1, 0, 4}, {2, 0, 0, 5}, {12, 3423, 1763, 19078479}} {
		t.Run(fmt.Sprintf("%d/%d/%d", c.z, c.x, c.y), func(t *testing.T) {
			if got := TileID(c.z, c.x, c.y); got != c.id {
				t.Fatalf("TileID = %d, want %d", got, c.id)
			}
			if z, x, y := ZXY(c.id); z != c.z || x != c.x || y != c.y {
				t.Fatalf("ZXY(%d) = %d/%d/%d", c.id, z, x, y)
			}
		})
	}
	for z := uint8(0); z <= 8; z++ {
		seen := map[uint64]bool{}
		for x := uint32(0); x < 1<<z; x++ {
			for y := uint32(0); y < 1<<z; y++ {
				id := TileID(z, x, y)
				if gz, gx, gy := ZXY(id); gz != z || gx != x || gy != y || seen[id] {
					t.Fatalf("%d/%d/%d: id %d back to %d/%d/%d (seen %v)", z, x, y, id, gz, gx, gy, seen[id])
				}
				seen[id] = true
			}
		}
	}
}

type tile struct {
	z    uint8
	x, y uint32
	data []byte
}

// writeArchive writes tiles to a file.
func writeArchive(t testing.TB, tiles []tile, o Options) (string, Header) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a.pmtiles")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, o)
	if err != nil {
		t.Fatal(err)
	}
	tiles = slices.Clone(tiles)
	slices.SortFunc(tiles, func(a, b tile) int { return cmp.Compare(TileID(a.z, a.x, a.y), TileID(b.z, b.x, b.y)) })
	for _, tl := range tiles {
		if err := w.Add(tl.z, tl.x, tl.y, tl.data); err != nil {
			t.Fatal(err)
		}
	}
	h, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return p, h
}

func openFile(t testing.TB, p string) *Reader {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	r, err := Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// pyramid is every tile of zooms z0..z1 in id order; tiles of the same
// zoom share content every `same` ids (0: all distinct).
func pyramid(z0, z1 uint8, same int) []tile {
	var ts []tile
	for z := z0; z <= z1; z++ {
		n := uint32(1) << z
		for i := uint64(0); i < uint64(n)*uint64(n); i++ {
			id := TileID(z, 0, 0) + i
			_, x, y := ZXY(id)
			data := fmt.Appendf(nil, "tile %d/%d/%d", z, x, y)
			if same > 0 {
				data = fmt.Appendf(nil, "zoom %d part %d", z, int(i)/same)
			}
			ts = append(ts, tile{z, x, y, data})
		}
	}
	return ts
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                      string
		tiles                     []tile
		wantEntries, wantContents uint64
		wantLeaves                bool
	}{
		{"distinct", pyramid(0, 4, 0), 341, 341, false},
		{"runs", pyramid(0, 4, 4), 1 + 1 + 4 + 16 + 64, 1 + 1 + 4 + 16 + 64, false},
		{"leaves", pyramid(0, 8, 0), 87381, 87381, true},
		// Identical tiles that are not neighbours on the curve share a blob.
		{"dedupe", []tile{{2, 0, 0, []byte("sea")}, {2, 0, 1, []byte("land")}, {2, 1, 1, []byte("sea")}}, 3, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, h := writeArchive(t, c.tiles, Options{TileType: PNG, TileCompression: NoCompression, MinLon: 6, MinLat: 50, MaxLon: 7, MaxLat: 51, Metadata: []byte(`{"name":"t"}`)})
			if h.AddressedTiles != uint64(len(c.tiles)) || h.TileEntries != c.wantEntries || h.TileContents != c.wantContents || (h.LeafLength > 0) != c.wantLeaves {
				t.Fatalf("header counts %d tiles, %d entries, %d contents, leaves %d bytes; want %d, %d, %d, leaves %v",
					h.AddressedTiles, h.TileEntries, h.TileContents, h.LeafLength, len(c.tiles), c.wantEntries, c.wantContents, c.wantLeaves)
			}
			r := openFile(t, p)
			if got := r.Header(); got != h {
				t.Fatalf("header read back %+v, written %+v", got, h)
			}
			if string(r.Metadata()) != `{"name":"t"}` {
				t.Fatalf("metadata %q", r.Metadata())
			}
			for _, tl := range c.tiles {
				b, err := r.Tile(context.Background(), tl.z, tl.x, tl.y)
				if err != nil || !bytes.Equal(b, tl.data) {
					t.Fatalf("tile %d/%d/%d = %q, %v; want %q", tl.z, tl.x, tl.y, b, err, tl.data)
				}
			}
			var n uint64
			if err := r.Entries(func(e Entry) error { n += uint64(e.RunLength); return nil }); err != nil || n != h.AddressedTiles {
				t.Fatalf("entries address %d tiles (%v), want %d", n, err, h.AddressedTiles)
			}
			if _, err := r.Tile(context.Background(), 9, 0, 0); !errors.Is(err, ErrNoTile) {
				t.Fatalf("tile 9/0/0: %v, want ErrNoTile", err)
			}
		})
	}
}

func TestWriterRefuses(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "x.pmtiles"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, _ := NewWriter(f, Options{})
	if err := w.Add(3, 1, 1, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(2, 0, 0, []byte("b")); !errors.Is(err, ErrOrder) {
		t.Fatalf("descending id: %v, want ErrOrder", err)
	}
	if err := w.Add(4, 0, 0, nil); err == nil {
		t.Fatal("empty tile accepted")
	}
}

// TestSame: the same tiles give the same bytes.
func TestSame(t *testing.T) {
	t.Parallel()
	tiles := pyramid(0, 5, 3)
	o := Options{TileType: MVT, TileCompression: Gzip, MinLon: 1, MinLat: 2, MaxLon: 3, MaxLat: 4, Metadata: []byte(`{"vector_layers":[]}`)}
	a, _ := writeArchive(t, tiles, o)
	b, _ := writeArchive(t, tiles, o)
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Fatal("two writes of the same tiles differ")
	}
}

func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	p, _ := writeArchive(t, pyramid(0, 3, 0), Options{TileType: PNG})
	good, _ := os.ReadFile(p)
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"version 2", func(b []byte) []byte { b[7] = 2; return b }},
		{"truncated", func(b []byte) []byte { return b[:len(b)-10] }},
		{"root beyond 16 KiB", func(b []byte) []byte { b[8] = 0xff; b[9] = 0x40; return b }},
		{"zoom 40", func(b []byte) []byte { b[101] = 40; return b }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(bytes.Clone(good))
			if _, err := Open(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrFormat) {
				t.Fatalf("Open: %v, want ErrFormat", err)
			}
		})
	}
}
