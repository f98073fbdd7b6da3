package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/server/ogcapi"
)

type ogcTestPage struct {
	Features []struct {
		ID         string         `json:"id"`
		Properties map[string]any `json:"properties"`
	} `json:"features"`
	NumberReturned int              `json:"numberReturned"`
	NumberMatched  *int             `json:"numberMatched"`
	Links          []map[string]any `json:"links"`
}

func ogcGet(t *testing.T, path string) (int, []byte, ogcTestPage) {
	t.Helper()
	ts, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ts.Config.Handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	var p ogcTestPage
	if rec.Code == 200 {
		json.Unmarshal(rec.Body.Bytes(), &p)
	}
	return rec.Code, rec.Body.Bytes(), p
}

func nextOf(p ogcTestPage) string {
	for _, l := range p.Links {
		if l["rel"] == "next" {
			u, _ := url.Parse(l["href"].(string))
			return u.RequestURI()
		}
	}
	return ""
}

const ogcItems = "/ogc/collections/surfaces/items"

// TestOGCItemsParameters covers the items parameters and their refusals.
func TestOGCItemsParameters(t *testing.T) {
	const bbox = "bbox=8.672,50.111,8.676,50.113"
	_, _, all := ogcGet(t, ogcItems+"?limit=10000&"+bbox)
	if all.NumberReturned < 50 || all.NumberMatched != nil {
		t.Fatalf("bbox page: %d features, numberMatched %v", all.NumberReturned, all.NumberMatched)
	}
	// Paging through the next links gives the same features once each.
	seen := map[string]bool{}
	path := ogcItems + "?limit=7&" + bbox
	for path != "" {
		code, body, p := ogcGet(t, path)
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		for _, f := range p.Features {
			if seen[f.ID] {
				t.Fatalf("%s seen twice", f.ID)
			}
			seen[f.ID] = true
		}
		path = nextOf(p)
	}
	if len(seen) != all.NumberReturned {
		t.Fatalf("paging gave %d features, one page %d", len(seen), all.NumberReturned)
	}
	if _, _, p := ogcGet(t, ogcItems+"?limit=1"); p.NumberMatched == nil || *p.NumberMatched < 1000 {
		t.Errorf("numberMatched without filters: %v", p.NumberMatched)
	}
	gmlid, _ := all.Features[0].Properties["gmlid"].(string)
	for _, tc := range []struct {
		name, query string
		check       func(ogcTestPage) bool
	}{
		{"gmlid filter", "gmlid=" + url.QueryEscape(gmlid), func(p ogcTestPage) bool {
			for _, f := range p.Features {
				if f.Properties["gmlid"] != gmlid {
					return false
				}
			}
			return p.NumberReturned > 0
		}},
		{"surface_class filter", "surface_class=712", func(p ogcTestPage) bool {
			for _, f := range p.Features {
				if f.Properties["surface_class"] != 712.0 {
					return false
				}
			}
			return p.NumberReturned > 0
		}},
		{"datetime with the snapshot", "datetime=2020-01-01/..", func(p ogcTestPage) bool { return p.NumberReturned == all.NumberReturned }},
		{"datetime before the snapshots", "datetime=2001-01-01T00:00:00Z", func(p ogcTestPage) bool { return p.NumberReturned == 0 }},
		{"bbox-crs UTM", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := ogcItems + "?limit=10000&" + bbox + "&" + tc.query
			if tc.check == nil {
				// The UTM box around the WGS84 one holds at least its features.
				q = ogcItems + "?limit=10000&bbox=476800,5551300,477200,5551600&bbox-crs=EPSG:25832"
				tc.check = func(p ogcTestPage) bool { return p.NumberReturned > 0 }
			}
			code, body, p := ogcGet(t, q)
			if code != 200 || !tc.check(p) {
				t.Fatalf("%d %d features: %.300s", code, p.NumberReturned, body)
			}
		})
	}
	stale := base64.RawURLEncoding.EncodeToString([]byte("he/2001-01-01/5"))
	for _, tc := range []struct{ name, query, mention string }{
		{"bad crs", "crs=EPSG:31467", "not supported"},
		{"five numbers", "bbox=1,2,3,4,5", "4 or 6"},
		{"inverted bbox", "bbox=9,50,8,51", "lower corner"},
		{"limit 0", "limit=0", "limit"},
		{"bad datetime", "datetime=yesterday", "datetime"},
		{"garbage cursor", "cursor=%21%21", "cursor"},
		{"cursor from another snapshot", "cursor=" + stale, "changed"},
		{"unknown parameter", "colour=red", "colour"},
		{"bbox-crs without bbox", "bbox-crs=EPSG:25832", "needs a bbox"},
		{"bad f", "f=xml", "json, html"},
		{"empty gmlid", "gmlid=", "gmlid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := ogcGet(t, ogcItems+"?"+tc.query)
			if code != 400 || !strings.Contains(string(body), tc.mention) {
				t.Fatalf("%d %s", code, body)
			}
		})
	}
	for _, path := range []string{"/ogc/collections/nope", "/ogc/collections/nope/items", "/ogc/collections/surfaces/items/he.0",
		"/ogc/collections/surfaces/items/xx.1", "/ogc/collections/surfaces-he/items/nrw.1"} {
		if code, body, _ := ogcGet(t, path); code != 404 {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
}

// TestOGCLimitClamped: a limit above the maximum is a server-limited page
// of the maximum with a next link (OGC API - Features Part 1 describes
// limit so; QGIS's layer came up empty on the 400), on /ogc only: /v1
// still refuses it.
func TestOGCLimitClamped(t *testing.T) {
	_, _, ref := ogcGet(t, ogcItems+"?limit=1")
	if ref.NumberMatched == nil || *ref.NumberMatched <= ogcapi.MaxLimit {
		t.Fatalf("the demo needs more than %d surfaces: numberMatched %v", ogcapi.MaxLimit, ref.NumberMatched)
	}
	for _, limit := range []string{"10001", "50000", "99999999999999999999999"} {
		t.Run(limit, func(t *testing.T) {
			code, body, p := ogcGet(t, ogcItems+"?limit="+limit)
			if code != 200 || p.NumberReturned != ogcapi.MaxLimit || len(p.Features) != ogcapi.MaxLimit {
				t.Fatalf("%d, %d features: %.300s", code, p.NumberReturned, body)
			}
			next := nextOf(p)
			if next == "" {
				t.Fatal("no next link")
			}
			code, body, rest := ogcGet(t, next)
			if code != 200 || p.NumberReturned+rest.NumberReturned != *ref.NumberMatched || nextOf(rest) != "" {
				t.Fatalf("next page %d, %d features (first %d, numberMatched %d): %.300s", code, rest.NumberReturned, p.NumberReturned, *ref.NumberMatched, body)
			}
		})
	}
	// Below the minimum and malformed values are still refused.
	for _, limit := range []string{"0", "-5", "1.5", "1e5"} {
		if code, body, _ := ogcGet(t, ogcItems+"?limit="+limit); code != 400 || !strings.Contains(string(body), "limit") {
			t.Errorf("limit=%s: %d %s", limit, code, body)
		}
	}
	// /v1 keeps refusing a limit above its maximum.
	code, body, _ := ogcGet(t, "/v1/buildings?bbox=8.672,50.111,8.676,50.113&limit=50000")
	if code != 422 || !strings.Contains(string(body), "limit") {
		t.Errorf("/v1/buildings limit=50000: %d %.300s", code, body)
	}
}

// TestOGCParameterComponents: the shared OGC parameters are components
// (QGIS reads the page size from components.parameters.limit alone, with
// its maximum and default), every $ref resolves, and /ogc/api and
// /openapi.json declare them alike.
func TestOGCParameterComponents(t *testing.T) {
	type doc struct {
		Paths      map[string]map[string]struct{ Parameters []map[string]any }
		Components struct{ Parameters map[string]map[string]any }
	}
	var ogc, all doc
	for path, d := range map[string]*doc{"/ogc/api": &ogc, "/openapi.json": &all} {
		code, body, _ := ogcGet(t, path)
		if err := json.Unmarshal(body, d); code != 200 || err != nil {
			t.Fatalf("%s: %d %v", path, code, err)
		}
	}
	limit := ogc.Components.Parameters["limit"]
	schema, _ := limit["schema"].(map[string]any)
	if limit["name"] != "limit" || schema["maximum"] != float64(ogcapi.MaxLimit) || schema["default"] != float64(ogcapi.DefaultLimit) ||
		!strings.Contains(fmt.Sprint(limit["description"]), "not refused") {
		t.Fatalf("components.parameters.limit of /ogc/api: %v", limit)
	}
	for _, name := range []string{"bbox", "bbox-crs", "crs", "datetime", "cursor", "f", "collectionId"} {
		if ogc.Components.Parameters[name] == nil {
			t.Errorf("/ogc/api has no component %s", name)
		}
	}
	for name, p := range ogc.Components.Parameters {
		if !reflect.DeepEqual(p, all.Components.Parameters[name]) {
			t.Errorf("component %s: /ogc/api %v, /openapi.json %v", name, p, all.Components.Parameters[name])
		}
	}
	for _, d := range []doc{ogc, all} {
		for path, item := range d.Paths {
			for _, op := range item {
				for _, p := range op.Parameters {
					if ref, ok := p["$ref"].(string); ok && d.Components.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")] == nil {
						t.Errorf("%s: %s resolves to nothing", path, ref)
					}
					if (d.Paths["/collections"] != nil || strings.HasPrefix(path, "/ogc")) && p["name"] != nil && ogc.Components.Parameters[fmt.Sprint(p["name"])] != nil {
						t.Errorf("%s declares %s inline, not as its component", path, p["name"])
					}
				}
			}
		}
	}
	var refs []string
	// /ogc/api is rooted at /ogc (its server url ends with it), as OGC
	// clients look the items operation up.
	for _, p := range ogc.Paths["/collections/{collectionId}/items"]["get"].Parameters {
		refs = append(refs, fmt.Sprint(p["$ref"]))
	}
	if !slices.Contains(refs, "#/components/parameters/limit") {
		t.Errorf("items parameters %v do not refer to the limit component", refs)
	}
}

