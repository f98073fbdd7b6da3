package tiles3d

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/svc-geodata/svc/internal/fixture"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// lod2Pack commits a LoD2 pack of n box buildings over size x size metres
// from (e0, n0) in EPSG:25832 and returns the first building's corner.
func lod2Pack(t testing.TB, data, bl string, e0, n0, size float64, n int) {
	t.Helper()
	ctx := context.Background()
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: bl, Snapshot: "2026-07-20"})
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
		if i == 0 {
			x, y = e0, n0
		}
		if err := lw.Add(ctx, lod2store.BuildingInput{GMLID: fmt.Sprintf("DEHE%08d", i), Valid: true, Surfaces: fixture.Box(x, y, 8, 6, 100, 10)}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := lw.Finish(ctx, map[string]string{"bl": bl})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0", CRS: "EPSG:25832", BBoxWGS84: st.BBoxWGS84[:],
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}}); err != nil {
		t.Fatal(err)
	}
}

const e0, n0 = 477000.0, 5553000.0

func TestBuild(t *testing.T) {
	data := t.TempDir()
	lod2Pack(t, data, "he", e0, n0, 2000, 600)
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	m, err := Build(context.Background(), Options{DataDir: data, BL: "he", MaxPerTile: 100, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ti := m.Tileset
	if ti.BuildingCount != 600 || ti.TileCount < 6 || !ti.GeneratedAt.Equal(now) || len(ti.BoundingVolume) != 4 || ti.TotalBytes <= 0 {
		t.Fatalf("tileset record %+v", ti)
	}
	dir := filepath.Join(data, "buildings", "he", "2026-07-20")
	raw, err := os.ReadFile(filepath.Join(dir, TilesetFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	leaves := checkTileset(t, doc)
	if leaves != int(ti.TileCount) {
		t.Errorf("%d content tiles, manifest says %d", leaves, ti.TileCount)
	}
	// A second build of the same snapshot gets a new id.
	m2, err := Build(context.Background(), Options{DataDir: data, BL: "he", MaxPerTile: 100})
	if err != nil {
		t.Fatal(err)
	}
	if m2.Tileset.TilesetID == ti.TilesetID {
		t.Error("rebuild kept the tileset id")
	}
}

// checkTileset checks the 3D Tiles 1.1 schema rules the viewers rely on and
// returns the number of tiles with content.
func checkTileset(t *testing.T, doc map[string]any) int {
	t.Helper()
	if v := doc["asset"].(map[string]any)["version"]; v != "1.1" {
		t.Errorf("asset.version %v", v)
	}
	root, ok := doc["root"].(map[string]any)
	if !ok {
		t.Fatal("no root")
	}
	if tr, _ := root["transform"].([]any); len(tr) != 16 {
		t.Errorf("root transform %v", root["transform"])
	}
	if ge, _ := doc["geometricError"].(float64); ge <= 0 || ge < root["geometricError"].(float64) {
		t.Errorf("tileset geometricError %v vs root %v", doc["geometricError"], root["geometricError"])
	}
	var walk func(tile map[string]any, parentGE float64) int
	walk = func(tile map[string]any, parentGE float64) int {
		ge, ok := tile["geometricError"].(float64)
		if !ok || ge < 0 || ge > parentGE {
			t.Errorf("geometricError %v under parent %v", tile["geometricError"], parentGE)
		}
		reg, _ := tile["boundingVolume"].(map[string]any)["region"].([]any)
		if len(reg) != 6 || reg[0].(float64) >= reg[2].(float64) || reg[1].(float64) >= reg[3].(float64) || reg[4].(float64) > reg[5].(float64) {
			t.Errorf("region %v", reg)
		}
		n := 0
		if c, ok := tile["content"].(map[string]any); ok {
			if c["uri"] == "" {
				t.Error("content without uri")
			}
			n++
		}
		kids, _ := tile["children"].([]any)
		if n == 0 && len(kids) == 0 {
			t.Error("tile without content or children")
		}
		for _, k := range kids {
			n += walk(k.(map[string]any), ge)
		}
		return n
	}
	return walk(root, doc["geometricError"].(float64))
}

// TestPlacement decodes the leaf holding building 0 and checks that its
// corner lands at the ECEF position of its UTM coordinates, through the
// root and leaf transforms and the glTF Y-up convention.
func TestPlacement(t *testing.T) {
	data := t.TempDir()
	lod2Pack(t, data, "he", e0, n0, 3000, 300)
	if _, err := Build(context.Background(), Options{DataDir: data, BL: "he", MaxPerTile: 50}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "buildings", "he", "2026-07-20")
	raw, _ := os.ReadFile(filepath.Join(dir, TilesetFile))
	var doc struct{ Root tileJSON }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	lon, lat := geo.FromUTM(geo.Zone32, e0, n0)
	n, _ := geoid.Default().Undulation(lon, lat)
	want := ecef(lon, lat, 100+n) // the south-west ground corner of building 0, ellipsoidal
	best := math.Inf(1)
	var visit func(tl *tileJSON, parent [16]float64)
	visit = func(tl *tileJSON, parent [16]float64) {
		m := parent
		if len(tl.Transform) == 16 {
			m = mat4Mul(parent, [16]float64(tl.Transform))
		}
		if tl.Content != nil {
			for _, p := range glbPositions(t, filepath.Join(dir, tl.Content.URI)) {
				// glTF Y-up to 3D Tiles Z-up: (x, y, z) -> (x, -z, y).
				q := [3]float64{float64(p[0]), -float64(p[2]), float64(p[1])}
				e := [3]float64{m[0]*q[0] + m[4]*q[1] + m[8]*q[2] + m[12], m[1]*q[0] + m[5]*q[1] + m[9]*q[2] + m[13], m[2]*q[0] + m[6]*q[1] + m[10]*q[2] + m[14]}
				best = math.Min(best, math.Hypot(math.Hypot(e[0]-want[0], e[1]-want[1]), e[2]-want[2]))
			}
		}
		for _, c := range tl.Children {
			visit(c, m)
		}
	}
	visit(&doc.Root, [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	// A tile is an affine frame tangent at its centre: at 500 m from it the
	// Earth's curvature alone is 2 cm (d²/2R).
	if best > 0.03 {
		t.Errorf("nearest vertex %.3f m from the expected ECEF corner", best)
	}
}

func mat4Mul(a, b [16]float64) [16]float64 {
	var c [16]float64
	for col := range 4 {
		for row := range 4 {
			for k := range 4 {
				c[4*col+row] += a[4*k+row] * b[4*col+k]
			}
		}
	}
	return c
}

func glbPositions(t *testing.T, path string) [][3]float32 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d gltf.Document
	if err := gltf.NewDecoder(bytes.NewReader(raw)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Extensions["EXT_structural_metadata"]; !ok {
		t.Error("no EXT_structural_metadata")
	}
	var out [][3]float32
	for _, m := range d.Meshes {
		for _, p := range m.Primitives {
			if _, ok := p.Attributes["_FEATURE_ID_0"]; !ok {
				t.Error("primitive without _FEATURE_ID_0")
			}
			pos, err := modeler.ReadPosition(&d, d.Accessors[p.Attributes[gltf.POSITION]], nil)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pos...)
		}
	}
	return out
}

func TestBuildErrors(t *testing.T) {
	_, err := Build(context.Background(), Options{DataDir: t.TempDir(), BL: "he"})
	if !errors.Is(err, ErrNoSource) {
		t.Errorf("empty data dir: %v, want ErrNoSource", err)
	}
}

// BenchmarkBuild measures buildings per second of the whole build.
func BenchmarkBuild(b *testing.B) {
	data := b.TempDir()
	lod2Pack(b, data, "he", e0, n0, 3000, 5000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(context.Background(), Options{DataDir: data, BL: "he"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*5000)/b.Elapsed().Seconds(), "buildings/s")
}
