package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	synth "github.com/svc-geodata/svc/internal/fixture"

	"github.com/qmuntal/gltf"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/tiles3d"
)

// glbTown is a LoD2 pack of 400 box buildings (10 x 8 m, 100 m ground,
// 10 m high) over 600 x 600 m in EPSG:25832, with its 3D Tiles tileset.
const glbE0, glbN0 = 477000.0, 5553000.0

func glbFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	data := t.TempDir()
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(ctx, filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range 400 {
		x, y := glbE0+rng.Float64()*600, glbN0+rng.Float64()*600
		if err := lw.Add(ctx, lod2store.BuildingInput{GMLID: fmt.Sprintf("DEHE%08d", i), Valid: true, Surfaces: synth.Box(x, y, 10, 8, 100, 10)}); err != nil {
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
	if _, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: data, BL: "he", MaxPerTile: 100}); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	t.Cleanup(cat.Close)
	if _, err := cat.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: "s3cret"}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{data: data, cat: cat, ts: httptest.NewServer(srv)}
	t.Cleanup(f.ts.Close)
	return f
}

// townBBox is a WGS84 bbox of about 0.3 km2 inside the town.
func townBBox() string {
	lon0, lat0 := geo.FromUTM(geo.Zone32, glbE0+100, glbN0+100)
	lon1, lat1 := geo.FromUTM(geo.Zone32, glbE0+600, glbN0+600)
	return fmt.Sprintf("%.6f,%.6f,%.6f,%.6f", lon0, lat0, lon1, lat1)
}

