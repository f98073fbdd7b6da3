package tiles3d_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/tiles3d"
)

// checkVerifies fails when the pack in dir does not verify against its
// manifest (pack.Verify reads every file): the hashes an incremental
// build took from the previous manifest must be the files' own.
func checkVerifies(t *testing.T, dir string) {
	t.Helper()
	m, err := pack.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if damage, err := pack.Verify(context.Background(), dir, m); err != nil || len(damage) != 0 {
		t.Errorf("the incremental pack does not verify: %v %v", damage, err)
	}
}

// checkHashesTaken marks the SHA-256 sums in the manifest of the pack in
// dir (testtool.MarkSums), runs rebuild, which must rebuild that pack
// linking every tile from it, and fails unless the rebuilt manifest
// carries the mark for at least min files (Commit took the linked tiles'
// hashes from the previous manifest instead of reading them) and for no
// file the build wrote itself (tileset.json, InputsFile).
func checkHashesTaken(t *testing.T, dir string, min int, rebuild func()) {
	t.Helper()
	testtool.MarkSums(t, dir)
	rebuild()
	marked, files := testtool.MarkedFiles(t, dir)
	t.Logf("%d of %d files' SHA-256 taken from the previous manifest", len(marked), files)
	if len(marked) < min {
		t.Errorf("%d files' SHA-256 taken from the previous manifest (the others read again); want at least %d", len(marked), min)
	}
	for _, p := range marked {
		if filepath.Base(p) == "tileset.json" || p == tiles3d.InputsFile {
			t.Errorf("%s was written by the build, yet its SHA-256 came from the previous manifest", p)
		}
	}
}

// TestTerrainMeshIncremental builds the terrain mesh of a 5 x 4 tile DGM,
// then imports a new snapshot in which one tile (5 %) changed inside and
// builds again: one tile is meshed, 19 are reused from the previous build
// (its 8 neighbours after sampling only their lattice's boundary), and the
// pack is the same bytes as a build from scratch of the new
// snapshot. A changed option (the tolerance) rebuilds every tile.
func TestTerrainMeshIncremental(t *testing.T) {
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	importDGM(t, data, "2026-07-20", 5, 4, nil)
	var st tiles3d.BuildStats
	if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: tolerance, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if st.Built.Load() != 20 || st.Reused.Load() != 0 {
		t.Fatalf("first build: %d built, %d reused", st.Built.Load(), st.Reused.Load())
	}
	changed := map[string][2]float64{dgmName(2, 1): dgmCentre(2, 1)}
	importDGM(t, data, "2026-08-01", 5, 4, changed)
	importDGM(t, fresh, "2026-08-01", 5, 4, changed)
	st = tiles3d.BuildStats{}
	if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: tolerance, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if st.Built.Load() != 1 || st.Reused.Load() != 19 {
		t.Errorf("5 %% changed: %d tiles built, %d reused; want 1 and 19", st.Built.Load(), st.Reused.Load())
	}
	// The changed tile's 8 neighbours read only their lattice's boundary
	// (the samples the changed file can give them), not all of it.
	if st.Edge.Load() != 8 {
		t.Errorf("5 %% changed: %d tiles reused after reading only their boundary; want the 8 neighbours of the changed tile", st.Edge.Load())
	}
	if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: fresh, BL: "he", ToleranceM: tolerance}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("terrain-mesh", "he", "2026-08-01")
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
	checkVerifies(t, filepath.Join(data, dir))
	checkHashesTaken(t, filepath.Join(data, dir), 20, func() {
		st = tiles3d.BuildStats{}
		if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: tolerance, Stats: &st}); err != nil {
			t.Fatal(err)
		}
		if st.Reused.Load() != 20 {
			t.Fatalf("rebuild of the same snapshot: %d of 20 tiles reused", st.Reused.Load())
		}
	})
	st = tiles3d.BuildStats{}
	if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: 2 * tolerance, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if st.Built.Load() != 20 {
		t.Errorf("new tolerance: %d tiles built, %d reused; want all 20 built", st.Built.Load(), st.Reused.Load())
	}
	if _, err := os.Stat(filepath.Join(data, dir, tiles3d.InputsFile)); err != nil {
		t.Error(err)
	}
}

