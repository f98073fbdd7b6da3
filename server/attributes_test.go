package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/gdaljudge"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
)

// attrServer imports one CityGML file as BL code and serves it.
func attrServer(t *testing.T, path, code string) *fixture {
	t.Helper()
	data := t.TempDir()
	if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: code, Snapshot: "2026-07-20",
		LicenseID: "dl-de-zero-2.0"}, []string{path}); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	if _, err := cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{data: data, cat: cat, ts: httptest.NewServer(srv)}
	t.Cleanup(f.ts.Close)
	return f
}

// TestAttributesRouteGDAL imports every real sample (and the synthetic
// one), asks GET /v1/buildings/{gmlid}/attributes for every building and
// every part GDAL's GML driver reads, and requires the same function and
// roof type codes, measured height, storeys, creation date, generic
// attributes and every address field; then looks every address up with
// GET /v1/addresses ("street number, postcode city" as GDAL reads them)
// and requires its building among the best matches.
func TestAttributesRouteGDAL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, rel, bl string }{
		{"nrw", "samples/real/LoD2_32_280_5659_1_NW.gml", "nrw"},
		{"berlin", "samples/real/3910_5817.gml", "be"},
		{"synthetic", "samples/LoD2_33_392_5820_1_BE_sample.gml", "be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := testtool.Shared(t, tc.rel)
			want := gdaljudge.Read(t, path)
			f := attrServer(t, path, tc.bl)
			bad, addrs, noStreet := 0, 0, 0
			report := func(format string, args ...any) {
				if bad++; bad <= 5 {
					t.Errorf(format, args...)
				}
			}
			for _, w := range want.Buildings {
				d := getAttributes(t, f, w.ID)
				got := ownerView(d.Building)
				got.Generic, got.Own, got.Parts = map[string][]string{}, addrView(d.Building.Addresses), map[string][]string{}
				addGeneric(got.Generic, d.Building)
				for _, p := range d.Parts {
					addGeneric(got.Generic, p)
					for k, v := range addrView(p.Addresses) {
						got.Parts[k] = append(got.Parts[k], v...)
					}
				}
				got.Normalise()
				if g, wj := got.JSON(), w.JSON(); g != wj {
					report("building %s:\nserved %s\nGDAL   %s", w.ID, g, wj)
				}
				for _, a := range d.Building.Addresses {
					if a.Street == "" { // only a locality: nothing to look up
						noStreet++
						continue
					}
					addrs++
					if !addressFinds(t, f, a, w.ID) {
						report("address %+v does not find %s", a, w.ID)
					}
				}
			}
			for _, w := range want.Parts {
				d := getAttributes(t, f, w.ID)
				i := slices.IndexFunc(d.Parts, func(p ownerDoc) bool { return p.GMLID == w.ID })
				if i < 0 {
					report("part %s not among the parts of %s", w.ID, d.GMLID)
					continue
				}
				got := ownerView(d.Parts[i])
				got.Normalise()
				w.Generic, w.Own, w.Parts = nil, nil, nil
				if g, wj := got.JSON(), w.JSON(); g != wj {
					report("part %s:\nserved %s\nGDAL   %s", w.ID, g, wj)
				}
			}
			if bad > 5 {
				t.Errorf("... %d differences in all", bad)
			}
			t.Logf("%d buildings, %d parts, %d addresses found by the lookup (%d without a street not looked up)", len(want.Buildings), len(want.Parts), addrs, noStreet)
		})
	}
}

// ownerDoc is the served form of a building or part (what the test reads).
type ownerDoc struct {
	GMLID           string `json:"gmlid"`
	Function        []struct{ Code string }
	RoofType        *struct{ Code string } `json:"roof_type"`
	MeasuredHeightM *float64               `json:"measured_height_m"`
	Storeys         *int64                 `json:"storeys"`
	CreationDate    *string                `json:"creation_date"`
	Addresses       []addressDoc           `json:"addresses"`
	Generic         []struct{ Name, Value string }
	Invalid         []string `json:"invalid"`
}

type addressDoc struct {
	Street      string `json:"street"`
	HouseNumber string `json:"house_number"`
	PostalCode  string `json:"postal_code"`
	Locality    string `json:"locality"`
	Country     string `json:"country"`
}

type attributesDoc struct {
	GMLID    string     `json:"gmlid"`
	BL       string     `json:"bl"`
	Building ownerDoc   `json:"building"`
	Parts    []ownerDoc `json:"parts"`
}

