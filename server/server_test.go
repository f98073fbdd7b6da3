package server

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/apidoc"
)

const testToken = "admin-secret-token"

// fixture is a server over a data directory with one pack of each product.
type fixture struct {
	data string
	cat  *catalog.Catalog
	ts   *httptest.Server
}

func commitPack(t *testing.T, data string, key pack.Key, m pack.Manifest, files map[string]string) {
	t.Helper()
	w, err := pack.Create(data, key)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for name, body := range files {
		p := filepath.Join(w.Dir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

var bigJSON = `{"asset":{"version":"1.1"},"pad":"` + strings.Repeat("tile ", 400) + `"}`

func newFixture(t *testing.T) *fixture {
	t.Helper()
	data := t.TempDir()
	pct := 97.5
	commitPack(t, data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-07-20"},
		pack.Manifest{LicenseID: "dl-de-by-2.0", SourceURL: "https://example.org/he", CRS: "EPSG:25832",
			LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: 12, SurfaceCount: 80, ValidationPassPct: &pct}},
		map[string]string{"lod2.sqlite": "db"})
	commitPack(t, data, pack.Key{Product: pack.Terrain, BL: "be", Snapshot: "2026-07-16"},
		pack.Manifest{LicenseID: "dl-de-zero-2.0", CRS: "EPSG:25833",
			Terrain: &pack.TerrainInfo{Source: "convert+storage-box", TileCount: 1, Index: "index.json"}},
		map[string]string{"index.json": "[]", "tiles/392_5820.tif": strings.Repeat("T", 1000)})
	commitPack(t, data, pack.Key{Product: pack.TerrainMesh, BL: "he", Snapshot: "2026-07-20"},
		pack.Manifest{LicenseID: "dl-de-by-2.0", TerrainMesh: &pack.TerrainMeshInfo{TilesetPath: "tileset.json",
			TileCount: 1, RTINToleranceM: 0.5, TilingScheme: "single-level-quadtree"}},
		map[string]string{"tileset.json": bigJSON, "tiles/0.b3dm": "b3dm-bytes", "tiles/0.glb": "glTF"})
	commitPack(t, data, pack.Key{Product: pack.OSMCover, BL: "sh", Snapshot: "2026-07-20"},
		pack.Manifest{LicenseID: "odbl-1.0", BBoxWGS84: []float64{8, 53, 11, 55}, OSMCover: &pack.OSMCoverInfo{Themes: []pack.Theme{
			{Name: "surface", Path: "surface/tileset.json", TileCount: 2}, {Name: "sea", Path: "sea/tileset.json", TileCount: 1}}}},
		map[string]string{"surface/tileset.json": "{}", "sea/tileset.json": "{}"})
	commitPack(t, data, pack.Key{Product: pack.Vegetation, BL: "be", Snapshot: "2026-07-20"},
		pack.Manifest{LicenseID: "dl-de-zero-2.0", CRS: "EPSG:25833", Vegetation: &pack.VegetationInfo{TileSizeM: 1000,
			Themes: []pack.Theme{{Name: "cdsm", Kind: "raster_cog", Path: "cdsm/"}, {Name: "tdsm", Kind: "raster_cog", Path: "tdsm/"},
				{Name: "trees", Kind: "3dtiles", Path: "trees/tileset.json"}, {Name: "plantcover", Kind: "3dtiles", Path: "plantcover/tileset.json"}}}},
		map[string]string{"cdsm/a.tif": "x", "tdsm/a.tif": "x", "trees/tileset.json": "{}", "plantcover/tileset.json": "{}"})
	// A half-written copy of a newer terrain snapshot: never published.
	half := filepath.Join(data, "terrain", "be", "2026-08-01")
	os.MkdirAll(half, 0o755)
	os.WriteFile(filepath.Join(half, "secret.tif"), []byte("partial"), 0o644)
	// Files outside any pack that the tile host must never reveal.
	os.WriteFile(filepath.Join(data, "svc.db"), []byte("keys"), 0o600)
	os.Symlink(filepath.Join(data, "svc.db"), filepath.Join(data, "terrain", "be", "2026-07-16", "tiles", "escape.tif"))

	cat := catalog.New(catalog.Options{Dir: data})
	if _, err := cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := &fixture{data: data, cat: cat}
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: testToken},
		Deps{Catalog: cat, Reload: func() (*catalog.View, error) { return cat.Reload(context.Background()) }})
	if err != nil {
		t.Fatal(err)
	}
	f.ts = httptest.NewServer(srv)
	t.Cleanup(f.ts.Close)
	return f
}

