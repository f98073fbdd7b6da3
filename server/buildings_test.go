package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// demoServer serves the demo pack (five BL, imported from generated
// CityGML). It is built once and shared by the read-only tests.
var demoServer = sync.OnceValues(func() (*httptest.Server, error) {
	cat, err := demoCatalog()
	if err != nil {
		return nil, err
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(srv), nil
})

// demoDataDir is the data directory of demoCatalog, once made.
var demoDataDir string

// demoCatalog is the catalog of the demo pack demoServer serves, for
// benchmarks that call a use case without HTTP.
var demoCatalog = sync.OnceValues(func() (*catalog.Catalog, error) {
	data, err := tempDir()
	if err != nil {
		return nil, err
	}
	demoDataDir = data
	if err := demo.Run(context.Background(), demo.Options{DataDir: data, Seed: 1}); err != nil {
		return nil, err
	}
	cache := raster.NewCache(0)
	openRaster := func(ctx context.Context, dir string, m pack.Manifest) (*terrain.Dataset, error) {
		return terrain.OpenPack(ctx, dir, m, terrain.Options{Cache: cache})
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack, Raster: openRaster})
	if _, err := cat.Reload(context.Background()); err != nil {
		return nil, err
	}
	return cat, nil
})

func demoFixture(t *testing.T) *fixture {
	t.Helper()
	ts, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{ts: ts}
}

type searchPage struct {
	Type     string
	BBox     []float64
	Count    int
	Limit    int
	Features []struct {
		Type       string
		ID         string
		Geometry   struct{ Type string }
		Properties map[string]any
	}
	Svc struct {
		Attribution []map[string]any
		Next        string
	}
}

func (f *fixture) search(t *testing.T, query string) searchPage {
	t.Helper()
	resp, body := f.do(t, "GET", "/v1/buildings?"+query, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("search %s: %d %s", query, resp.StatusCode, body)
	}
	var p searchPage
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// germany covers every demo BL, in both UTM zones.
const germany = "5.8,47.2,15.1,55.1"

func TestSearchPagesExhaustivelyAcrossBL(t *testing.T) {
	t.Parallel()
	f := demoFixture(t)
	_, body := f.do(t, "GET", "/v1/datasets", nil)
	var ds struct{ Datasets []struct{ ID string } }
	json.Unmarshal(body, &ds)
	if len(ds.Datasets) != 5 {
		t.Fatalf("demo publishes %d LoD2 datasets", len(ds.Datasets))
	}
	seen := map[string]bool{}
	perBL := map[string]int{}
	cursor, pages := "", 0
	for {
		q := "bbox=" + germany + "&limit=1000"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		p := f.search(t, q)
		pages++
		if p.Type != "FeatureCollection" || p.Limit != 1000 || p.Count != len(p.Features) || len(p.BBox) != 4 {
			t.Fatalf("page header: %+v", p)
		}
		bls := map[string]bool{}
		for _, ft := range p.Features {
			key := ft.Properties["bundesland"].(string) + ":" + jsonNum(ft.Properties["surface_id"])
			if seen[key] {
				t.Fatalf("surface %s on two pages", key)
			}
			seen[key] = true
			perBL[ft.Properties["bundesland"].(string)]++
			bls[ft.Properties["bundesland"].(string)] = true
			if len(ft.Properties) != 6 || ft.ID != ft.Properties["gmlid"] || ft.Properties["lod"] != "LoD2" || ft.Geometry.Type != "MultiPolygon" {
				t.Fatalf("feature: %+v", ft)
			}
		}
		if len(p.Svc.Attribution) != len(bls) {
			t.Errorf("page has %d BL but %d attribution entries", len(bls), len(p.Svc.Attribution))
		}
		if p.Svc.Next == "" {
			break
		}
		cursor = p.Svc.Next
	}
	if len(perBL) != 5 || pages < 12 {
		t.Errorf("pages %d, per BL %v", pages, perBL)
	}
	t.Logf("%d surfaces in %d pages: %v", len(seen), pages, perBL)
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSearchBadRequests(t *testing.T) {
	t.Parallel()
	f := demoFixture(t)
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name, query string
		status      int
		detail      string
	}{
		{"no bbox", "", 400, "minLon,minLat,maxLon,maxLat"},
		{"three values", "bbox=8,50,9", 400, "minLon,minLat,maxLon,maxLat"},
		{"words", "bbox=a,b,c,d", 400, "minLon,minLat,maxLon,maxLat"},
		{"inverted", "bbox=9,50,8,51", 400, "minLon,minLat,maxLon,maxLat"},
		{"out of range", "bbox=8,50,190,51", 400, "minLon,minLat,maxLon,maxLat"},
		{"limit high", "bbox=8,50,9,51&limit=1001", 422, "limit"},
		{"limit zero", "bbox=8,50,9,51&limit=0", 422, "limit"},
		{"limit text", "bbox=8,50,9,51&limit=ten", 422, "limit"},
		{"cursor garbage", "bbox=8,50,9,51&cursor=%25%25%25", 400, "cursor"},
		{"cursor pre-federation", "bbox=8,50,9,51&cursor=" + b64("12345"), 400, "pre-federation"},
		{"cursor base64 garbage says invalid", "bbox=8,50,9,51&cursor=" + b64("hello world"), 400, "cursor is invalid"},
		{"cursor word says invalid", "bbox=8,50,9,51&cursor=garbage", 400, "cursor is invalid"},
		{"cursor unknown BL", "bbox=8,50,9,51&cursor=" + b64("xx:12"), 400, "cursor"},
		{"cursor bad id", "bbox=8,50,9,51&cursor=" + b64("he:-3"), 400, "cursor"},
		{"cursor stale", "bbox=8,50,9,51&cursor=" + b64("he:99999999"), 400, "cursor"},
		{"cursor too long", "bbox=8,50,9,51&cursor=" + strings.Repeat("A", 500), 400, "cursor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := f.do(t, "GET", "/v1/buildings?"+tc.query, nil)
			slug := "bad-request"
			if tc.status == 422 {
				slug = "validation-error"
			}
			p := checkProblem(t, resp, body, tc.status, slug)
			if !strings.Contains(p["detail"].(string), tc.detail) {
				t.Errorf("detail %q lacks %q", p["detail"], tc.detail)
			}
		})
	}
}

