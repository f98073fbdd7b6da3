package tiles3d_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/scalegen"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/tiles3d"
)

// realLoD2 writes tiles km² of LoD2 CityGML from the real NRW sample
// (internal/scalegen: shifted copies with unique ids, 109 real buildings
// of tens of surfaces each per km²) into a new directory and returns the
// files, in the generator's order (rings around the centre: neighbours
// come first).
func realLoD2(t testing.TB, tiles int) []string {
	t.Helper()
	dir := t.TempDir()
	m, err := scalegen.Generate(context.Background(), scalegen.Options{BL: "nrw", Scale: float64(tiles) / scalegen.AreaKM2["nrw"],
		Seed: 1, Dir: dir, Samples: testtool.Shared(t, "samples"), PixelM: 50, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, tile := range m.Tiles {
		paths = append(paths, filepath.Join(m.LoD2.Dir, "LoD2_"+tile.Name(32)+"_1_NW.gml"))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("scalegen wrote no %s: %v", p, err)
		}
	}
	return paths
}

var buildingID = regexp.MustCompile(`<bldg:Building gml:id="([^"]+)"`)

// gmlFiles maps the gml:id of every building of the CityGML files at paths
// to its file.
func gmlFiles(t testing.TB, paths []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range buildingID.FindAllSubmatch(b, -1) {
			out[string(m[1])] = p
		}
	}
	return out
}

// leafGMLIDs reads the gmlid column of the EXT_structural_metadata
// property table of the glb at path: the buildings a client sees in it.
func leafGMLIDs(t testing.TB, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d gltf.Document
	if err := gltf.NewDecoder(bytes.NewReader(raw)).Decode(&d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ext, err := json.Marshal(d.Extensions["EXT_structural_metadata"])
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		PropertyTables []struct {
			Count      int
			Properties map[string]struct{ Values, StringOffsets int }
		}
	}
	if err := json.Unmarshal(ext, &meta); err != nil || len(meta.PropertyTables) != 1 {
		t.Fatalf("%s: EXT_structural_metadata %s: %v", path, ext, err)
	}
	tb := meta.PropertyTables[0]
	col, ok := tb.Properties["gmlid"]
	if !ok {
		t.Fatalf("%s: no gmlid property", path)
	}
	view := func(i int) []byte {
		v := d.BufferViews[i]
		return d.Buffers[v.Buffer].Data[v.ByteOffset : v.ByteOffset+v.ByteLength]
	}
	vals, offs := view(col.Values), view(col.StringOffsets)
	out := make([]string, tb.Count)
	for i := range out {
		out[i] = string(vals[binary.LittleEndian.Uint32(offs[4*i:]):binary.LittleEndian.Uint32(offs[4*i+4:])])
	}
	return out
}

var posList = regexp.MustCompile(`(<gml:posList[^>]*>)([^<]*)(</gml:posList>)`)

