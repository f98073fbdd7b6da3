package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// rasterValue is the fixture surface: a value per 1 m pixel centre.
func rasterValue(e, n float64) float64 { return math.Round(((e-477000)+(n-5551000)/1000)*1000) / 1000 }

// writeXYZ writes a 100 m x 100 m XYZ tile at e0, n0; pixels for which
// skip is true are left out (NoData).
func writeXYZFixture(path string, e0, n0 float64, f func(e, n float64) float64) error {
	var b bytes.Buffer
	for r := range 100 {
		for c := range 100 {
			e, n := e0+float64(c)+0.5, n0+float64(r)+0.5
			if v := f(e, n); !math.IsNaN(v) {
				fmt.Fprintf(&b, "%.1f %.1f %.3f\n", e, n, v)
			}
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// rasterFixture is a server over a he terrain pack (tile a good, tile b
// corrupted after import), a he vegetation pack, and a by pass-through
// terrain pack whose COG server is down.
type rasterFixture struct {
	srv *Server
	ts  *httptest.Server
}

var rasterServer = sync.OnceValues(buildRasterFixture)

func buildRasterFixture() (*rasterFixture, error) {
	data, err := tempDir()
	if err != nil {
		return nil, err
	}
	src := filepath.Join(data, "src")
	for _, d := range []string{"dgm", "cdsm", "tdsm"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			return nil, err
		}
	}
	lake := func(e, n float64) float64 {
		if math.Hypot(e-477050, n-5551050) < 10 {
			return math.NaN()
		}
		return rasterValue(e, n)
	}
	tree := func(e, n float64) float64 {
		if e < 477050 {
			return math.NaN()
		}
		return 20
	}
	for _, x := range []struct {
		path string
		e0   float64
		f    func(e, n float64) float64
	}{{"dgm/a.xyz", 477000, lake}, {"dgm/b.xyz", 477100, rasterValue}, {"cdsm/c.xyz", 477000, tree},
		{"tdsm/t.xyz", 477000, func(e, n float64) float64 { return 5 }}} {
		if err := writeXYZFixture(filepath.Join(src, x.path), x.e0, 5551000, x.f); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	he := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	if _, err := importer.DGM(ctx, he, importer.DGMOptions{}, []string{filepath.Join(src, "dgm")}); err != nil {
		return nil, err
	}
	// The synthetic canopy is one flat 20 m block: smooth and in one piece,
	// it looks like terrain to the importer's role check, so it is forced.
	veg := he
	veg.Force = true
	if _, err := importer.Vegetation(ctx, veg, importer.VegetationOptions{CDSM: []string{filepath.Join(src, "cdsm")},
		TDSM: []string{filepath.Join(src, "tdsm")}}); err != nil {
		return nil, err
	}
	// Corrupt tile b in place, keeping its size so the pack stays published.
	bPath := filepath.Join(data, "terrain", "he", "2026-07-20", "tiles", "b.tif")
	st, err := os.Stat(bPath)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(bPath, bytes.Repeat([]byte("x"), int(st.Size())), 0o644); err != nil {
		return nil, err
	}
	if err := passThroughPack(ctx, data); err != nil {
		return nil, err
	}
	cache := raster.NewCache(0)
	openRaster := func(ctx context.Context, dir string, m pack.Manifest) (*terrain.Dataset, error) {
		return terrain.OpenPack(ctx, dir, m, terrain.Options{Cache: cache})
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack, Raster: openRaster})
	v, err := cat.Reload(ctx)
	if err != nil {
		return nil, err
	}
	if len(v.Problems) > 0 || len(v.Packs(pack.Terrain)) != 2 {
		return nil, fmt.Errorf("fixture packs: %v", v.Problems)
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		return nil, err
	}
	return &rasterFixture{srv: srv, ts: httptest.NewServer(srv)}, nil
}

// passThroughPack imports a by pass-through pack from a COG server that
// goes down once the import is done.
func passThroughPack(ctx context.Context, data string) error {
	nd := terrain.Nodata
	g := raster.Grid{Width: 100, Height: 100, Data: make([]float32, 100*100), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{650000, 1, 0, 5400100, 0, -1}}
	var cog bytes.Buffer
	if err := raster.WriteCOG(&cog, g, raster.WriteOptions{}); err != nil {
		return err
	}
	var down atomic.Bool
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		http.ServeContent(w, r, "by.tif", time.Time{}, bytes.NewReader(cog.Bytes()))
	}))
	_, err := importer.DGM(ctx, importer.Common{DataDir: data, BL: "by", Snapshot: "2026-07-16", LicenseID: "dl-de-by-2.0"},
		importer.DGMOptions{Mode: importer.ModePassThrough}, []string{remote.URL + "/dgm1_32_650_5400.tif"})
	down.Store(true)
	return err
}