func (f *fixture) do(t *testing.T, method, path string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	resp, err := (&http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// checkProblem asserts an RFC 7807 body with the given status and type name.
func checkProblem(t *testing.T, resp *http.Response, body []byte, status int, slug string) map[string]any {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("content type = %q", ct)
	}
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body: %v: %s", err, body)
	}
	for _, k := range []string{"type", "title", "status", "detail", "instance"} {
		if _, ok := p[k]; !ok {
			t.Errorf("problem lacks %q: %s", k, body)
		}
	}
	if p["type"] != "http://api.test/problems/"+slug || p["status"] != float64(status) {
		t.Errorf("problem type/status = %v/%v, want %s/%d", p["type"], p["status"], slug, status)
	}
	if p["instance"] != resp.Request.URL.Path {
		t.Errorf("instance = %v, want %s", p["instance"], resp.Request.URL.Path)
	}
	return p
}

func TestDiscovery(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		path  string
		count int
		check func(t *testing.T, ds []map[string]any)
	}{
		{"/v1/datasets", 1, func(t *testing.T, ds []map[string]any) {
			d := ds[0]
			if d["id"] != "he" || d["bundesland_code"] != "he" || d["license_id"] != "dl-de-by-2.0" ||
				d["building_count"] != float64(12) || d["validation_pass_pct"] != 97.5 || d["snapshot_date"] != "2026-07-20" {
				t.Errorf("lod2 dataset = %v", d)
			}
			if !strings.Contains(d["name"].(string), "DL-DE BY 2.0") {
				t.Errorf("name lacks attribution: %v", d["name"])
			}
		}},
		{"/v1/terrain/datasets", 1, func(t *testing.T, ds []map[string]any) {
			d := ds[0]
			if d["bl"] != "be" || d["snapshot"] != "2026-07-16" || d["crs"] != "EPSG:25833" || d["vertical_datum"] != "DHHN2016" ||
				d["format"] != "GeoTIFF (COG)" || d["coverage_pct"] != nil || d["source"] != "convert+storage-box" {
				t.Errorf("terrain dataset = %v", d)
			}
		}},
		{"/v1/terrain-mesh/datasets", 1, func(t *testing.T, ds []map[string]any) {
			if ds[0]["tileset_url"] != "http://api.test/tiles/terrain-mesh/he/2026-07-20/tileset.json" {
				t.Errorf("tileset_url = %v", ds[0]["tileset_url"])
			}
		}},
		{"/v1/osm-cover/datasets", 1, func(t *testing.T, ds []map[string]any) {
			themes := ds[0]["themes"].([]any)
			if len(themes) != 2 || themes[1].(map[string]any)["tileset_url"] != "http://api.test/tiles/osm-cover/sh/2026-07-20/sea/tileset.json" {
				t.Errorf("themes = %v", themes)
			}
		}},
		{"/v1/vegetation/datasets", 1, func(t *testing.T, ds []map[string]any) {
			if ds[0]["attribution"] != "© Geoportal Berlin (DL-DE/Zero 2.0)" || ds[0]["tile_size_m"] != float64(1000) {
				t.Errorf("vegetation = %v", ds[0])
			}
			// SPEC 2.10: four themes {name, kind, url}; COG themes point to
			// the directory base, 3D Tiles themes to tileset.json.
			want := []map[string]any{
				{"name": "cdsm", "kind": "raster_cog", "url": "http://api.test/tiles/veg/be/2026-07-20/cdsm/"},
				{"name": "tdsm", "kind": "raster_cog", "url": "http://api.test/tiles/veg/be/2026-07-20/tdsm/"},
				{"name": "trees", "kind": "3dtiles", "url": "http://api.test/tiles/veg/be/2026-07-20/trees/tileset.json"},
				{"name": "plantcover", "kind": "3dtiles", "url": "http://api.test/tiles/veg/be/2026-07-20/plantcover/tileset.json"},
			}
			themes, _ := ds[0]["themes"].([]any)
			if len(themes) != len(want) {
				t.Fatalf("themes = %v", themes)
			}
			for i, th := range themes {
				if fmt.Sprint(th) != fmt.Sprint(want[i]) {
					t.Errorf("theme %d = %v, want %v", i, th, want[i])
				}
			}
		}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := f.do(t, "GET", tc.path, nil)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=300" {
				t.Errorf("Cache-Control = %q", cc)
			}
			if tc.path == "/v1/datasets" && resp.Header.Get("ETag") != "" {
				t.Errorf("/v1/datasets must not send an ETag")
			}
			var out struct {
				Datasets []map[string]any `json:"datasets"`
				Count    *int             `json:"count"`
			}
			if err := json.Unmarshal(body, &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Datasets) != tc.count {
				t.Fatalf("%d datasets, want %d: %s", len(out.Datasets), tc.count, body)
			}
			if (out.Count != nil) != (tc.path == "/v1/datasets" || tc.path == "/v1/terrain/datasets") {
				t.Errorf("count member presence wrong: %s", body)
			}
			tc.check(t, out.Datasets)
		})
	}
}

