package tiles3d

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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

// BenchmarkBuildTilesetProcs builds the tileset of 5,000 buildings with
// GOMAXPROCS and the workers at 1, 2, 4 ... up to the machine's cores.
func BenchmarkBuildTilesetProcs(b *testing.B) {
	data := b.TempDir()
	lod2Pack(b, data, "he", e0, n0, 3000, 5000)
	for _, p := range []int{1, 2, 4, 8, 16} {
		if p > runtime.NumCPU() {
			break
		}
		b.Run(fmt.Sprintf("procs=%d", p), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				// Fresh: every leaf is built (no previous build to reuse).
				if err := os.RemoveAll(filepath.Join(data, "buildings")); err != nil {
					b.Fatal(err)
				}
				if _, err := Build(context.Background(), Options{DataDir: data, BL: "he", Workers: p}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*5000)/b.Elapsed().Seconds(), "buildings/s")
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