func getAttributes(t *testing.T, f *fixture, id string) attributesDoc {
	t.Helper()
	resp, body := f.do(t, "GET", "/v1/buildings/"+url.PathEscape(id)+"/attributes", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("attributes of %s: %d %s", id, resp.StatusCode, body)
	}
	var d attributesDoc
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// addressFinds reports whether looking a up finds building id among the
// matches of the best score.
func addressFinds(t *testing.T, f *fixture, a addressDoc, id string) bool {
	t.Helper()
	q := strings.TrimSpace(a.Street + " " + a.HouseNumber + ", " + a.PostalCode + " " + a.Locality)
	resp, body := f.do(t, "GET", "/v1/addresses?limit=50&q="+url.QueryEscape(q), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("addresses %q: %d %s", q, resp.StatusCode, body)
	}
	var r struct {
		Matches []struct {
			GMLID string
			Score float64
		}
	}
	json.Unmarshal(body, &r)
	for _, m := range r.Matches {
		if m.Score < r.Matches[0].Score {
			break
		}
		if m.GMLID == id {
			return true
		}
	}
	return false
}

func ownerView(o ownerDoc) gdaljudge.Owner {
	g := gdaljudge.Owner{ID: o.GMLID}
	for _, c := range o.Function {
		g.Function = append(g.Function, c.Code)
	}
	if o.RoofType != nil {
		g.RoofType = []string{o.RoofType.Code}
	}
	if o.MeasuredHeightM != nil {
		g.MeasuredHeight = []string{strconv.FormatFloat(*o.MeasuredHeightM, 'g', -1, 64)}
	}
	if o.Storeys != nil {
		g.Storeys = []string{strconv.FormatInt(*o.Storeys, 10)}
	}
	if o.CreationDate != nil {
		g.CreationDate = []string{*o.CreationDate}
	}
	if len(o.Invalid) > 0 {
		g.Storeys = append(g.Storeys, fmt.Sprint("invalid:", o.Invalid))
	}
	return g
}

func addGeneric(m map[string][]string, o ownerDoc) {
	for _, g := range o.Generic {
		m[g.Name] = append(m[g.Name], g.Value)
	}
}

func addrView(as []addressDoc) map[string][]string {
	js := make([]gdaljudge.Address, len(as))
	for i, a := range as {
		js[i] = gdaljudge.Address{Street: a.Street, HouseNumber: a.HouseNumber, PostalCode: a.PostalCode, Locality: a.Locality, Country: a.Country}
	}
	return gdaljudge.AddressFields(js)
}

// TestAddressesBadInput: a q without a street, too long, or missing is a
// problem naming q; a limit out of range is 422.
func TestAddressesBadInput(t *testing.T) {
	t.Parallel()
	f := attrServer(t, testtool.Shared(t, "samples/real/3910_5817.gml"), "be")
	for _, tc := range []struct {
		query  string
		status int
		slug   string
	}{
		{"q=10117+Berlin", 400, "bad-request"},
		{"q=12", 400, "bad-request"},
		{"q=" + strings.Repeat("a", 201), 400, "bad-request"},
		{"", 400, "bad-request"},
		{"q=Gitschiner+Str.+81&limit=0", 422, "validation-error"},
		{"q=Gitschiner+Str.+81&limit=51", 422, "validation-error"},
		{"q=Gitschiner+Str.+81&radius=5", 400, "bad-request"},
	} {
		resp, body := f.do(t, "GET", "/v1/addresses?"+tc.query, nil)
		checkProblem(t, resp, body, tc.status, tc.slug)
		if tc.status == 400 && !strings.Contains(string(body), "q") {
			t.Errorf("%s: detail names no parameter: %s", tc.query, body)
		}
	}
	resp, body := f.do(t, "GET", "/v1/addresses?q="+url.QueryEscape("Gitschiner Strasse 81, Berlin"), nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"bl":"be"`) || !strings.Contains(string(body), `"score":1`) {
		t.Errorf("Gitschiner Strasse 81: %d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, "GET", "/v1/addresses?q="+url.QueryEscape("Nirgendwostraße 1"), nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"count":0`) {
		t.Errorf("unknown street: %d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, "GET", "/v1/buildings/DEBE_NOSUCH/attributes", nil)
	checkProblem(t, resp, body, 404, "not-found")
}