// TestOGCRoofsNumberMatched: the roofs collection gives numberMatched
// without filters (QGIS shows it as the layer's count before downloading),
// equal to the roofs it pages out and to the surfaces of class 712.
func TestOGCRoofsNumberMatched(t *testing.T) {
	_, _, first := ogcGet(t, "/ogc/collections/roofs/items?limit=1")
	if first.NumberMatched == nil {
		t.Fatal("roofs: no numberMatched")
	}
	n := 0
	for path := "/ogc/collections/roofs/items?limit=1000"; path != ""; {
		code, body, p := ogcGet(t, path)
		if code != 200 {
			t.Fatalf("%s: %d %.300s", path, code, body)
		}
		n += p.NumberReturned
		path = nextOf(p)
	}
	_, _, byClass := ogcGet(t, ogcItems+"?limit=10000&surface_class=712")
	if *first.NumberMatched != n || n != byClass.NumberReturned || n == 0 {
		t.Fatalf("numberMatched %d, paged %d roofs, %d surfaces of class 712", *first.NumberMatched, n, byClass.NumberReturned)
	}
	// With a bbox it is not counted (see ogcapi.Desc).
	if _, _, p := ogcGet(t, "/ogc/collections/roofs/items?limit=1&bbox=8.672,50.111,8.676,50.113"); p.NumberMatched != nil {
		t.Errorf("roofs in a bbox: numberMatched %d", *p.NumberMatched)
	}
}

