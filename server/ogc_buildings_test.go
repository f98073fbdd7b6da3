package server

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
)

// wholeServer imports the real NRW and Berlin samples as two BL (the demo
// packs carry no attributes) and returns the server's handler.
func wholeServer(t testing.TB) http.Handler {
	t.Helper()
	h, _ := wholeServerData(t)
	return h
}

// wholeServerData is wholeServer and its data directory.
func wholeServerData(t testing.TB) (http.Handler, string) {
	t.Helper()
	data := t.TempDir()
	for _, s := range []struct{ rel, bl string }{
		{"samples/real/LoD2_32_280_5659_1_NW.gml", "nrw"},
		{"samples/real/3910_5817.gml", "be"},
	} {
		if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: s.bl, Snapshot: "2026-07-20",
			LicenseID: "dl-de-zero-2.0"}, []string{testtool.Shared(t, s.rel)}); err != nil {
			t.Fatal(err)
		}
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	if _, err := cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	return srv, data
}

// wholeAll follows the next links from path on h.
func wholeAll(t testing.TB, h http.Handler, path string) ([]ogcFeat, int) {
	t.Helper()
	var out []ogcFeat
	pages := 0
	for path != "" {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.Bytes())
		}
		var p struct {
			Features []ogcFeat
			Links    []map[string]any
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Features...)
		pages++
		path = nextOf(ogcTestPage{Links: p.Links})
		if pages > 10000 {
			t.Fatal("paging does not end")
		}
	}
	return out, pages
}

const wholeItems = "/ogc/collections/buildings/items"

// num reads a numeric property (nil: absent or null).
func wholeNum(p map[string]any, name string) (float64, bool) {
	v, ok := p[name].(float64)
	return v, ok
}

func wholeIDs(fs []ogcFeat) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