func rasterFix(t testing.TB) *rasterFixture {
	t.Helper()
	f, err := rasterServer()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *rasterFixture) get(t testing.TB, path string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(f.ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return resp.StatusCode, body
}

// ll returns "lat=..&lon=.." of a UTM32N point.
func ll(e, n float64) string {
	lon, lat := geo.FromUTM(geo.Zone32, e, n)
	return fmt.Sprintf("lat=%.9f&lon=%.9f", lat, lon)
}

func coordsOf(pts ...[2]float64) string {
	var parts []string
	for _, p := range pts {
		lon, lat := geo.FromUTM(geo.Zone32, p[0], p[1])
		parts = append(parts, fmt.Sprintf("%.9f,%.9f", lon, lat))
	}
	return strings.Join(parts, ";")
}

func TestElevationEndpoint(t *testing.T) {
	t.Parallel()
	f := rasterFix(t)
	for _, tc := range []struct {
		name, query string
		status      int
		slug        string
		want        float64
	}{
		{"value", ll(477020.3, 5551070.8), 200, "", rasterValue(477020.5, 5551070.5)},
		{"edge pixel 0.6 m inward", ll(477000.1, 5551099.9), 200, "", rasterValue(477000.5, 5551099.5)},
		{"NoData lake", ll(477050.5, 5551050.5), 404, "not-found", 0},
		{"outside coverage", "lat=50&lon=10", 404, "not-found", 0},
		{"corrupt tile", ll(477150.5, 5551050.5), 503, "data-damaged", 0},
		{"pass-through down", ll(650050.5, 5400050.5), 502, "bad-gateway", 0},
		{"lat out of range", "lat=90.5&lon=8", 422, "validation-error", 0},
		{"lon out of range", "lat=50&lon=-181", 422, "validation-error", 0},
		{"lat missing", "lon=8", 422, "validation-error", 0},
		{"lat not a number", "lat=abc&lon=8", 422, "validation-error", 0},
		{"srs not EPSG:4326", "lat=50&lon=8&srs=EPSG:25832", 422, "validation-error", 0},
		{"srs EPSG:4326", ll(477020.3, 5551070.8) + "&srs=EPSG:4326", 200, "", rasterValue(477020.5, 5551070.5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := f.get(t, "/v1/terrain/elevation?"+tc.query)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, body)
			}
			if tc.slug != "" {
				if typ, _ := body["type"].(string); !strings.HasSuffix(typ, "/"+tc.slug) {
					t.Errorf("type %v, want %s", body["type"], tc.slug)
				}
				return
			}
			if body["elevation_m"] != tc.want || body["datum"] != "DHHN2016" || body["source_bl"] != "he" ||
				body["snapshot"] != "2026-07-20" || body["license"] != "dl-de-by-2.0" || body["tile_id"] != "he/2026-07-20/a" ||
				body["attribution"] == "" {
				t.Errorf("body %v, want elevation %v", body, tc.want)
			}
		})
	}
}