// TestOGCRoofs: roof features carry tilt, azimuth and area, and a wall is
// not a feature of the roofs collection.
func TestOGCRoofs(t *testing.T) {
	code, body, p := ogcGet(t, "/ogc/collections/roofs/items?limit=50&bbox=8.672,50.111,8.676,50.113")
	if code != 200 || p.NumberReturned == 0 {
		t.Fatalf("%d %.300s", code, body)
	}
	for _, f := range p.Features {
		if a, _ := f.Properties["area_m2"].(float64); a <= 0 || f.Properties["tilt_deg"] == nil {
			t.Fatalf("roof %s: %v", f.ID, f.Properties)
		}
	}
	_, _, walls := ogcGet(t, ogcItems+"?limit=1&surface_class=709&bbox=8.672,50.111,8.676,50.113")
	if len(walls.Features) == 0 {
		t.Fatal("no wall")
	}
	if code, _, _ := ogcGet(t, "/ogc/collections/roofs/items/"+walls.Features[0].ID); code != 404 {
		t.Errorf("wall %s in roofs: %d", walls.Features[0].ID, code)
	}
	if code, body, _ := ogcGet(t, "/ogc/collections/roofs/items/"+p.Features[0].ID+"?crs=EPSG:25832"); code != 200 || !strings.Contains(string(body), "tilt_deg") {
		t.Errorf("roof item: %d %.200s", code, body)
	}
}
