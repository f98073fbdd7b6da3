package tiles3d

import (
	"context"
	"math"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestBuildTilesetMemoryBounded builds the tileset of N and of 4N
// buildings at the same density (the area grows with N) and fails when
// the peak live heap grows by more than 160 bytes per building (about 100
// measured: a whole NRW, 11 M buildings, then needs about 1.1 GB; 268
// before the search index, 26 bytes per surface, was left in the mmapped
// file and the map by id and the quadrant slices went). What a leaf holds
// is bounded by the workers (each leaf at most MaxPerTile buildings); what
// stays per building is its extent (40 bytes), its quadtree index and id
// (16) and its leaf's share of the tileset tree.
func TestBuildTilesetMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 60,000 buildings")
	}
	per := testtool.HeapPerItem(t, "buildings", 10000, func(n int) func() uint64 {
		data := t.TempDir()
		lod2Pack(t, data, "he", e0, n0, 40*math.Sqrt(float64(n)), n)
		return func() uint64 {
			if _, err := Build(context.Background(), Options{DataDir: data, BL: "he", MaxPerTile: 100, Workers: 1}); err != nil {
				t.Fatal(err)
			}
			return 0
		}
	})
	t.Logf("%.0f bytes per building", per)
	if per > 160 {
		t.Errorf("the peak live heap grows by %.0f bytes per building, want at most 160", per)
	}
}