func TestProfileEndpoint(t *testing.T) {
	t.Parallel()
	f := rasterFix(t)
	across := coordsOf([2]float64{477010.5, 5551020.5}, [2]float64{477190.5, 5551020.5})
	t.Run("corrupt tile gives partial", func(t *testing.T) {
		status, body := f.get(t, "/v1/terrain/profile?samples=10&coords="+across) // raw ';'
		if status != 200 {
			t.Fatalf("status %d: %v", status, body)
		}
		props := body["properties"].(map[string]any)
		if props["partial"] != true || fmt.Sprint(props["failed_tile_ids"]) != "[he/2026-07-20/b]" ||
			props["samples"] != 10.0 || props["coords_count"] != 2.0 || math.Abs(props["total_length_m"].(float64)-180) > 0.01 {
			t.Fatalf("properties %v", props)
		}
		feats := body["features"].([]any)
		first := feats[0].(map[string]any)["properties"].(map[string]any)
		last := feats[9].(map[string]any)["properties"].(map[string]any)
		if first["elevation_m"] != rasterValue(477010.5, 5551020.5) || first["tile_id"] != "he/2026-07-20/a" || first["distance_m"] != 0.0 {
			t.Errorf("first %v", first)
		}
		if last["elevation_m"] != nil || last["tile_id"] != nil || last["distance_m"] != 180.0 || last["source_bl"] != "he" {
			t.Errorf("last %v", last)
		}
	})
	for _, tc := range []struct {
		name, query string
		status      int
	}{
		{"encoded semicolon", "coords=" + strings.ReplaceAll(across, ";", "%3B"), 200},
		{"coords missing", "samples=10", 400},
		{"coords malformed", "coords=8.6,50.1;abc", 400},
		{"one point", "coords=8.6,50.1", 400},
		{"lat out of range", "coords=8.6,50.1;8.7,91", 422},
		{"samples too few", "samples=1&coords=" + across, 422},
		{"samples too many", "samples=2001&coords=" + across, 422},
		{"samples not a number", "samples=x&coords=" + across, 422},
		{"all outside", "coords=10,48;10.01,48", 404},
		{"all on an unreachable source", "coords=" + coordsOf([2]float64{650010, 5400010}, [2]float64{650090, 5400090}), 502},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if status, body := f.get(t, "/v1/terrain/profile?"+tc.query); status != tc.status {
				t.Errorf("status %d, want %d: %v", status, tc.status, body)
			}
		})
	}
}

func TestCanopyEndpoint(t *testing.T) {
	t.Parallel()
	f := rasterFix(t)
	for _, tc := range []struct {
		name, query string
		status      int
		base        any
	}{
		{"tree", ll(477080.5, 5551080.5), 200, 5.0},
		{"trunk=false", ll(477080.5, 5551080.5) + "&trunk=false", 200, nil},
		{"NoData", ll(477020.5, 5551080.5), 404, nil},
		{"outside", "lat=50&lon=10", 404, nil},
		{"srs", "lat=50&lon=10&srs=EPSG:3857", 400, nil},
		{"lat out of range", "lat=-91&lon=10", 422, nil},
		{"lon missing", "lat=50", 422, nil},
		{"trunk not a bool", ll(477080.5, 5551080.5) + "&trunk=maybe", 422, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := f.get(t, "/v1/vegetation/canopy?"+tc.query)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, body)
			}
			if status != 200 {
				return
			}
			tr := body["transmissivity"].(map[string]any)
			if body["canopy_height_m"] != 20.0 || body["crown_base_m"] != tc.base || body["height_reference"] != "above_ground" ||
				body["crs"] != "EPSG:25832" || body["tile_id"] != "he/2026-07-20/c" || len(tr["leaf_on"].([]any)) != 2 ||
				body["attribution"] == nil {
				t.Errorf("body %v", body)
			}
		})
	}
}

// FuzzProfileParams drives the profile handler with arbitrary coords and
// samples: it must answer 200, 400, 404 or 422 and never fail otherwise.
func FuzzProfileParams(f *testing.F) {
	for _, s := range []string{"8.6,50.1;8.7,50.1", "a", ";", "1,2;3,4;", "8.6,50.1;8.7,91", " 8.6 , 50.1 ; 8.7,50.1", "nan,1;2,3", "1e308,1;2,3"} {
		f.Add(s, "10")
	}
	fx, err := rasterServer()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, coords, samples string) {
		if len(samples) > 8 {
			samples = samples[:8]
		}
		q := "coords=" + urlEscape(coords) + "&samples=" + urlEscape(samples)
		rec := httptest.NewRecorder()
		fx.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/terrain/profile?"+q, nil))
		switch rec.Code {
		case 200, 400, 404, 422:
		default:
			t.Fatalf("coords %q samples %q: status %d %s", coords, samples, rec.Code, rec.Body.String())
		}
	})
}

func urlEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == ',' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// BenchmarkElevationHandler measures the elevation route in process
// (routing, middleware, sampling, JSON), warm cache.
func BenchmarkElevationHandler(b *testing.B) {
	f := rasterFix(b)
	req := httptest.NewRequest("GET", "/v1/terrain/elevation?"+ll(477020.3, 5551070.8), nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkProfileHandler2000 is a warm 2,000-sample profile through the
// handler, JSON included.
func BenchmarkProfileHandler2000(b *testing.B) {
	f := rasterFix(b)
	req := httptest.NewRequest("GET", "/v1/terrain/profile?samples=2000&coords="+
		url.QueryEscape(coordsOf([2]float64{477001, 5551001}, [2]float64{477099, 5551099})), nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/profile")
}
