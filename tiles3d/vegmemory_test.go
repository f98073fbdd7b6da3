package tiles3d_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/svc-geodata/svc/terrain"
	"github.com/svc-geodata/svc/tiles3d"
)

// TestWriteVegetationMemoryPerTile bounds what building the trees and
// plantcover of one 1 km forest tile of 1 m pixels allocates (the
// benchmark's tile: about 5,000 trees, a plantcover mesh over half the
// tile), one worker. The allocations per tile drive the import's CPU
// (zeroing, collection) and, times the workers, its peak RSS: the first
// implementation allocated 456 MB per tile here (all levels of the RTIN
// hierarchy, map-numbered vertices, growing slices, a Go map of every
// position in the Draco encoder); 300 MB leaves room for the encoder's
// working set of about 150 bytes per triangle.
func TestWriteVegetationMemoryPerTile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1 km tile of 1 m pixels")
	}
	data, src := t.TempDir(), t.TempDir()
	dgmPack(t, data, writeGrid(t, src, "dgm1.tif", tilePx, tileN, relief))
	f := writeGrid(t, src, "cdsm.tif", tilePx, tileN, forest)
	tiles := []terrain.Tile{{Name: "cdsm", Path: "cdsm.tif", BBox: [4]float64{tileE, tileN, tileE + tilePx, tileN + tilePx}, PixelM: 1}}
	o := tiles3d.VegetationOptions{DataDir: data, BL: "he", Snapshot: "2026-07-20", Zone: 32, Tiles: tiles, Workers: 1}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := tiles3d.WriteVegetation(context.Background(), filepath.Dir(f), o)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(res.Themes) != 2 || res.Themes[1].TileCount != 1 || res.Trees < 1000 {
		t.Fatalf("result %+v", res)
	}
	const limit = 300 << 20
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("one tile: %.0f MB allocated, %d trees", float64(alloc)/1e6, res.Trees)
	if alloc > limit {
		t.Errorf("one 1 km tile allocated %.0f MB, more than %d MB", float64(alloc)/1e6, limit>>20)
	}
}
