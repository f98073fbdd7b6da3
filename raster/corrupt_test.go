package raster

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureBytes returns a committed fixture's bytes.
func fixtureBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".tif"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// patchTag finds tag in the first IFD of a little-endian classic TIFF and
// calls fn with the 12-byte entry.
func patchTag(t testing.TB, b []byte, tag uint16, fn func(e []byte)) {
	t.Helper()
	le := binary.LittleEndian
	off := le.Uint32(b[4:])
	n := int(le.Uint16(b[off:]))
	for i := range n {
		e := b[int(off)+2+12*i : int(off)+14+12*i]
		if le.Uint16(e) == tag {
			fn(e)
			return
		}
	}
	t.Fatalf("tag %d not found", tag)
}

// tileValue returns and then sets element i of the TileOffsets or
// TileByteCounts array (SHORT or LONG, out of line) of the first IFD.
func tileValue(t testing.TB, b []byte, tag uint16, i int, set func(uint32) uint32) {
	t.Helper()
	le := binary.LittleEndian
	patchTag(t, b, tag, func(e []byte) {
		pos := int(le.Uint32(e[8:]))
		if le.Uint16(e[2:]) == typeShort {
			le.PutUint16(b[pos+2*i:], uint16(set(uint32(le.Uint16(b[pos+2*i:])))))
			return
		}
		le.PutUint32(b[pos+4*i:], set(le.Uint32(b[pos+4*i:])))
	})
}

// TestOpenErrors checks that broken or unsupported files fail to open with
// the right sentinel.
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	good := fixtureBytes(t, "f32_deflate_p3_tiled")
	le := binary.LittleEndian
	mutate := func(fn func(b []byte) []byte) []byte { return fn(bytes.Clone(good)) }
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"short", good[:6], ErrCorrupt},
		{"bad magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b }), ErrCorrupt},
		{"bad version", mutate(func(b []byte) []byte { b[2] = 41; return b }), ErrCorrupt},
		{"IFD beyond end", mutate(func(b []byte) []byte { le.PutUint32(b[4:], 1<<30); return b }), ErrCorrupt},
		{"IFD loop", mutate(func(b []byte) []byte {
			off := le.Uint32(b[4:])
			n := le.Uint16(b[off:])
			le.PutUint32(b[int(off)+2+12*int(n):], off)
			return b
		}), ErrCorrupt},
		{"truncated arrays", good[:260], ErrCorrupt},
		{"jpeg", mutate(func(b []byte) []byte {
			patchTag(t, b, tagCompression, func(e []byte) { le.PutUint16(e[8:], 7) })
			return b
		}), ErrUnsupported},
		{"three bands", mutate(func(b []byte) []byte {
			patchTag(t, b, tagSamplesPerPixel, func(e []byte) { le.PutUint16(e[8:], 3) })
			return b
		}), ErrUnsupported},
		{"huge width", mutate(func(b []byte) []byte {
			patchTag(t, b, tagImageWidth, func(e []byte) { le.PutUint32(e[8:], 1<<30); le.PutUint16(e[2:], typeLong) })
			return b
		}), ErrCorrupt},
		{"huge tile", mutate(func(b []byte) []byte {
			patchTag(t, b, tagTileWidth, func(e []byte) { le.PutUint16(e[8:], 60000) })
			patchTag(t, b, tagTileLength, func(e []byte) { le.PutUint16(e[8:], 60000) })
			return b
		}), ErrTooLarge},
		{"too few tiles", mutate(func(b []byte) []byte {
			patchTag(t, b, tagTileOffsets, func(e []byte) { le.PutUint32(e[4:], 2) })
			return b
		}), ErrCorrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(context.Background(), BytesSource(tc.data), nil)
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestSampleCorruptTile checks that a damaged tile gives ErrCorrupt naming
// the tile, while other tiles still read.
func TestSampleCorruptTile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(b []byte)
	}{
		{"garbage data", func(b []byte) {
			var off, n uint32
			tileValue(t, b, tagTileOffsets, 4, func(v uint32) uint32 { off = v; return v })
			tileValue(t, b, tagTileByteCounts, 4, func(v uint32) uint32 { n = v; return v })
			for i := range n {
				b[off+i] = 0xff
			}
		}},
		{"offset beyond end", func(b []byte) {
			tileValue(t, b, tagTileOffsets, 4, func(uint32) uint32 { return 1 << 30 })
		}},
		{"truncated data", func(b []byte) {
			tileValue(t, b, tagTileByteCounts, 4, func(uint32) uint32 { return 5 })
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := fixtureBytes(t, "f32_deflate_p3_tiled")
			tc.mutate(b)
			c, err := Open(context.Background(), BytesSource(b), nil)
			if err != nil {
				t.Fatal(err)
			}
			gt := c.Info().GeoTransform
			// Tile 4 is the centre tile of the 3x3 grid of 16 px tiles.
			_, _, err = c.Sample(context.Background(), gt[0]+20.5, gt[3]-20.5)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "tile 4 (col 1, row 1)") {
				t.Errorf("err = %v, want ErrCorrupt naming tile 4", err)
			}
			if _, _, err := c.Sample(context.Background(), gt[0]+36.5, gt[3]-30.5); err != nil {
				t.Errorf("other tile: %v", err)
			}
		})
	}
}

// TestSampleOutside checks points off the raster and NaN coordinates.
func TestSampleOutside(t *testing.T) {
	t.Parallel()
	c := openPath(t, filepath.Join("testdata", "f32_deflate_p3_tiled.tif"))
	gt := c.Info().GeoTransform
	nan := func() float64 { var z float64; return z / z }()
	for _, p := range [][2]float64{
		{gt[0] - 0.01, gt[3] - 1}, {gt[0] + 40, gt[3] - 1}, {gt[0] + 1, gt[3] + 0.01},
		{gt[0] + 1, gt[3] - 33}, {nan, gt[3] - 1}, {gt[0] + 1, nan},
	} {
		v, ok, err := c.Sample(context.Background(), p[0], p[1])
		if v != 0 || ok || err != nil {
			t.Errorf("Sample(%v) = %v, %v, %v; want 0, false, nil", p, v, ok, err)
		}
	}
	if _, _, err := c.SampleLevel(context.Background(), 1, gt[0], gt[3]); err == nil {
		t.Error("SampleLevel beyond the overviews gave no error")
	}
}

// TestReadGridTooLarge checks the ReadGrid cap without allocating.
func TestReadGridTooLarge(t *testing.T) {
	t.Parallel()
	c := &COG{levels: []*level{{width: 1 << 15, height: 1 << 14}}}
	if _, err := c.ReadGrid(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}
