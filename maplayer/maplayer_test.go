package maplayer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pmtiles"
)

// synthetic is a layer whose tiles name themselves, except that tiles
// with x%3 == 0 are the same "sea" tile and tile failAt (when set) fails.
func synthetic(name string, failAt *TileAddr) Layer {
	return Layer{Name: name, Title: name, Format: PNG, TileSizePx: 256, MinZoom: 2, MaxZoom: 14,
		Coverage: func(geo.BBox) Coverage { return Coverage{Attribution: "test"} },
		Tile: func(ctx context.Context, z, x, y int) ([]byte, error) {
			if failAt != nil && *failAt == (TileAddr{z, x, y}) {
				return nil, errors.New("source unreadable")
			}
			if x%3 == 0 {
				return []byte("sea"), nil
			}
			return fmt.Appendf(nil, "%d/%d/%d", z, x, y), nil
		}}
}

var bboxFFM = geo.BBox{MinLon: 8.6, MinLat: 50.05, MaxLon: 8.75, MaxLat: 50.15}

func TestSelect(t *testing.T) {
	t.Parallel()
	var r Registry
	if err := r.Register(synthetic("hillshade", nil)); err != nil {
		t.Fatal(err)
	}
	mvt := synthetic("buildings", nil)
	mvt.Format, mvt.VectorLayers = MVT, []VectorLayer{{ID: "buildings"}, {ID: "roofs"}}
	if err := r.Register(mvt); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(synthetic("hillshade", nil)); err == nil {
		t.Fatal("a second hillshade registered")
	}
	bare := synthetic("contours", nil)
	bare.Format = MVT
	if err := r.Register(bare); err == nil {
		t.Fatal("an MVT layer without vector_layers registered")
	}
	for _, c := range []struct {
		names []string
		want  string
		err   string
	}{
		{[]string{"roofs"}, "buildings", ""},
		{[]string{"buildings", "roofs", "hillshade"}, "hillshade,buildings", ""},
		{[]string{"hillshade", "contours"}, "", `maplayer: unknown layer "contours": known layers are buildings, hillshade, roofs`},
	} {
		t.Run(strings.Join(c.names, ","), func(t *testing.T) {
			ls, err := r.Select(c.names)
			if c.err != "" {
				if err == nil || err.Error() != c.err || !errors.Is(err, ErrUnknown) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			var got []string
			for _, l := range ls {
				got = append(got, l.Name)
			}
			if err != nil || strings.Join(got, ",") != c.want {
				t.Fatalf("Select = %v, %v; want %s", got, err, c.want)
			}
		})
	}
}

func TestTilesOrder(t *testing.T) {
	t.Parallel()
	ts, err := Tiles(bboxFFM, 10, 14)
	if err != nil {
		t.Fatal(err)
	}
	// Frankfurt 8.6-8.75 E, 50.05-50.15 N at zoom 14: columns 8583..8590, rows 5545..5553 (computed by hand from the Web Mercator formulas).
	n14 := 0
	for i, a := range ts {
		if i > 0 && a.id() <= ts[i-1].id() {
			t.Fatalf("tile %d %v not after %v in tile id order", i, a, ts[i-1])
		}
		if a.Z == 14 {
			n14++
			if a.X < 8583 || a.X > 8590 || a.Y < 5545 || a.Y > 5553 {
				t.Fatalf("zoom 14 tile %v outside the bbox", a)
			}
		}
	}
	if n14 != 72 {
		t.Fatalf("%d tiles at zoom 14, want 8 x 9", n14)
	}
	if _, err := Tiles(geo.BBox{MinLon: -180, MinLat: -85, MaxLon: 180, MaxLat: 85}, 0, 12); !errors.Is(err, ErrTooMany) {
		t.Fatalf("the world at zoom 12: %v, want ErrTooMany", err)
	}
}

func exportBytes(t *testing.T, l Layer, workers int) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.pmtiles")
	if _, err := WriteFile(context.Background(), p, l, Export{BBox: bboxFFM, MinZoom: 0, MaxZoom: 14, Workers: workers}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExportSameForAnyWorkers: one worker or many, the same bytes, and
// every tile reads back as the layer made it.
func TestExportSameForAnyWorkers(t *testing.T) {
	t.Parallel()
	l := synthetic("hillshade", nil)
	one := exportBytes(t, l, 1)
	for _, w := range []int{2, 7, 32} {
		if b := exportBytes(t, l, w); !bytes.Equal(b, one) {
			t.Fatalf("%d workers: %d bytes differ from 1 worker's %d", w, len(b), len(one))
		}
	}
	r, err := pmtiles.Open(bytes.NewReader(one), int64(len(one)))
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := Tiles(bboxFFM, 2, 14)
	for _, a := range ts {
		want, _ := l.Tile(context.Background(), a.Z, a.X, a.Y)
		got, err := r.Tile(context.Background(), uint8(a.Z), uint32(a.X), uint32(a.Y))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("tile %v = %q, %v; want %q", a, got, err, want)
		}
	}
	if h := r.Header(); h.MinZoom != 2 || h.MaxZoom != 14 || h.TileType != pmtiles.PNG || h.AddressedTiles != uint64(len(ts)) || h.TileContents >= h.AddressedTiles {
		t.Fatalf("header %+v: want zooms 2-14 (the layer's), png, %d tiles, sea tiles stored once", h, len(ts))
	}
}

// TestExportAtomic: a failing export leaves neither a half archive nor
// its temporary file, and an archive already there stays as it was.
func TestExportAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "x.pmtiles")
	if err := os.WriteFile(p, []byte("old archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := WriteFile(context.Background(), p, synthetic("hillshade", &TileAddr{14, 8586, 5547}), Export{BBox: bboxFFM, MaxZoom: 14, Workers: 3})
	if err == nil || !strings.Contains(err.Error(), "tile 14/8586/5547: source unreadable") {
		t.Fatalf("err %v, want the failing tile named", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old archive" {
		t.Fatalf("the old archive was replaced by %d bytes", len(b))
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("left behind: %v", es)
	}
}

// TestOpenBundles: an archive of the export serves its layer; two for one
// layer, a PMTiles file not written by svc (no svc_layer) and a file that
// is no archive are refused with an error naming the file.
func TestOpenBundles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.pmtiles"), filepath.Join(dir, "b.pmtiles")
	for _, p := range []string{a, b} {
		if _, err := WriteFile(context.Background(), p, synthetic("hillshade", nil), Export{BBox: bboxFFM, MaxZoom: 8}); err != nil {
			t.Fatal(err)
		}
	}
	foreign := filepath.Join(dir, "foreign.pmtiles")
	f, _ := os.Create(foreign)
	w, _ := pmtiles.NewWriter(f, pmtiles.Options{TileType: pmtiles.PNG, Metadata: []byte(`{"name":"not svc"}`)})
	_ = w.Add(0, 0, 0, []byte("x"))
	_, _ = w.Close()
	f.Close()
	junk := filepath.Join(dir, "junk.pmtiles")
	_ = os.WriteFile(junk, []byte("not an archive"), 0o644)

	bs, err := OpenBundles([]string{a})
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	bd, ok := bs.Get("hillshade")
	if !ok || bd.Header.MinZoom != 2 || bd.Header.MaxZoom != 8 {
		t.Fatalf("bundle %v %+v", ok, bd)
	}
	if got, err := bd.Tile(context.Background(), 8, 134, 86); err != nil || string(got) != "8/134/86" {
		t.Fatalf("tile 8/134/86 = %q, %v", got, err)
	}
	if _, err := bd.Tile(context.Background(), 9, 0, 0); !errors.Is(err, pmtiles.ErrNoTile) {
		t.Fatalf("tile beyond the archive: %v", err)
	}
	for _, c := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"two for one layer", []string{a, b}, "both hold layer"},
		{"not svc's", []string{foreign}, "without svc_layer"},
		{"not an archive", []string{junk}, "invalid archive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := OpenBundles(c.paths); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("err %v, want %q naming the file", err, c.want)
			}
		})
	}
}

func TestVectorLayersIn(t *testing.T) {
	vls := []VectorLayer{{ID: "buildings", MinZoom: 12, MaxZoom: 18}, {ID: "roofs", MinZoom: 16, MaxZoom: 18}}
	for _, tc := range []struct {
		name   string
		lo, hi int
		want   string
	}{
		{"all zooms", 12, 18, "buildings 12-18, roofs 16-18, "},
		{"ends at the roofs' first", 12, 16, "buildings 12-16, roofs 16-16, "},
		{"ends below the roofs", 13, 15, "buildings 13-15, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			for _, v := range vectorLayersIn(vls, tc.lo, tc.hi) {
				got += fmt.Sprintf("%s %d-%d, ", v.ID, v.MinZoom, v.MaxZoom)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
