package tiles3d

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// lod2Snapshot commits a LoD2 pack of n box buildings (the positions of
// lod2Pack over size x size m) as snapshot; the buildings whose corner
// lies within raised m of the south-west corner are 2 m taller (a
// re-surveyed district).
func lod2Snapshot(t testing.TB, data, snapshot string, size float64, n int, raised float64) {
	t.Helper()
	ctx := context.Background()
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: snapshot})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(ctx, filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		x, y := e0+rng.Float64()*size, n0+rng.Float64()*size
		h := 10.0
		if x < e0+raised && y < n0+raised {
			h = 12
		}
		if err := lw.Add(ctx, lod2store.BuildingInput{GMLID: fmt.Sprintf("DEHE%08d", i), Valid: true, Surfaces: fixture.Box(x, y, 8, 6, 100, h)}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := lw.Finish(ctx, map[string]string{"bl": "he"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0", CRS: "EPSG:25832", BBoxWGS84: st.BBoxWGS84[:],
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}}); err != nil {
		t.Fatal(err)
	}
}

// TestBuildTilesetIncremental builds the tileset of 3,000 buildings, then
// of a new snapshot in which the buildings of a 450 m corner (5 % of the
// area) changed: only the leaves holding them are built (at most 10 % of
// the leaves), the rest are linked, and the pack is the same bytes as a
// build from scratch.
func TestBuildTilesetIncremental(t *testing.T) {
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	const size, n, per = 2000.0, 3000, 50
	lod2Snapshot(t, data, "2026-07-20", size, n, 0)
	var st BuildStats
	if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	leaves := st.Built.Load()
	if leaves < 40 || st.Reused.Load() != 0 {
		t.Fatalf("first build: %d built, %d reused", leaves, st.Reused.Load())
	}
	lod2Snapshot(t, data, "2026-08-01", size, n, 450)
	lod2Snapshot(t, fresh, "2026-08-01", size, n, 450)
	st = BuildStats{}
	if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	b, r := st.Built.Load(), st.Reused.Load()
	t.Logf("5 %% of the area changed: %d of %d leaves built, %d reused", b, b+r, r)
	if b == 0 || b+r != leaves || float64(b) > 0.10*float64(leaves) {
		t.Errorf("%d leaves built, %d reused of %d; want at most 10 %% built", b, r, leaves)
	}
	if _, err := Build(ctx, Options{DataDir: fresh, BL: "he", MaxPerTile: per}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("buildings", "he", "2026-08-01")
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
}

// BenchmarkBuildTilesetIncremental builds the tileset of a snapshot of
// 3,000 buildings in which those of a 450 m corner (5 % of the area)
// changed: "full" without a previous build, "incremental" with the
// previous snapshot's. Compare cpu-ms/op.
func BenchmarkBuildTilesetIncremental(b *testing.B) {
	for _, inc := range []bool{false, true} {
		b.Run(map[bool]string{false: "full", true: "incremental"}[inc], func(b *testing.B) {
			ctx := context.Background()
			data := b.TempDir()
			if inc {
				lod2Snapshot(b, data, "2026-07-20", 2000, 3000, 0)
				if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: 50}); err != nil {
					b.Fatal(err)
				}
			}
			lod2Snapshot(b, data, "2026-08-01", 2000, 3000, 450)
			next := filepath.Join(data, "buildings", "he", "2026-08-01")
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				if err := os.RemoveAll(next); err != nil {
					b.Fatal(err)
				}
				if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: 50}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