// TestVegetationIncremental rebuilds the vegetation themes: with nothing
// changed both CDSM tiles are reused; with a new DGM snapshot changed
// under one of them only that one is built, and the pack equals one built
// from scratch; a new tolerance builds both.
func TestVegetationIncremental(t *testing.T) {
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	importDGM(t, data, "2026-07-20", 3, 2, nil)
	importCDSM(t, data)
	build := func(data string, tol float64) (built, reused int64) {
		t.Helper()
		var st tiles3d.BuildStats
		if _, err := tiles3d.BuildVegetation(ctx, tiles3d.BuildVegetationOptions{DataDir: data, BL: "he", ToleranceM: tol, Stats: &st}); err != nil {
			t.Fatal(err)
		}
		return st.Built.Load(), st.Reused.Load()
	}
	if b, r := build(data, tolerance); b != 0 || r != 2 {
		t.Errorf("nothing changed: %d built, %d reused; want 0 and 2", b, r)
	}
	// The CDSM's first tile lies in DGM tile (1, 0); a bump under it.
	changed := map[string][2]float64{dgmName(1, 0): {tileE + 128, tileN + tilePx - 128}}
	importDGM(t, data, "2026-08-01", 3, 2, changed)
	if b, r := build(data, tolerance); b != 1 || r != 1 {
		t.Errorf("ground changed under one tile: %d built, %d reused; want 1 and 1", b, r)
	}
	// From scratch: the vegetation import builds both tiles on the new DGM.
	importDGM(t, fresh, "2026-08-01", 3, 2, changed)
	importCDSM(t, fresh)
	dir := filepath.Join("veg", "he", "2026-07-20")
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
	checkVerifies(t, filepath.Join(data, dir))
	// Both tiles' trees and plantcover, and the CDSM rasters, are links.
	checkHashesTaken(t, filepath.Join(data, dir), 4, func() {
		if b, r := build(data, tolerance); b != 0 || r != 2 {
			t.Fatalf("nothing changed: %d built, %d reused; want 0 and 2", b, r)
		}
	})
	if b, r := build(data, 2*tolerance); b != 2 || r != 0 {
		t.Errorf("new tolerance: %d built, %d reused; want 2 and 0", b, r)
	}
}

// TestOSMCoverIncremental rebuilds the OSM cover after a new DGM snapshot
// changed one tile: only that tile's surface and transport are built, the
// others are linked, and the pack equals a build from scratch.
func TestOSMCoverIncremental(t *testing.T) {
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	multiTileSources(t, data, 3, 2, nil)
	build := func(data string) (built, reused int64) {
		t.Helper()
		var st tiles3d.BuildStats
		if _, err := tiles3d.BuildOSMCover(ctx, tiles3d.OSMCoverOptions{DataDir: data, BL: "he", Stats: &st}); err != nil {
			t.Fatal(err)
		}
		return st.Built.Load(), st.Reused.Load()
	}
	all, _ := build(data)
	if all < 2 {
		t.Fatalf("first build: %d tiles built", all)
	}
	changed := map[string][2]float64{dgmName(1, 0): dgmCentre(1, 0)}
	importDGM(t, data, "2026-08-01", 3, 2, changed)
	if b, r := build(data); b != 1 || r != all-1 {
		t.Errorf("one DGM tile changed: %d built, %d reused; want 1 and %d", b, r, all-1)
	}
	multiTileSources(t, fresh, 3, 2, nil)
	importDGM(t, fresh, "2026-08-01", 3, 2, changed)
	if b, r := build(fresh); b != all || r != 0 {
		t.Errorf("fresh: %d built, %d reused; want %d and 0", b, r, all)
	}
	dir := filepath.Join("osm-cover", "he", "2026-07-20")
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
	checkVerifies(t, filepath.Join(data, dir))
	checkHashesTaken(t, filepath.Join(data, dir), int(all), func() {
		if b, r := build(data); b != 0 || r != all {
			t.Fatalf("nothing changed: %d built, %d reused; want 0 and %d", b, r, all)
		}
	})
}

// BenchmarkTerrainMeshIncremental builds the terrain mesh of a 20 tile DGM
// snapshot in which one tile changed (5 %): "full" without a previous
// build, "incremental" with the previous snapshot's. Compare cpu-ms/op.
func BenchmarkTerrainMeshIncremental(b *testing.B) {
	for _, inc := range []bool{false, true} {
		name := map[bool]string{false: "full", true: "incremental"}[inc]
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			data := b.TempDir()
			if inc {
				importDGM(b, data, "2026-07-20", 5, 4, nil)
				if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: tolerance}); err != nil {
					b.Fatal(err)
				}
			}
			importDGM(b, data, "2026-08-01", 5, 4, map[string][2]float64{dgmName(2, 1): dgmCentre(2, 1)})
			next := filepath.Join(data, "terrain-mesh", "he", "2026-08-01")
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				if err := os.RemoveAll(next); err != nil {
					b.Fatal(err)
				}
				var st tiles3d.BuildStats
				if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: tolerance, Stats: &st}); err != nil {
					b.Fatal(err)
				}
				if inc && st.Reused.Load() != 19 {
					b.Fatalf("%d reused", st.Reused.Load())
				}
			}
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
