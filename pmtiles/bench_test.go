package pmtiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriter writes the 21,845 tiles of zooms 0-7, a third of them
// one repeated blob (no-data tiles), 2 KiB each.
func BenchmarkWriter(b *testing.B) {
	tiles := pyramid(0, 7, 0)
	for i := range tiles {
		tiles[i].data = append(make([]byte, 2048-len(tiles[i].data)), tiles[i].data...)
		if i%3 == 0 {
			tiles[i].data = make([]byte, 2048)
		}
	}
	p := filepath.Join(b.TempDir(), "b.pmtiles")
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		w, _ := NewWriter(f, Options{TileType: PNG})
		for _, t := range tiles {
			if err := w.Add(t.z, t.x, t.y, t.data); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	b.ReportMetric(float64(b.N*len(tiles))/b.Elapsed().Seconds(), "tiles/s")
}

// BenchmarkReaderTile reads tiles of an archive with leaf directories
// (87,381 tiles), leaves cached after the first read.
func BenchmarkReaderTile(b *testing.B) {
	p, _ := writeArchive(b, pyramid(0, 8, 0), Options{TileType: PNG})
	r := openFile(b, p)
	ctx := context.Background()
	b.ReportAllocs()
	i := uint32(0)
	for b.Loop() {
		i = (i*7919 + 13) % (256 * 256)
		if _, err := r.Tile(ctx, 8, i%256, i/256); err != nil {
			b.Fatal(fmt.Errorf("8/%d/%d: %w", i%256, i/256, err))
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tiles/s")
}
