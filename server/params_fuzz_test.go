package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/schemacheck"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/server/dataapi"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/terrainapi"
)

// fuzzRoute declares one parameter of each kind the contract parser reads.
var fuzzRoute = httpapi.Route{Method: "GET", Path: "/v1/fuzz", Surface: dataAPI, Params: []httpapi.Param{
	{Name: "limit", In: "query", Type: "integer", Default: 100, Min: httpapi.F64(1), Max: httpapi.F64(1000)},
	{Name: "lat", In: "query", Type: "number", Min: httpapi.F64(-90), Max: httpapi.F64(90)},
	{Name: "trunk", In: "query", Type: "boolean", Default: true},
	{Name: "mode", In: "query", Type: "string", Default: "a", Enum: []string{"a", "b"}},
	{Name: "tile", In: "query", Type: "string", Pattern: `^[0-9]+\.png$`},
	dataapi.BBoxParam(false, "", "bbox"),
	{Name: "cursor", In: "query", Type: "string", Parse: dataapi.ParseCursor},
	{Name: "page", In: "query", Type: "integer", Default: 10, Min: httpapi.F64(1), Max: httpapi.F64(500), Clamp: true},
}}

// FuzzQuery: any query string is either refused with a 400 or 422 problem
// or gives values within what the declaration admits.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"limit=1", "limit=1001", "limit=%2B5", "lat=0x1p3", "lat=5_0", "lat=NaN", "lat=-90&trunk=0",
		"trunk=T", "mode=b", "mode=c", "tile=1.png", "tile=x.png", "bbox=1,2,3,4", "bbox=1,2,3", "cursor=%%%", "a=1&a=2",
		"limit=7&bbox=8.6,50,8.7,50.1&cursor=aGU6MQ", ";=", "x;y=1", "lat=1e308", "lat=1e-400",
		"page=501", "page=0", "page=99999999999999999999999", "page=000000000000000000007", "page=-99999999999999999999"} {
		f.Add(s)
	}
	c := httpapi.CompileRoute(&fuzzRoute)
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest("GET", "/v1/fuzz", nil)
		r.URL.RawQuery = raw
		in, err := httpapi.ReadInput(&fuzzRoute, &c, r)
		if err != nil {
			if st := httpapi.ToHTTPError(err).Status; st != 400 && st != 422 {
				t.Fatalf("%q: status %d (%v)", raw, st, err)
			}
			return
		}
		if n := in.Integer("limit"); n < 1 || n > 1000 {
			t.Fatalf("%q: limit %d accepted", raw, n)
		}
		if v := in.Num("lat"); !(v >= -90 && v <= 90) {
			t.Fatalf("%q: lat %g accepted", raw, v)
		}
		if n := in.Integer("page"); n < 1 || n > 500 {
			t.Fatalf("%q: page %d accepted", raw, n)
		}
		if m := in.Str("mode"); m != "a" && m != "b" {
			t.Fatalf("%q: mode %q accepted", raw, m)
		}
		if in.Has("tile") && !strings.HasSuffix(in.Str("tile"), ".png") {
			t.Fatalf("%q: tile %q accepted", raw, in.Str("tile"))
		}
		if in.Has("bbox") {
			b := httpapi.ParsedAs[geo.BBox](in, "bbox")
			if b.MinLon > b.MaxLon || b.MinLat > b.MaxLat {
				t.Fatalf("%q: bbox %+v accepted", raw, b)
			}
		}
	})
}

// FuzzBuildingID sends arbitrary ids to the detail and roof routes of the
// demo pack: every answer is 200 or a 404 problem, never a 500.
func FuzzBuildingID(f *testing.F) {
	for _, s := range []string{"DEHEDM00000001", "DENW", "x", "../../etc/passwd", "%00", "DEHE' OR 1=1 --", strings.Repeat("Z", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		ts, err := smallLoD2Server()
		if err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"", "/roof"} {
			u := ts.URL + "/v1/buildings/" + url.PathEscape(id) + suffix
			resp, err := ts.Client().Get(u)
			if err != nil {
				continue // ids that make no valid URL never reach the server
			}
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Fatalf("GET %s: %d", u, resp.StatusCode)
			}
		}
	})
}