// raise lifts every building of the CityGML file at path by dz metres
// (every third coordinate of its gml:posList elements): a re-surveyed
// district whose buildings all changed.
func raise(t testing.TB, path string, dz float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := posList.ReplaceAllFunc(b, func(m []byte) []byte {
		g := posList.FindSubmatch(m)
		f := strings.Fields(string(g[2]))
		for k := 2; k < len(f); k += 3 {
			z, err := strconv.ParseFloat(f[k], 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			f[k] = strconv.FormatFloat(z+dz, 'f', 3, 64)
		}
		return append(append(append([]byte{}, g[1]...), strings.Join(f, " ")...), g[3]...)
	})
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// realSnapshots imports the real-shaped LoD2 files as snapshot 2026-07-20
// into each of prev, builds its tileset there, then raises the buildings
// of changed of the files and imports them as 2026-08-01 into each of
// prev and fresh. It returns the files, the changed ones first.
func realSnapshots(t testing.TB, tiles, changed, perTile int, prev []string, fresh []string) []string {
	t.Helper()
	ctx := context.Background()
	paths := realLoD2(t, tiles)
	imp := func(data, snapshot string) {
		t.Helper()
		c := importer.Common{DataDir: data, BL: "nrw", Snapshot: snapshot, LicenseID: "dl-de-zero-2.0"}
		if _, err := importer.LoD2(ctx, c, paths); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range prev {
		imp(d, "2026-07-20")
		if _, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: d, BL: "nrw", MaxPerTile: perTile}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range paths[:changed] {
		raise(t, p, 1)
	}
	for _, d := range append(append([]string{}, prev...), fresh...) {
		imp(d, "2026-08-01")
	}
	return paths
}

// TestBuildTilesetIncrementalReal builds the tileset of 20 km² of real
// buildings, then of a new snapshot in which the buildings of one file (5
// %) were raised by 1 m: every leaf holds the buildings of one source file
// (read from the gmlid column of each glb), exactly the leaves of the
// changed file are built and read, the others are the previous build's
// files, and the pack is the same bytes as a build of the new snapshot's
// pack from scratch.
func TestBuildTilesetIncrementalReal(t *testing.T) {
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	paths := realSnapshots(t, 20, 1, 100, []string{data}, nil)
	var st tiles3d.BuildStats
	if _, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: data, BL: "nrw", MaxPerTile: 100, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	b, r, read := st.Built.Load(), st.Reused.Load(), st.Read.Load()
	t.Logf("1 of 20 files changed: %d of %d leaves built, geometry of %d read", b, b+r, read)
	// Which file each leaf's buildings come from, and which leaves are
	// new files rather than links to the previous build's.
	fileOf := gmlFiles(t, paths)
	dir := filepath.Join("buildings", "nrw", "2026-08-01")
	glbs, err := filepath.Glob(filepath.Join(data, dir, "tiles", "*.glb"))
	if err != nil || len(glbs) == 0 {
		t.Fatalf("no leaves: %v", err)
	}
	changedLeaves, newLeaves := 0, 0
	for _, g := range glbs {
		files := map[string]bool{}
		for _, id := range leafGMLIDs(t, g) {
			if fileOf[id] == "" {
				t.Fatalf("%s: gml:id %s of no source file", g, id)
			}
			files[fileOf[id]] = true
		}
		if len(files) != 1 {
			t.Errorf("%s holds buildings of %d source files %v; want one", filepath.Base(g), len(files), files)
		}
		if files[paths[0]] {
			changedLeaves++
		}
		a, errA := os.Stat(g)
		p, errP := os.Stat(filepath.Join(data, "buildings", "nrw", "2026-07-20", "tiles", filepath.Base(g)))
		if errA != nil || errP != nil || !os.SameFile(a, p) {
			newLeaves++
		}
	}
	t.Logf("%d leaves hold the changed file's buildings, %d leaves are not the previous build's files", changedLeaves, newLeaves)
	if b != int64(changedLeaves) || read != b || newLeaves != changedLeaves {
		t.Errorf("%d leaves built, %d read, %d not linked; want the %d leaves of the changed file only", b, read, newLeaves, changedLeaves)
	}
	// The new snapshot's pack patches the previous one, so the raised
	// buildings have other ids than a full import gives them (tiles carry
	// building_id): build the same pack from scratch.
	pk := filepath.Join("lod2", "nrw", "2026-08-01")
	if err := os.CopyFS(filepath.Join(fresh, pk), os.DirFS(filepath.Join(data, pk))); err != nil {
		t.Fatal(err)
	}
	var fst tiles3d.BuildStats
	m, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: fresh, BL: "nrw", MaxPerTile: 100, Stats: &fst})
	if err != nil {
		t.Fatal(err)
	}
	// The footprint boxes of the 19 unchanged files' buildings come from
	// the previous build (ExtentsFile); only the changed file's surfaces
	// are scanned. A build without a previous one scans all.
	n := m.Tileset.BuildingCount
	t.Logf("footprint boxes scanned: %d of %d buildings (fresh build: %d)", st.Scanned.Load(), n, fst.Scanned.Load())
	if sc := st.Scanned.Load(); sc == 0 || sc > n/20+n/100 {
		t.Errorf("incremental build scanned the footprints of %d of %d buildings; want the changed file's only (about %d)", sc, n, n/20)
	}
	if fst.Scanned.Load() != n {
		t.Errorf("fresh build scanned %d of %d buildings' footprints; want all", fst.Scanned.Load(), n)
	}
	checkVerifies(t, filepath.Join(data, dir))
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
}

// TestBuildTilesetRealFirstView builds the building tileset of 20 km² of
// real buildings in 1 km source files with the default leaf size, as `svc
// build tileset` does: a file alone in a large quadtree cell makes a leaf
// high in the tree, and the first view of the whole tileset (CesiumJS's
// refinement rule, firstViewRequests) must still request nothing but
// tileset.json, as it did before leaves followed source files.
func TestBuildTilesetRealFirstView(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	paths := realLoD2(t, 20)
	c := importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0"}
	if _, err := importer.LoD2(ctx, c, paths); err != nil {
		t.Fatal(err)
	}
	m, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: data, BL: "nrw"})
	if err != nil {
		t.Fatal(err)
	}
	n := tiles3d.FirstViewRequests(t, filepath.Join(data, "buildings", "nrw", "2026-07-20", tiles3d.TilesetFile))
	t.Logf("%d leaves; first view of the whole tileset: %d requests", m.Tileset.TileCount, n)
	if n != 1 {
		t.Errorf("first view of the whole tileset: %d requests, want tileset.json only", n)
	}
}

// BenchmarkBuildTilesetIncrementalReal is BenchmarkBuildTilesetIncremental
// with real buildings (tens of surfaces each, not boxes): 40 km² of the
// real NRW sample replicated (4,360 buildings in 40 files, leaves of at
// most 100 buildings), a new snapshot in which the buildings of 2 adjacent
// files (5 %) were raised by 1 m. "full" builds it without a previous
// build, "incremental" with the previous snapshot's. Compare cpu-ms/op.
func BenchmarkBuildTilesetIncrementalReal(b *testing.B) {
	const tiles, changed, per = 40, 2, 100
	full, inc := b.TempDir(), b.TempDir()
	realSnapshots(b, tiles, changed, per, []string{inc}, []string{full})
	for _, tc := range []struct{ name, data string }{{"full", full}, {"incremental", inc}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			next := filepath.Join(tc.data, "buildings", "nrw", "2026-08-01")
			b.ReportAllocs()
			var built int64
			cpu := testtool.CPUTime()
			for b.Loop() {
				if err := os.RemoveAll(next); err != nil {
					b.Fatal(err)
				}
				var st tiles3d.BuildStats
				if _, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: tc.data, BL: "nrw", MaxPerTile: per, Stats: &st}); err != nil {
					b.Fatal(err)
				}
				built += st.Built.Load()
			}
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(built)/float64(b.N), "leaves-built/op")
		})
	}
}