func TestGLB(t *testing.T) {
	f := glbFixture(t)
	bb := townBBox()
	resp, body := f.do(t, "GET", "/v1/buildings/3d.glb?bbox="+bb, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "model/gltf-binary" {
		t.Fatalf("status %d, type %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var d gltf.Document
	if err := gltf.NewDecoder(bytes.NewReader(body)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{"Cache-Control": "public, max-age=300", "X-Svc-Anchor-Srid": "25832", "X-Svc-Target-Frame": "utm",
		"X-Svc-Z-Base": "per_building", "X-Svc-Compression": "none", "X-Svc-Compression-Requested": "none",
		"X-Svc-Max-Buildings": "20000", "X-Svc-Admin-Limits": "0", "X-Svc-Raw-Size": fmt.Sprint(len(body))} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if n := resp.Header.Get("X-Svc-Buildings"); n == "" || n == "0" {
		t.Errorf("X-Svc-Buildings %q", n)
	}
	if e := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(e, "X-Svc-Anchor-LonLat") || !strings.Contains(e, "X-Request-Id") {
		t.Errorf("GLB exposes %q", e)
	}
	if acc := d.Accessors[d.Meshes[0].Primitives[0].Attributes[gltf.POSITION]]; acc.Min[2] != 0 || acc.Max[2] != 10 {
		t.Errorf("per_building z range %v..%v, want 0..10", acc.Min[2], acc.Max[2])
	}
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) {
		t.Fatalf("ETag %q is not strong", etag)
	}
	resp, body = f.do(t, "GET", "/v1/buildings/3d.glb?bbox="+bb, map[string]string{"If-None-Match": etag})
	if resp.StatusCode != 304 || len(body) != 0 {
		t.Errorf("If-None-Match: status %d with %d bytes", resp.StatusCode, len(body))
	}
	resp, _ = f.do(t, "GET", "/v1/buildings/3d.glb?bbox="+bb+"&z_base=absolute", map[string]string{"If-None-Match": etag})
	if resp.StatusCode != 200 || resp.Header.Get("ETag") == etag {
		t.Errorf("other parameters: status %d, same ETag %v", resp.StatusCode, resp.Header.Get("ETag") == etag)
	}
	resp, body = f.do(t, "GET", "/v1/buildings/3d.glb?bbox="+bb+"&merge_buildings=false&colorize_roofs=true&compression=draco", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if c := resp.Header.Get("X-Svc-Compression"); c == "none" && resp.Header.Get("X-Svc-Compression-Error") == "" {
		t.Error("draco fell back without X-Svc-Compression-Error")
	}
	d = gltf.Document{}
	if err := gltf.NewDecoder(bytes.NewReader(body)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	if len(d.Materials) != 3 || fmt.Sprint(len(d.Meshes)) != resp.Header.Get("X-Svc-Buildings") {
		t.Errorf("%d materials, %d meshes for %s buildings", len(d.Materials), len(d.Meshes), resp.Header.Get("X-Svc-Buildings"))
	}
}

func TestGLBErrors(t *testing.T) {
	f := glbFixture(t)
	bb := townBBox()
	big := "8.6,50.05,8.75,50.2" // about 180 km2, holding the whole town
	tests := []struct {
		name   string
		query  string
		hdr    map[string]string
		status int
		slug   string
		detail string
	}{
		{"no bbox", "", nil, 400, "bad-request", "minLon,minLat,maxLon,maxLat"},
		{"bbox of 3 values", "bbox=8,50,9", nil, 400, "bad-request", "minLon,minLat,maxLon,maxLat"},
		{"bad enum", "bbox=" + bb + "&z_base=ground", nil, 422, "validation-error", "z_base"},
		{"bad frame", "bbox=" + bb + "&target_frame=ecef", nil, 422, "validation-error", "target_frame"},
		{"bad bool", "bbox=" + bb + "&merge_buildings=yes", nil, 422, "validation-error", "merge_buildings"},
		{"NaN rotation", "bbox=" + bb + "&rotate_x=NaN", nil, 422, "validation-error", "rotate_x"},
		{"Inf weld", "bbox=" + bb + "&weld_tolerance_m=Inf", nil, 422, "validation-error", "weld_tolerance_m"},
		{"area over public limit", "bbox=" + big, nil, 413, "payload-too-large", "X-Svc-Admin-Token"},
		{"wrong token keeps public limit", "bbox=" + big, map[string]string{"X-Svc-Admin-Token": "guess"}, 413, "payload-too-large", "X-Svc-Admin-Token"},
		{"area over admin limit", "bbox=6,48,9,51", map[string]string{"X-Svc-Admin-Token": "s3cret"}, 413, "payload-too-large", "250 km2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.do(t, "GET", "/v1/buildings/3d.glb?"+tc.query, tc.hdr)
			p := checkProblem(t, resp, body, tc.status, tc.slug)
			if d, _ := p["detail"].(string); !strings.Contains(d, tc.detail) {
				t.Errorf("detail %q does not mention %q", d, tc.detail)
			}
		})
	}
	t.Run("admin token lifts the area limit", func(t *testing.T) {
		resp, body := f.do(t, "GET", "/v1/buildings/3d.glb?bbox="+big, map[string]string{"X-Svc-Admin-Token": "s3cret"})
		if resp.StatusCode != 200 || resp.Header.Get("X-Svc-Admin-Limits") != "1" || resp.Header.Get("X-Svc-Max-Buildings") != "1000000" {
			t.Errorf("status %d, admin %q, max %q: %s", resp.StatusCode, resp.Header.Get("X-Svc-Admin-Limits"), resp.Header.Get("X-Svc-Max-Buildings"), httpapi.Clip(string(body)))
		}
		if resp.Header.Get("X-Svc-Buildings") != "400" {
			t.Errorf("X-Svc-Buildings %q, want 400", resp.Header.Get("X-Svc-Buildings"))
		}
	})
}

func TestTilesetEndpoints(t *testing.T) {
	f := glbFixture(t)
	resp, body := f.do(t, "GET", "/v1/tilesets?bbox="+townBBox(), nil)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("status %d, cache %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	var list struct {
		Tilesets []map[string]any
		Count    int
		BBox     []float64
		Svc      struct{ Attribution []map[string]any }
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	if list.Count != 1 || len(list.Tilesets) != 1 || len(list.BBox) != 4 || len(list.Svc.Attribution) != 1 {
		t.Fatalf("list %s", body)
	}
	ts := list.Tilesets[0]
	id := ts["tileset_id"].(string)
	if ts["bundesland_code"] != "he" || ts["building_count"] != 400.0 || ts["bounding_volume"].(map[string]any)["type"] != "Polygon" ||
		ts["tileset_url"] != "http://api.test/tiles/buildings/he/2026-07-20/tileset.json" {
		t.Errorf("record %v", ts)
	}
	resp, body = f.do(t, "GET", "/v1/tilesets?bbox=13,52,13.1,52.1", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"count":0`) {
		t.Errorf("elsewhere: %d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, "GET", "/v1/tilesets/"+id, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), id) || strings.Contains(string(body), "attribution") {
		t.Errorf("detail: %d %s", resp.StatusCode, body)
	}
	resp, _ = f.do(t, "GET", "/v1/tilesets/"+id+"/tileset.json", nil)
	if resp.StatusCode != 302 || resp.Header.Get("Location") != ts["tileset_url"] {
		t.Errorf("redirect: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A file's path arrives decoded; its Location is escaped again, so '?',
	// '#', spaces and quotes stay in the path (issue 13 part 2).
	for raw, want := range map[string]string{
		"tiles/0_0_0.glb":          "tiles/0_0_0.glb",
		"tiles/a%3Fb.glb":          "tiles/a%3Fb.glb",
		"tiles/a%23b.glb":          "tiles/a%23b.glb",
		"tiles/a%20b%22%3C%3E.glb": "tiles/a%20b%22%3C%3E.glb",
		"tiles/%C3%A4.glb":         "tiles/%C3%A4.glb",
	} {
		resp, _ = f.do(t, "GET", "/v1/tilesets/"+id+"/"+raw, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != 302 || loc != "http://api.test/tiles/buildings/he/2026-07-20/"+want {
			t.Errorf("%s: %d to %q", raw, resp.StatusCode, loc)
		}
	}
	resp, body = f.do(t, "GET", "/tiles/buildings/he/2026-07-20/tileset.json", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"version":"1.1"`) {
		t.Errorf("tile host: %d", resp.StatusCode)
	}
	for _, bad := range []string{"00000000-0000-4000-8000-000000000000", "not-a-uuid", strings.Repeat("a", 300)} {
		for _, suffix := range []string{"", "/tileset.json"} {
			resp, body := f.do(t, "GET", "/v1/tilesets/"+bad+suffix, nil)
			checkProblem(t, resp, body, 404, "not-found")
		}
	}
	resp, body = f.do(t, "GET", "/v1/tilesets?bbox=1,2", nil)
	checkProblem(t, resp, body, 400, "bad-request")
}