// FuzzBatchBody: any body is either refused with a problem or gives points
// within range, never more than the limit, from a body that conforms to
// the declared ElevationBatchRequest schema.
func FuzzBatchBody(f *testing.F) {
	for _, s := range []string{`{"locations": [[50.1, 8.6]]}`, `{"type": "MultiPoint", "coordinates": [[8.6, 50.1, 3]]}`,
		`{"type": "LineString", "crs": {"type": "name", "properties": {"name": "EPSG:4326"}}, "coordinates": [[8.6, 50.1], [8.7, 50.2]]}`,
		`{"locations": []}`, `{"locations": [[1e400, 0]]}`, `[]`, `null`, `{"type": 5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		pts, err := terrainapi.ParseBatchBody(body, 50)
		if err != nil {
			if httpapi.ToHTTPError(err).Status >= 500 {
				t.Fatalf("%q: %v", body, err)
			}
			return
		}
		if len(pts) == 0 || len(pts) > 50 {
			t.Fatalf("%q: %d points", body, len(pts))
		}
		if err := conformsTo(body, "ElevationBatchRequest"); err != nil {
			t.Fatalf("%q accepted, but the declared schema refuses it: %v", body, err)
		}
		for _, p := range pts {
			if !(p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180) {
				t.Fatalf("%q: point %+v out of range", body, p)
			}
		}
	})
}

// smallLoD2Server serves one small LoD2 pack (twelve buildings, one with a
// part): the building routes' lookups without the demo's raster and 3D
// builds, so each fuzz worker starts in well under a second.
var smallLoD2Server = sync.OnceValues(func() (*httptest.Server, error) {
	data, err := tempDir()
	if err != nil {
		return nil, err
	}
	var bs []demo.Building
	for i := range 12 {
		b := demo.Building{ID: fmt.Sprintf("DEHEDM%08d", i+1), X: 477020 + float64(i%4)*25, Y: 5551020 + float64(i/4)*25, Z0: 100,
			Length: 10, Depth: 8, Height: 6, PitchDeg: 35, Roof: demo.RoofKind(i % 3)}
		if i == 5 {
			b.Part = &demo.Building{ID: b.ID + "_BP1", X: b.X + 7, Y: b.Y, Z0: 100, Length: 4, Depth: 5, Height: 3}
		}
		bs = append(bs, b)
	}
	src := filepath.Join(data, "he.gml")
	fh, err := os.Create(src)
	if err != nil {
		return nil, err
	}
	if err := demo.WriteCityGML(fh, demo.CityGMLOptions{EPSG: 25832, Version: 2}, bs); err != nil {
		return nil, err
	}
	fh.Close()
	if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"},
		[]string{src}); err != nil {
		return nil, err
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	if _, err := cat.Reload(context.Background()); err != nil {
		return nil, err
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(srv), nil
})

// declaredSchemas are the component schemas of the OpenAPI document as a
// client reads them (JSON-decoded).
var declaredSchemas = sync.OnceValue(func() map[string]any {
	comps, _ := components()
	b, _ := json.Marshal(comps["schemas"])
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
})

// conformsTo checks a JSON body against the named component schema.
func conformsTo(body []byte, schema string) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	comps := declaredSchemas()
	return schemacheck.Conforms(v, comps[schema], comps)
}

// FuzzCreateKeyBody: a body POST /v1/admin/api-keys accepts (201) conforms
// to the declared ApiKeyCreateRequest; anything else is a 400 or 422
// problem. The parser and the access layer check the body between them,
// the schema is what clients generate code from: they must not disagree.
func FuzzCreateKeyBody(f *testing.F) {
	fx := newAccFixture(f, accOpts{limit: 1 << 20})
	for _, s := range []string{`{"customer_name":"a","tier":"pro"}`, `{"customer_name":"a","tier":"gold"}`,
		`{"customer_name":"","tier":"pro"}`, `{"customer_name":"a","tier":"business","monthly_call_quota":5,"contact_email":"a@b.c","notes":"n"}`,
		`{"customer_name":"a","tier":"pro","monthly_call_quota":-1}`, `{"customer_name":5,"tier":"pro"}`, `{"tier":"pro"}`,
		`{"customer_name":"a","tier":"pro","x":1}`, `{"customer_name":"a","tier":"pro"} 1`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, b := fx.send(t, "POST", "/v1/admin/api-keys", string(body),
			map[string]string{"X-Svc-Admin-Token": testToken, "Content-Type": "application/json"})
		switch resp.StatusCode {
		case http.StatusCreated:
			if err := conformsTo(body, "ApiKeyCreateRequest"); err != nil {
				t.Fatalf("%q created a key, but the declared schema refuses it: %v", body, err)
			}
		case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("%q: %d %s", body, resp.StatusCode, b)
		}
	})
}
