package pmtiles

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata")

// FuzzOpen opens arbitrary bytes as an archive and reads every tile its
// directories address: errors are fine, panics and runaway allocations
// are not. Seeded from testdata/*.pmtiles.
func FuzzOpen(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.pmtiles")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		n := 0
		_ = r.Entries(func(e Entry) error {
			if n++; n > 1000 {
				return context.Canceled
			}
			z, x, y := ZXY(e.TileID)
			_, _ = r.Tile(context.Background(), z, x, y)
			return nil
		})
	})
}

// TestSeed writes the fuzz seed (go test -run TestSeed -update).
func TestSeed(t *testing.T) {
	p := filepath.Join("testdata", "pyramid.pmtiles")
	if !*update {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("fuzz seed missing: %v (go test -run TestSeed -update)", err)
		}
		return
	}
	src, _ := writeArchive(t, append(pyramid(0, 3, 2), tile{4, 3, 3, []byte("zoom 3 part 0")}), Options{TileType: PNG, TileCompression: NoCompression,
		MinLon: 6, MinLat: 50, MaxLon: 7, MaxLat: 51, Metadata: []byte(`{"name":"seed"}`)})
	b, _ := os.ReadFile(src)
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