func TestBuildingDetailAndRoof(t *testing.T) {
	t.Parallel()
	f := demoFixture(t)
	for _, bbox := range []string{"8.6,50.0,8.8,50.2", "13.3,52.4,13.5,52.6"} { // he (DEHE ids), be (UUIDs)
		p := f.search(t, "bbox="+bbox+"&limit=50")
		if len(p.Features) == 0 {
			t.Fatalf("no features in %s", bbox)
		}
		ft := p.Features[0]
		id := ft.ID
		resp, body := f.do(t, "GET", "/v1/buildings/"+url.PathEscape(id), nil)
		if resp.StatusCode != 200 {
			t.Fatalf("detail %s: %d %s", id, resp.StatusCode, body)
		}
		var d map[string]any
		json.Unmarshal(body, &d)
		geom := d["geometry"].(map[string]any)
		if d["gmlid"] != id || d["building_id"] != ft.Properties["building_id"] || d["lod"] != "LoD2" ||
			d["bundesland_code"] != ft.Properties["bundesland"] || geom["type"] != "MultiPolygon" || d["properties"] != nil {
			t.Errorf("detail = %s", body)
		}
		if polys := geom["coordinates"].([]any); len(polys) < 6 {
			t.Errorf("aggregated geometry has %d polygons", len(polys))
		}
		if !strings.Contains(resp.Header.Get("Link"), `rel="license"`) {
			t.Errorf("no licence link: %v", resp.Header)
		}
		resp, body = f.do(t, "GET", "/v1/buildings/"+url.PathEscape(id)+"/roof", nil)
		if resp.StatusCode != 200 {
			t.Fatalf("roof %s: %d %s", id, resp.StatusCode, body)
		}
		var roof struct {
			Type     string
			Count    int
			Features []struct {
				Geometry   struct{ Type string }
				Properties map[string]any
			}
			Svc map[string]any
		}
		json.Unmarshal(body, &roof)
		if roof.Type != "FeatureCollection" || roof.Count == 0 || roof.Count != len(roof.Features) ||
			roof.Svc["gmlid"] != id || roof.Svc["bl"] != ft.Properties["bundesland"] {
			t.Errorf("roof = %s", body)
		}
		for _, rf := range roof.Features {
			tilt := rf.Properties["tilt_deg"].(float64)
			if rf.Geometry.Type != "Polygon" || tilt < 0 || tilt > 90 || rf.Properties["area_m2"].(float64) <= 0 || len(rf.Properties) != 3 {
				t.Errorf("facet %+v", rf)
			}
			if (tilt < 5) != (rf.Properties["azimuth_deg"] == nil) {
				t.Errorf("azimuth null rule broken: %+v", rf.Properties)
			}
		}
	}
	for _, path := range []string{"/v1/buildings/DEHENOSUCHBUILDING", "/v1/buildings/DEHENOSUCHBUILDING/roof",
		"/v1/buildings/" + strings.Repeat("x", 300), "/v1/buildings/00000000-0000-0000-0000-000000000000"} {
		resp, body := f.do(t, "GET", path, nil)
		checkProblem(t, resp, body, 404, "not-found")
	}
}

// sharedDirs are fixtures shared by parallel tests, removed by TestMain.
var sharedDirs []string

func tempDir() (string, error) {
	d, err := os.MkdirTemp("", "svc-server-test-")
	if err == nil {
		sharedDirs = append(sharedDirs, d)
	}
	return d, err
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range sharedDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