func TestAttribution(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, body := f.do(t, "GET", "/v1/attribution", nil)
	if resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	var out struct {
		Attribution []map[string]any `json:"attribution"`
		Count       int              `json:"count"`
	}
	json.Unmarshal(body, &out)
	// The five packs, then BKG's credit for GCG2016: the 3D content and the
	// quantized-mesh terrain carry its undulation (CC BY 4.0).
	if out.Count != 6 || len(out.Attribution) != 6 {
		t.Fatalf("count = %d: %s", out.Count, body)
	}
	first := out.Attribution[0]
	if first["product"] != "lod2" || first["license"] != "DL-DE BY 2.0" || first["must_display"] != true ||
		first["url"] != "https://www.govdata.de/dl-de/by-2-0" {
		t.Errorf("first entry = %v", first)
	}
	last := out.Attribution[5]
	if last["product"] != "height-model" || last["attribution"] != "© BKG (GCG2016), CC BY 4.0" || last["license_id"] != "cc-by-4.0" ||
		last["must_display"] != true || last["bundesland_code"] != "" {
		t.Errorf("height model entry = %v", last)
	}
}

func TestErrorsAreProblems(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		method, path string
		status       int
		slug         string
	}{
		{"GET", "/v1/unknown", 404, "not-found"},
		{"GET", "/nothing-here", 404, "not-found"},
		{"GET", "/viewer/no-such-file.js", 404, "not-found"},
		{"GET", "/viewer/.secret", 404, "not-found"},
		{"POST", "/v1/datasets", 405, "method-not-allowed"},
		{"DELETE", "/healthz", 405, "method-not-allowed"},
		{"GET", "/problems/no-such-type", 404, "not-found"},
		{"POST", "/v1/admin/datasets", 401, "unauthorized"},
	} {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			resp, body := f.do(t, tc.method, tc.path, nil)
			checkProblem(t, resp, body, tc.status, tc.slug)
			if tc.status == 405 && !strings.Contains(resp.Header.Get("Allow"), "GET") {
				t.Errorf("Allow = %q", resp.Header.Get("Allow"))
			}
		})
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, _ := f.do(t, "OPTIONS", "/v1/keys/trial", map[string]string{"Origin": "https://app.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
	if resp.StatusCode != 204 {
		t.Fatalf("preflight status %d", resp.StatusCode)
	}
	h := resp.Header
	if h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Errorf("preflight headers = %v", h)
	}
	resp, _ = f.do(t, "GET", "/v1/datasets", map[string]string{"Origin": "https://app.example"})
	expose := resp.Header.Get("Access-Control-Expose-Headers")
	for _, want := range []string{"X-Keyless-Remaining", "Retry-After", "X-Svc-Quota-Used"} {
		if !strings.Contains(expose, want) {
			t.Errorf("expose lacks %s", want)
		}
	}
	// The GLB export's own headers travel only with GLB answers.
	if strings.Contains(expose, "X-Svc-Buildings") || len(expose) > 150 {
		t.Errorf("a listing exposes %d bytes of headers: %s", len(expose), expose)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("no CORS on GET")
	}
}

func TestTiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const tif = "/tiles/terrain/be/2026-07-16/tiles/392_5820.tif"
	t.Run("content types", func(t *testing.T) {
		for path, want := range map[string]string{
			tif: "image/tiff",
			"/tiles/terrain-mesh/he/2026-07-20/tiles/0.b3dm":  "application/octet-stream",
			"/tiles/terrain-mesh/he/2026-07-20/tiles/0.glb":   "model/gltf-binary",
			"/tiles/terrain-mesh/he/2026-07-20/tileset.json":  "application/json",
			"/tiles/osm-cover/sh/2026-07-20/sea/tileset.json": "application/json",
		} {
			resp, _ := f.do(t, "GET", path, nil)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want {
				t.Errorf("%s: %d %q, want %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), want)
			}
		}
	})
	t.Run("manifest without source_url", func(t *testing.T) {
		commitPack(t, f.data, pack.Key{Product: pack.TerrainMesh, BL: "nrw", Snapshot: "2026-07-16"},
			pack.Manifest{LicenseID: "dl-de-zero-2.0", SourceURL: "file:///home/operator/secret-mirror",
				TerrainMesh: &pack.TerrainMeshInfo{TilesetPath: "tileset.json", TileCount: 1}},
			map[string]string{"tileset.json": "{}"})
		if _, err := f.cat.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		resp, body := f.do(t, "GET", "/tiles/terrain-mesh/nrw/2026-07-16/manifest.json", nil)
		if resp.StatusCode != 200 || strings.Contains(string(body), "secret-mirror") || !strings.Contains(string(body), `"license_id"`) {
			t.Errorf("manifest: %d %s", resp.StatusCode, body)
		}
	})
	t.Run("range", func(t *testing.T) {
		resp, body := f.do(t, "GET", tif, map[string]string{"Range": "bytes=10-19"})
		if resp.StatusCode != 206 || len(body) != 10 || resp.Header.Get("Content-Range") != "bytes 10-19/1000" {
			t.Errorf("range: %d %q %d bytes", resp.StatusCode, resp.Header.Get("Content-Range"), len(body))
		}
	})
	t.Run("conditional", func(t *testing.T) {
		resp, _ := f.do(t, "GET", tif, nil)
		etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		if etag == "" || lm == "" {
			t.Fatalf("ETag %q Last-Modified %q", etag, lm)
		}
		if resp, _ := f.do(t, "GET", tif, map[string]string{"If-None-Match": etag}); resp.StatusCode != 304 {
			t.Errorf("If-None-Match: %d", resp.StatusCode)
		}
		if resp, _ := f.do(t, "GET", tif, map[string]string{"If-Modified-Since": lm}); resp.StatusCode != 304 {
			t.Errorf("If-Modified-Since: %d", resp.StatusCode)
		}
	})
	t.Run("gzip json", func(t *testing.T) {
		path := "/tiles/terrain-mesh/he/2026-07-20/tileset.json"
		resp, body := f.do(t, "GET", path, map[string]string{"Accept-Encoding": "gzip"})
		if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("not gzipped: %v", resp.Header)
		}
		zr, err := gzip.NewReader(strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		if string(plain) != bigJSON || len(body) >= len(bigJSON) {
			t.Errorf("gzip body %d bytes, plain %d", len(body), len(plain))
		}
		if resp, _ := f.do(t, "GET", path, map[string]string{"Accept-Encoding": "gzip", "If-None-Match": resp.Header.Get("ETag")}); resp.StatusCode != 304 {
			t.Errorf("gzip If-None-Match: %d", resp.StatusCode)
		}
		if resp, _ := f.do(t, "GET", tif, map[string]string{"Accept-Encoding": "gzip"}); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("TIFF was gzipped")
		}
	})
	t.Run("refused", func(t *testing.T) {
		for _, path := range []string{
			"/tiles/terrain/be/2026-07-16/tiles/escape.tif",      // symlink out of the pack
			"/tiles/terrain/be/2026-07-16/tiles%2F392_5820.tif",  // encoded slash
			"/tiles/terrain/be/2026-07-16/..%2F..%2F..%2Fsvc.db", // encoded traversal
			"/tiles/terrain/be/2026-08-01/secret.tif",            // half-written snapshot
			"/tiles/terrain/be/2026-07-16/tiles",                 // directory listing
			"/tiles/terrain/be/2026-07-16/tiles/",                // directory listing
			"/tiles/terrain/be/2026-07-16/.hidden",               // dot-file
			"/tiles/lod2/he/2026-07-20/lod2.sqlite",              // API-only product
			"/tiles/svc.db",                                      // outside packs
			"/tiles/terrain/be",                                  // too short
			"/tiles/terrain/xx/2026-07-16/a.tif",                 // unknown BL
		} {
			resp, body := f.do(t, "GET", path, nil)
			if resp.StatusCode == 200 || strings.Contains(string(body), "keys") || strings.Contains(string(body), "partial") {
				t.Errorf("%s: %d %q", path, resp.StatusCode, body)
			}
			if resp.StatusCode != 404 && resp.StatusCode/100 != 3 {
				t.Errorf("%s: status %d", path, resp.StatusCode)
			}
		}
	})
}