// TestOGCBuildingsCollection: the buildings collection has one feature per
// building of every BL (id the gml:id, a footprint, the attributes), and a
// CQL2 filter (SQL part and Go residual) selects exactly the buildings a Go
// evaluation of the same condition over all of them selects, through pages
// of 7, in id order and sorted.
func TestOGCBuildingsCollection(t *testing.T) {
	h := wholeServer(t)
	t.Run("refusals", func(t *testing.T) { wholeRefusals(t, h) })
	all, _ := wholeAll(t, h, wholeItems+"?limit=10000")
	if len(all) < 50 {
		t.Fatalf("%d buildings", len(all))
	}
	seen := map[string]bool{}
	bls := map[string]int{}
	withFn := 0
	for _, f := range all {
		if f.ID == "" || seen[f.ID] || f.ID != f.Properties["gmlid"] {
			t.Fatalf("feature id %q (gmlid %v) missing, repeated or not the gml:id", f.ID, f.Properties["gmlid"])
		}
		seen[f.ID] = true
		bls[f.Properties["bl"].(string)]++
		if f.Properties["function"] != nil {
			withFn++
		}
	}
	if len(bls) != 2 || withFn == 0 {
		t.Fatalf("buildings per BL %v, %d with a function", bls, withFn)
	}
	// The footprint is 2D and in the BL's area.
	withGeom := 0
	for _, f := range all {
		for _, poly := range f.Geometry.Coordinates {
			for _, ring := range poly {
				for _, p := range ring {
					if len(p) != 2 || p[0] < 5 || p[0] > 16 || p[1] < 47 || p[1] > 56 {
						t.Fatalf("%s: footprint position %v", f.ID, p)
					}
				}
			}
			withGeom++
		}
	}
	if withGeom == 0 {
		t.Fatal("no footprints")
	}
	// One building by its id, in HTML and as JSON, equals its feature in
	// the page.
	for _, path := range []string{wholeItems + "/" + url.PathEscape(all[0].ID), wholeItems + "/" + url.PathEscape(all[0].ID) + "?f=html", wholeItems + "?f=html&limit=3"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 || (strings.Contains(path, "html") != strings.Contains(rec.Header().Get("Content-Type"), "text/html")) {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		if !strings.Contains(path, "html") {
			var one ogcFeat
			if err := json.Unmarshal(rec.Body.Bytes(), &one); err != nil {
				t.Fatal(err)
			}
			if a, b := mustJSONTest(one), mustJSONTest(all[0]); a != b {
				t.Fatalf("%s:\n%s\npage: %s", path, a, b)
			}
		}
	}
	// The address summary lists every address the attributes route gives
	// (the building's, then its parts').
	withAddr := 0
	for _, f := range all {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/buildings/"+url.PathEscape(f.ID)+"/attributes", nil))
		var d attributesDoc
		if err := json.Unmarshal(rec.Body.Bytes(), &d); rec.Code != 200 || err != nil {
			t.Fatalf("attributes of %s: %d %v", f.ID, rec.Code, err)
		}
		var want []string
		for _, o := range append([]ownerDoc{d.Building}, d.Parts...) {
			for _, a := range o.Addresses {
				line := strings.TrimSpace(a.Street + " " + a.HouseNumber)
				if place := strings.TrimSpace(a.PostalCode + " " + a.Locality); line != "" && place != "" {
					line += ", " + place
				} else if line == "" {
					line = place
				}
				want = append(want, line)
			}
		}
		got, _ := f.Properties["address"].(string)
		if got != strings.Join(want, "; ") {
			t.Fatalf("%s: address %q, attributes route %q", f.ID, got, want)
		}
		if got != "" {
			withAddr++
		}
	}
	if withAddr == 0 {
		t.Fatal("no building with an address: not a test")
	}
	fnOf := func(f ogcFeat) string { s, _ := f.Properties["function"].(string); return s }
	for _, tc := range []struct {
		name, filter string
		want         func(f ogcFeat) bool
	}{
		{"residential over 8 m", "function LIKE '31001_1%' AND height_m > 8", func(f ogcFeat) bool {
			h, ok := wholeNum(f.Properties, "height_m")
			return strings.HasPrefix(fnOf(f), "31001_1") && ok && h > 8
		}},
		{"flat roofs over 200 m²", "roof_type = '1000' AND roof_area_m2 > 200", func(f ogcFeat) bool {
			a, ok := wholeNum(f.Properties, "roof_area_m2")
			return f.Properties["roof_type"] == "1000" && ok && a > 200
		}},
		{"height between", "height_m BETWEEN 8 AND 12", func(f ogcFeat) bool {
			h, ok := wholeNum(f.Properties, "height_m")
			return ok && h >= 8 && h <= 12
		}},
		{"no measured height", "measured_height_m IS NULL", func(f ogcFeat) bool { return f.Properties["measured_height_m"] == nil }},
		{"case-insensitive (residual)", "CASEI(gmlid) LIKE CASEI('%a%')", func(f ogcFeat) bool { return strings.Contains(strings.ToLower(f.ID), "a") }},
		{"function list", "function IN ('1231', '31001_1010') AND NOT height_m < 20", func(f ogcFeat) bool {
			h, ok := wholeNum(f.Properties, "height_m")
			return (fnOf(f) == "1231" || fnOf(f) == "31001_1010") && ok && h >= 20
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for _, f := range all {
				if tc.want(f) {
					want = append(want, f.ID)
				}
			}
			got, _ := wholeAll(t, h, wholeItems+"?limit=7&filter="+url.QueryEscape(tc.filter))
			if !slices.Equal(wholeIDs(got), want) {
				t.Fatalf("%s: server %d buildings %.300v, Go %d %.300v", tc.filter, len(got), wholeIDs(got), len(want), want)
			}
			if len(want) == 0 && !strings.Contains(tc.name, "flat") {
				t.Fatalf("%s selects nothing in the samples: not a test", tc.filter)
			}
			t.Logf("%s: %d of %d", tc.filter, len(want), len(all))
		})
	}
	// The queryables as query parameters (equality).
	{
		var want []string
		for _, f := range all {
			if f.Properties["roof_type"] == "1000" && strings.HasPrefix(fnOf(f), "31001") {
				want = append(want, f.ID)
			}
		}
		got, _ := wholeAll(t, h, wholeItems+"?limit=6&roof_type=1000&filter="+url.QueryEscape("function LIKE '31001%'"))
		if len(want) == 0 || !slices.Equal(wholeIDs(got), want) {
			t.Fatalf("roof_type=1000: %d buildings, want %d", len(got), len(want))
		}
	}
	// A spatial filter (the residual, on the footprint) and bbox: every
	// building with a footprint vertex in the box is found, none whose
	// footprint's envelope misses it.
	box := [4]float64{13.403, 52.498, 13.406, 52.500}
	for _, path := range []string{
		wholeItems + "?limit=9&filter=" + url.QueryEscape("S_INTERSECTS(geometry, BBOX(13.403,52.498,13.406,52.500)) AND footprint_area_m2 > 50"),
		wholeItems + "?limit=9&bbox=13.403,52.498,13.406,52.500&filter=" + url.QueryEscape("footprint_area_m2 > 50"),
	} {
		got, _ := wholeAll(t, h, path)
		gotIDs := wholeIDs(got)
		n := 0
		for _, f := range all {
			a, _ := wholeNum(f.Properties, "footprint_area_m2")
			if a > 50 && inBox(f, box) {
				n++
				if !slices.Contains(gotIDs, f.ID) {
					t.Fatalf("%s: %s has a vertex in the box and is not found", path, f.ID)
				}
			}
		}
		for _, f := range got {
			if !envMeets(f, box) {
				t.Fatalf("%s: %s is found, its envelope misses the box", path, f.ID)
			}
		}
		if n == 0 {
			t.Fatalf("%s: nothing in the box: not a test", path)
		}
		t.Logf("%s: %d found, %d with a vertex inside", path, len(got), n)
	}
	// sortby: the order of the Go sort (value, nulls first, then BL, then
	// the store order), the same through pages.
	sorted, pages := wholeAll(t, h, wholeItems+"?limit=13&sortby="+url.QueryEscape("-height_m"))
	if pages < 2 || len(sorted) != len(all) {
		t.Fatalf("sorted: %d features in %d pages, want %d", len(sorted), pages, len(all))
	}
	if !slices.IsSortedFunc(sorted, func(a, b ogcFeat) int {
		ha, oka := wholeNum(a.Properties, "height_m")
		hb, okb := wholeNum(b.Properties, "height_m")
		switch {
		case oka && okb:
			return -cmp.Compare(ha, hb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	}) {
		t.Fatal("-height_m: not in descending height order")
	}
	// properties selects.
	sel, _ := wholeAll(t, h, wholeItems+"?limit=5000&properties=function,height_m")
	for _, f := range sel {
		if len(f.Properties) != 2 {
			t.Fatalf("properties=function,height_m wrote %v", f.Properties)
		}
	}
}

// TestOGCBuildingsRefusals: bad sortby, properties, filter and a cursor of
// another collection are 400 problems; an unknown id is 404.
func wholeRefusals(t *testing.T, h http.Handler) {
	for path, want := range map[string]int{
		wholeItems + "?sortby=nope":                                      400,
		wholeItems + "?sortby=geometry":                                  400,
		wholeItems + "?properties=surface_class":                         400,
		wholeItems + "?filter=" + url.QueryEscape("height_m >"):          400,
		wholeItems + "?filter=" + url.QueryEscape("surface_class=1"):     400,
		wholeItems + "?surface_class=712":                                400,
		wholeItems + "?cursor=b.%21":                                     400,
		wholeItems + "?cursor=b.0123456789abcdef.eyJiZSI6Ild6RTBNRjAifQ": 400, // a digest of other snapshots
		wholeItems + "/nope":                                             404,
		"/ogc/collections/buildings/queryables":                          200,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want {
			t.Errorf("%s: %d, want %d: %.300s", path, rec.Code, want, rec.Body.Bytes())
		}
		if want == 400 && !strings.Contains(rec.Header().Get("Content-Type"), "problem+json") {
			t.Errorf("%s: %s", path, rec.Header().Get("Content-Type"))
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/ogc/collections/buildings/queryables", nil))
	var q struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &q); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(q.Properties["function"].Enum, "31001_1000") || !slices.Contains(q.Properties["roof_type"].Enum, "1000") {
		t.Fatalf("queryables without the AdV code lists: %.500s", rec.Body.Bytes())
	}
	if _, ok := q.Properties["geometry"]; !ok {
		t.Fatal("queryables without geometry")
	}
}

func mustJSONTest(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// BenchmarkOGCBuildingsItems: a page of 100 buildings of the two real
// samples, unfiltered, with a SQL filter and sorted, and with a residual
// (CASEI) filter.
func BenchmarkOGCBuildingsItems(b *testing.B) {
	h := wholeServer(b)
	for _, tc := range []struct{ name, query string }{
		{"page100", "limit=100"},
		{"page100-lod2", "limit=100&profile=lod2"},
		{"filter-sql", "limit=100&filter=" + url.QueryEscape("roof_type = '1000' AND roof_area_m2 > 50") + "&sortby=-height_m"},
		{"filter-residual", "limit=100&filter=" + url.QueryEscape("CASEI(gmlid) LIKE CASEI('%a%')")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			size, start := 0, testtool.CPUTime()
			for range b.N {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", wholeItems+"?"+tc.query, nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
				size = rec.Body.Len()
			}
			// CPU time: the machine is shared, wall time follows the others' load.
			b.ReportMetric(float64(testtool.CPUTime()-start)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(size), "resp-bytes")
		})
	}
}
