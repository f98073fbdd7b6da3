package tiles3d

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solarstore"
)

// solarBestWhM2 is the best plane's annual of the test stores.
const solarBestWhM2 = 1_200_000

// commitSolarPack commits, as solar snapshot snap of BL he, a store for
// the LoD2 pack of snapshot lodSnap in data whose every roof facet gets
// annual(gmlid, surface_id, part) Wh/m²; a facet for which annual returns
// a negative value is left out (not computed).
func commitSolarPack(t testing.TB, data, lodSnap, snap string, annual func(gmlid string, sid int64, part int) int64) {
	t.Helper()
	ctx := context.Background()
	lodDir := filepath.Join(data, string(pack.LoD2), "he", lodSnap)
	lm, err := pack.ReadManifest(lodDir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := lod2store.OpenLoD2(ctx, filepath.Join(lodDir, lm.LoD2.File))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := pack.Create(data, pack.Key{Product: pack.Solar, BL: "he", Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	info := solarstore.Info{LoD2Snapshot: lodSnap, LoD2SHA256: lm.FileSHA256(lm.LoD2.File), Model: "test", Shading: "terrain, buildings",
		Climate: solarstore.Climate{File: "test.csv", Source: "constructed"}, Best: solarstore.Plane{TiltDeg: 35, AnnualWhM2: solarBestWhM2}}
	sw, err := solarstore.Create(ctx, filepath.Join(w.Dir(), solarstore.FileName), info)
	if err != nil {
		t.Fatal(err)
	}
	err = st.AllBuildingGeometry(ctx, func(bd *lod2store.Building3D) error {
		b := solarstore.Building{ID: bd.BuildingID, GMLID: bd.GMLID}
		for _, s := range bd.Surfaces {
			if s.Class != lod2store.ClassRoof {
				continue
			}
			for part := range s.Ends {
				if a := annual(bd.GMLID, s.SurfaceID, part); a >= 0 {
					f := solarstore.Facet{SurfaceID: s.SurfaceID, Part: part, AnnualWhM2: a, Unshaded: a}
					for m := range f.MonthlyWhM2 {
						f.MonthlyWhM2[m] = a / 12
					}
					b.Facets = append(b.Facets, f)
				}
			}
		}
		return sw.Put(ctx, b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0",
		Solar: &pack.SolarInfo{File: solarstore.FileName, LoD2Snapshot: lodSnap, LoD2SHA256: info.LoD2SHA256, Model: "test"}}); err != nil {
		t.Fatal(err)
	}
}

// solarAnnual is the test stores' value of a building's roof: from 500 to
// 1,290 kWh/m² by its gml:id, none for every seventh building.
func solarAnnual(gmlid string, _ int64, _ int) int64 {
	var n int64
	for _, c := range gmlid {
		n = n*31 + int64(c)
	}
	n = (n%1000 + 1000) % 1000
	if n%7 == 0 {
		return -1
	}
	return 500_000 + n*790
}

// leafVertices decodes a building leaf and returns, per vertex, its
// building's gml:id, whether it lies on an upward face (a roof of the box
// buildings) and its roof_solar property attributes (nil without them).
type leafVertex struct {
	gmlid         string
	up            bool
	annual, share float32
}

func leafVertices(t *testing.T, path string) ([]leafVertex, map[string]any) {
	t.Helper()
	var d gltf.Document
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gltf.NewDecoder(bytes.NewReader(b)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	floats := func(acc int) []float32 {
		a := d.Accessors[acc]
		bv := d.BufferViews[*a.BufferView]
		raw := d.Buffers[0].Data[bv.ByteOffset+a.ByteOffset:]
		n := a.Count * map[gltf.AccessorType]int{gltf.AccessorScalar: 1, gltf.AccessorVec3: 3}[a.Type]
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return out
	}
	var meta struct {
		Schema         map[string]any `json:"schema"`
		PropertyTables []struct {
			Properties map[string]struct {
				Values        int `json:"values"`
				StringOffsets int `json:"stringOffsets"`
			} `json:"properties"`
		} `json:"propertyTables"`
		PropertyAttributes []map[string]any `json:"propertyAttributes"`
	}
	raw, _ := json.Marshal(d.Extensions["EXT_structural_metadata"])
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	gp := meta.PropertyTables[0].Properties["gmlid"]
	strs, offs := d.BufferViews[gp.Values], d.BufferViews[gp.StringOffsets]
	data := d.Buffers[0].Data
	gmlid := func(i int) string {
		o := data[offs.ByteOffset:]
		return string(data[strs.ByteOffset+int(binary.LittleEndian.Uint32(o[4*i:])) : strs.ByteOffset+int(binary.LittleEndian.Uint32(o[4*i+4:]))])
	}
	var out []leafVertex
	for _, m := range d.Meshes {
		for _, p := range m.Primitives {
			nrm, fid := floats(p.Attributes["NORMAL"]), floats(p.Attributes["_FEATURE_ID_0"])
			var annual, share []float32
			if a, ok := p.Attributes["_ANNUAL_KWH_M2"]; ok {
				annual, share = floats(a), floats(p.Attributes["_SHARE_OF_BEST"])
			}
			for i := range fid {
				v := leafVertex{gmlid: gmlid(int(fid[i])), up: nrm[3*i+1] > 0.99}
				if annual != nil {
					v.annual, v.share = annual[i], share[i]
				}
				out = append(out, v)
			}
		}
	}
	var schema map[string]any
	if len(meta.PropertyAttributes) > 0 {
		schema = meta.Schema
	}
	return out, schema
}

// TestBuildTilesetSolar builds the tileset of 400 buildings with a solar
// pack for their LoD2 snapshot: every roof vertex carries its facet's
// annual kWh/m² and share of the best plane as the store holds them, walls
// and the roofs without a value carry the schema's noData; the official
// 3D Tiles validator and the Khronos glTF validator find nothing wrong.
// A solar pack of another LoD2 snapshot is not used: the tileset is then
// the same bytes as without any.
func TestBuildTilesetSolar(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, plain := t.TempDir(), t.TempDir()
	const size, n, per = 800.0, 400, 60
	lod2Snapshot(t, data, "2026-07-20", size, n, 0)
	lod2Snapshot(t, plain, "2026-07-20", size, n, 0)
	commitSolarPack(t, data, "2026-07-20", "2026-07-21", solarAnnual)
	if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "buildings", "he", "2026-07-20")
	leaves, _ := filepath.Glob(filepath.Join(dir, "tiles", "*.glb"))
	if len(leaves) < 4 {
		t.Fatalf("%d leaves", len(leaves))
	}
	var roofs, walls, noValue int
	for _, l := range leaves {
		vs, schema := leafVertices(t, l)
		if schema == nil {
			t.Fatalf("%s: no roof_solar property attributes", filepath.Base(l))
		}
		for _, v := range vs {
			want, wantShare := float32(-1), float32(-1)
			if a := solarAnnual(v.gmlid, 0, 0); v.up && a >= 0 {
				want, wantShare = float32(a)/1000, float32(float64(a)/solarBestWhM2)
			}
			switch {
			case v.up && want >= 0:
				roofs++
			case v.up:
				noValue++
			default:
				walls++
			}
			if v.annual != want || math.Abs(float64(v.share-wantShare)) > 1e-6 {
				t.Fatalf("%s: %s (roof %v): annual %v share %v, want %v %v", filepath.Base(l), v.gmlid, v.up, v.annual, v.share, want, wantShare)
			}
		}
	}
	t.Logf("%d leaves: %d roof vertices with values, %d without, %d wall and ground vertices noData", len(leaves), roofs, noValue, walls)
	if roofs == 0 || noValue == 0 || walls == 0 {
		t.Errorf("want vertices of each kind")
	}
	var ts struct {
		Asset struct {
			Extras map[string]any `json:"extras"`
		} `json:"asset"`
		Schema struct {
			Classes map[string]any `json:"classes"`
		} `json:"schema"`
	}
	b, err := os.ReadFile(filepath.Join(dir, TilesetFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ts); err != nil || ts.Schema.Classes["roof_solar"] == nil || ts.Asset.Extras["solar"] == nil {
		t.Errorf("tileset.json: schema classes %v, asset extras %v (%v)", ts.Schema.Classes, ts.Asset.Extras, err)
	}
	validator := testtool.TilesValidator(t)
	out, err := exec.Command(validator, filepath.Join(dir, TilesetFile)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": 0 errors") || !strings.Contains(string(out), `"numWarnings": 0`) {
		t.Errorf("3D Tiles validator on the solar tileset: %v\n%s", err, string(out[max(0, len(out)-3000):]))
	}
	// The Khronos glTF validator on a leaf: no error, no warning.
	node := testtool.Node(t, "gltf-validator")
	out, err = exec.Command(node, "../glb/testdata/validate.js", leaves[0]).Output()
	var rep struct {
		Errors, Warnings int
		Messages         []string
	}
	if err != nil || json.Unmarshal(out, &rep) != nil || rep.Errors != 0 || rep.Warnings != 0 {
		t.Errorf("glTF validator on %s: %v %s", filepath.Base(leaves[0]), err, out)
	}

	// A solar pack of another LoD2 snapshot (the previous one's) is not
	// used: the tileset of the newer snapshot is the one without solar.
	commitSolarPack(t, plain, "2026-07-20", "2026-07-21", solarAnnual)
	other := t.TempDir()
	var st BuildStats
	for _, d := range []string{plain, other} {
		lod2Snapshot(t, d, "2026-08-01", size, n, 0)
		if _, err := Build(ctx, Options{DataDir: d, BL: "he", MaxPerTile: per, Stats: &st}); err != nil {
			t.Fatal(err)
		}
		if want := "computed for LoD2 snapshot 2026-07-20, not for 2026-08-01"; d == plain && !strings.Contains(st.Solar, want) {
			t.Errorf("build over a stale solar pack says %q, want it to say %q", st.Solar, want)
		}
	}
	sub := filepath.Join("buildings", "he", "2026-08-01")
	withSolar, without := glbBytes(t, dir), glbBytes(t, filepath.Join(other, sub))
	t.Logf("leaves: %d bytes with solar values, %d without (+%.1f %%)", withSolar, without, 100*float64(withSolar-without)/float64(without))
	testtool.SameTrees(t, "stale solar pack vs none", testtool.TreeSums(t, filepath.Join(plain, sub)), testtool.TreeSums(t, filepath.Join(other, sub)))
}

// TestBuildTilesetSolarIncremental: the solar values are inputs of the
// incremental build. A new solar pack in which one building's roof value
// changed rebuilds only the leaf holding it (every leaf is read, since the
// store changed; the others are linked), and the pack is the same bytes as
// a build from scratch; a rebuild with the same store reads no leaf.
func TestBuildTilesetSolarIncremental(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, fresh := t.TempDir(), t.TempDir()
	const size, n, per = 800.0, 400, 60
	changed := func(gmlid string, sid int64, part int) int64 {
		if gmlid == "DEHE00000005" {
			return 1_111_000
		}
		return solarAnnual(gmlid, sid, part)
	}
	lod2Snapshot(t, data, "2026-07-20", size, n, 0)
	commitSolarPack(t, data, "2026-07-20", "2026-07-21", solarAnnual)
	var st BuildStats
	if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	leaves := st.Built.Load()
	commitSolarPack(t, data, "2026-07-20", "2026-07-22", changed)
	st = BuildStats{}
	if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	t.Logf("one building's roof value changed: %d of %d leaves built, %d reused, %d read", st.Built.Load(), leaves, st.Reused.Load(), st.Read.Load())
	if st.Built.Load() != 1 || st.Reused.Load() != leaves-1 || st.Read.Load() != leaves {
		t.Errorf("%d built, %d reused, %d read of %d leaves; want 1 built, the rest reused, all read", st.Built.Load(), st.Reused.Load(), st.Read.Load(), leaves)
	}
	// From scratch over the same packs (the same files: a LoD2 import
	// writes no two equal lod2.sqlite files, and the solar store records
	// its SHA-256).
	for _, p := range []string{"lod2/he/2026-07-20", "solar/he/2026-07-22"} {
		if err := os.CopyFS(filepath.Join(fresh, p), os.DirFS(filepath.Join(data, p))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Build(ctx, Options{DataDir: fresh, BL: "he", MaxPerTile: per}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("buildings", "he", "2026-07-20")
	testtool.SameTrees(t, "incremental vs fresh build", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
	st = BuildStats{}
	if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: per, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if st.Built.Load() != 0 || st.Read.Load() != 0 || st.Reused.Load() != leaves {
		t.Errorf("same store again: %d built, %d read, %d reused of %d leaves; want all reused unread", st.Built.Load(), st.Read.Load(), st.Reused.Load(), leaves)
	}
}

// glbBytes sums the sizes of the leaves of a building tileset pack.
func glbBytes(t *testing.T, dir string) int64 {
	t.Helper()
	leaves, _ := filepath.Glob(filepath.Join(dir, "tiles", "*.glb"))
	var n int64
	for _, l := range leaves {
		fi, err := os.Stat(l)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// BenchmarkBuildTilesetSolar builds the tileset of 2,000 buildings from
// scratch without and with a solar pack (every roof with a value).
// Compare cpu-ms/op and B/op.
func BenchmarkBuildTilesetSolar(b *testing.B) {
	for _, withSolar := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "solar"}[withSolar], func(b *testing.B) {
			ctx := context.Background()
			data := b.TempDir()
			lod2Snapshot(b, data, "2026-07-20", 1500, 2000, 0)
			if withSolar {
				commitSolarPack(b, data, "2026-07-20", "2026-07-21", func(string, int64, int) int64 { return 1_000_000 })
			}
			next := filepath.Join(data, "buildings", "he", "2026-07-20")
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				if err := os.RemoveAll(next); err != nil {
					b.Fatal(err)
				}
				if _, err := Build(ctx, Options{DataDir: data, BL: "he", MaxPerTile: 100}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
