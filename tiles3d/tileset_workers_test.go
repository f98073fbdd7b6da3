package tiles3d

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestBuildTilesetWorkersSameBytes builds the building tileset of the same
// LoD2 pack with 1 and with 3 workers: tileset.json, every glb and the
// manifest (but for its times and tileset id) have the same SHA-256.
func TestBuildTilesetWorkersSameBytes(t *testing.T) {
	var sums []map[string]string
	for _, n := range []int{1, 3} {
		data := t.TempDir()
		lod2Pack(t, data, "he", e0, n0, 2000, 800)
		if _, err := Build(context.Background(), Options{DataDir: data, BL: "he", MaxPerTile: 60, Workers: n}); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, testtool.TreeSums(t, filepath.Join(data, "buildings", "he", "2026-07-20")))
	}
	testtool.SameTrees(t, "tileset workers 1 vs 3", sums[0], sums[1])
	if len(sums[0]) < 12 {
		t.Errorf("%d files, want a dozen tiles or more", len(sums[0]))
	}
}