func TestAdmin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, body := f.do(t, "GET", "/v1/admin/health", map[string]string{"X-Svc-Admin-Token": "wrong"})
	checkProblem(t, resp, body, 401, "unauthorized")

	resp, body = f.do(t, "GET", "/v1/admin/health", map[string]string{"Authorization": "Bearer " + testToken})
	if resp.StatusCode != 200 {
		t.Fatalf("health: %d %s", resp.StatusCode, body)
	}
	var h map[string]any
	json.Unmarshal(body, &h)
	if h["status"] != "degraded" || h["lod2_db_bl"] != float64(1) || h["terrain_tiff_bl"] != float64(1) || h["terrain_mesh_bl"] != float64(1) {
		t.Errorf("health = %s", body)
	}
	if !strings.Contains(string(body), "terrain/be/2026-08-01") {
		t.Errorf("half-written pack not reported: %s", body)
	}

	commitPack(t, f.data, pack.Key{Product: pack.LoD2, BL: "nrw", Snapshot: "2026-07-01"},
		pack.Manifest{LicenseID: "dl-de-zero-2.0", LoD2: &pack.LoD2Info{File: "x"}}, map[string]string{"x": "1"})
	resp, body = f.do(t, "POST", "/v1/admin/datasets", map[string]string{"X-Svc-Admin-Token": testToken})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"bundesland_code":"nrw"`) {
		t.Fatalf("reload: %d %s", resp.StatusCode, body)
	}
	_, body = f.do(t, "GET", "/v1/datasets", nil)
	if !strings.Contains(string(body), `"count":2`) {
		t.Errorf("after reload: %s", body)
	}
}

func TestAdminDisabledWithoutToken(t *testing.T) {
	t.Parallel()
	cat := catalog.New(catalog.Options{Dir: t.TempDir()})
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/admin/health", nil))
	if rec.Code != 403 || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("got %d %s", rec.Code, rec.Body)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.do(t, "GET", "/v1/datasets", nil)
	f.do(t, "GET", "/v1/nothing", nil)
	resp, body := f.do(t, "GET", "/metrics", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatal(resp.StatusCode)
	}
	for _, want := range []string{
		`svc_http_requests_total{route="GET /v1/datasets",status="200"} 1`,
		`svc_http_requests_total{route="unmatched",status="404"} 1`,
		`svc_http_request_duration_seconds_count{route="GET /v1/datasets"} 1`,
		`svc_published_bl{product="all"} 3`,
		`svc_published_bl{product="lod2"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, body := f.do(t, "GET", "/openapi.json", nil)
	if resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	var doc struct {
		Info  struct{ Version string }
		Paths map[string]map[string]map[string]any
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.Version != APIVersion {
		t.Errorf("info.version = %q", doc.Info.Version)
	}
	srv, _ := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: f.cat})
	ids := map[string]bool{}
	listed := 0
	for _, rt := range srv.routes {
		if rt.Hidden { // the viewer's files and the redirect at /
			if doc.Paths[apidoc.PathTemplate(rt.Path)] != nil {
				t.Errorf("hidden route %s %s is in the document", rt.Method, rt.Path)
			}
			continue
		}
		listed++
		op := doc.Paths[apidoc.PathTemplate(rt.Path)][strings.ToLower(rt.Method)]
		if op == nil {
			t.Errorf("%s %s missing from the document", rt.Method, rt.Path)
			continue
		}
		id, _ := op["operationId"].(string)
		if id == "" || ids[id] {
			t.Errorf("%s %s: operationId %q missing or duplicate", rt.Method, rt.Path, id)
		}
		ids[id] = true
		if strings.HasPrefix(rt.Path, "/v1/") && (op["x-stability"] == nil || op["x-since"] == nil) {
			t.Errorf("%s %s lacks x-stability/x-since", rt.Method, rt.Path)
		}
	}
	n := 0
	for _, item := range doc.Paths {
		n += len(item)
	}
	if n != listed {
		t.Errorf("document has %d operations, server %d listed routes", n, listed)
	}

	node := testtool.Node(t, "@apidevtools/swagger-parser")
	file := filepath.Join(t.TempDir(), "openapi.json")
	os.WriteFile(file, body, 0o644)
	out, err := exec.Command(node, "testdata/validate_openapi.cjs", file).CombinedOutput()
	if err != nil {
		t.Fatalf("OpenAPI validation failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestDocsPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, body := f.do(t, "GET", "/docs", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatal(resp.StatusCode)
	}
	page := string(body)
	for _, want := range []string{"listDatasets", "getAttribution", "reloadDatasets", "keyless-daily-limit", "/v1/terrain/datasets"} {
		if !strings.Contains(page, want) {
			t.Errorf("docs lack %q", want)
		}
	}
	for _, bad := range []string{"<script", "<link", "https://cdn", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("docs page loads external resources: %q", bad)
		}
	}
}

// TestDocsVersion: the /docs page and the OpenAPI document state one
// version, Config.Version when set (the page showed APIVersion whatever
// the document said).
func TestDocsVersion(t *testing.T) {
	t.Parallel()
	srv, err := New(Config{BaseURL: "http://api.test", Version: "9.9.9"}, Deps{Catalog: catalog.New(catalog.Options{Dir: t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/docs": "<title>svc API 9.9.9</title>", "/openapi.json": `"version": "9.9.9"`} {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != 200 || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d, lacks %s", path, w.Code, want)
		}
	}
}
