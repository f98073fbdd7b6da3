package tiles3d

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// lod2Snapshot commits a LoD2 pack of n box buildings (the positions of
// lod2Pack over size x size m) as snapshot; the buildings whose corner
// lies within raised m of the south-west corner are 2 m taller (a
// re-surveyed district). The buildings come from source files of 250 m x
// 250 m, written file by file as an import writes them, each recorded in
// source_files with the SHA-256 of its content (the GML a file of these
// buildings would hold, here their ids and geometry).
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
	const fileM = 250.0
	files := map[[2]int][]lod2store.BuildingInput{}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		x, y := e0+rng.Float64()*size, n0+rng.Float64()*size
		h := 10.0
		if x < e0+raised && y < n0+raised {
			h = 12
		}
		f := [2]int{int((x - e0) / fileM), int((y - n0) / fileM)}
		files[f] = append(files[f], lod2store.BuildingInput{GMLID: fmt.Sprintf("DEHE%08d", i), Valid: true, Surfaces: fixture.Box(x, y, 8, 6, 100, h)})
	}
	names := make([][2]int, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool {
		return names[i][0] < names[j][0] || names[i][0] == names[j][0] && names[i][1] < names[j][1]
	})
	for _, f := range names {
		m := lw.Mark()
		content := sha256.New()
		for _, b := range files[f] {
			if err := lw.Add(ctx, b); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(content, "%s %v\n", b.GMLID, b.Surfaces)
		}
		name := fmt.Sprintf("LoD2_32_%d_%d.gml", f[0], f[1])
		if err := lw.AddSource(ctx, m, name, int64(len(files[f])), hex.EncodeToString(content.Sum(nil)), "{}"); err != nil {
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

// TestBuildTilesetIncremental builds the tileset of 3,000 buildings from
// 64 source files, then of a new snapshot in which the buildings of a
// 450 m corner (5 % of the area, 4 files) changed: only the leaves holding
// them are built (at most 10 % of the leaves), the rest are linked, only
// the leaves near the changed files have their geometry read (the others
// are keyed by their source files), and the pack is the same bytes as a
// build from scratch.
func TestBuildTilesetIncremental(t *testing.T) {
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	const size, n, per = 2000.0, 3000, 20 // leaves of <= 20: a tree with external tilesets
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
	b, r, read := st.Built.Load(), st.Reused.Load(), st.Read.Load()
	t.Logf("5 %% of the area changed: %d of %d leaves built, %d reused, geometry of %d read, footprints of %d of %d buildings scanned", b, b+r, r, read, st.Scanned.Load(), n)
	// The footprint boxes of the 60 unchanged files come from the previous
	// build's ExtentsFile; only the 4 changed files' are scanned.
	if sc := st.Scanned.Load(); sc == 0 || sc > n/10 {
		t.Errorf("footprints of %d of %d buildings scanned; want those of the 4 changed files of 64 only", sc, n)
	}
	if b == 0 || b+r != leaves || float64(b) > 0.10*float64(leaves) {
		t.Errorf("%d leaves built, %d reused of %d; want at most 10 %% built", b, r, leaves)
	}
	// Leaves whose buildings all come from unchanged source files are
	// linked without reading their geometry: only the changed corner's
	// files' leaves (4 of 64 files; no leaf holds two files) are read.
	if read < b || float64(read) > 0.20*float64(leaves) {
		t.Errorf("geometry of %d of %d leaves read (%d built); want only those near the changed files, at most 20 %%", read, leaves, b)
	}
	if _, err := Build(ctx, Options{DataDir: fresh, BL: "he", MaxPerTile: per}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("buildings", "he", "2026-08-01")
	// The commit took the hashes of the linked leaves from the previous
	// manifest: they must still be the files' own.
	m, err := pack.ReadManifest(filepath.Join(data, dir))
	if err != nil {
		t.Fatal(err)
	}
	if damage, err := pack.Verify(ctx, filepath.Join(data, dir), m); err != nil || len(damage) != 0 {
		t.Errorf("the incremental pack does not verify: %v %v", damage, err)
	}
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
	// The external tilesets that did not change are the previous build's
	// files (hard links), not written again.
	subs, err := os.ReadDir(filepath.Join(data, dir, SubDir))
	if err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, e := range subs {
		a, errA := os.Stat(filepath.Join(data, dir, SubDir, e.Name()))
		b, errB := os.Stat(filepath.Join(data, "buildings", "he", "2026-07-20", SubDir, e.Name()))
		if errA == nil && errB == nil && os.SameFile(a, b) {
			linked++
		}
	}
	t.Logf("%d of %d external tilesets linked from the previous build", linked, len(subs))
	if len(subs) < 4 || linked < len(subs)/2 {
		t.Errorf("%d of %d external tilesets linked from the previous build; want most (only those above changed leaves differ)", linked, len(subs))
	}
	// The validator follows the linked external tilesets to the leaves.
	validator := testtool.TilesValidator(t)
	out, err := exec.Command(validator, filepath.Join(data, dir, TilesetFile)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": 0 errors") || !strings.Contains(string(out), `"numWarnings": 0`) {
		t.Errorf("validator on the incremental tileset: %v\n%s", err, string(out[max(0, len(out)-3000):]))
	}
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

// TestBuildTilesetExtentsDamaged builds a new snapshot over a previous
// build whose ExtentsFile does not match its manifest (a byte changed on
// disk), or is missing: the build scans every footprint again instead of
// trusting it, and the pack is the same bytes as a build from scratch.
func TestBuildTilesetExtentsDamaged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"changed byte", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-3] ^= 0x40 // a box's coordinate, the file still parses
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"built by an older svc", func(t *testing.T, path string) {
			// No ExtentsFile, nor in the manifest's files.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			mp := filepath.Join(filepath.Dir(path), pack.ManifestName)
			b, err := os.ReadFile(mp)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			var files []any
			for _, f := range m["files"].([]any) {
				if f.(map[string]any)["path"] != ExtentsFile {
					files = append(files, f)
				}
			}
			m["files"] = files
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(mp, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			data, fresh := t.TempDir(), t.TempDir()
			const size, n, per = 1000.0, 600, 50
			lod2Snapshot(t, data, "2026-07-20", size, n, 0)
			if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per}); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, filepath.Join(data, "buildings", "he", "2026-07-20", ExtentsFile))
			lod2Snapshot(t, data, "2026-08-01", size, n, 200)
			lod2Snapshot(t, fresh, "2026-08-01", size, n, 200)
			var st BuildStats
			if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per, Stats: &st}); err != nil {
				t.Fatal(err)
			}
			if st.Scanned.Load() != n || st.Reused.Load() == 0 {
				t.Errorf("%d of %d footprints scanned, %d leaves reused; want all scanned, leaves still reused", st.Scanned.Load(), n, st.Reused.Load())
			}
			if _, err := Build(ctx, Options{DataDir: fresh, BL: "he", MaxPerTile: per}); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("buildings", "he", "2026-08-01")
			testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
		})
	}
}
