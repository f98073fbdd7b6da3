package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	synth "github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/ogcapi"
)

// TestOGCBuildingsLoD2ProfileGDAL: with profile=lod2 the buildings
// collection answers each building as a MultiPolygon Z of all its
// surfaces. GDAL reads the pages (saved as one GeoJSON file) as 3D
// MultiPolygons whose polygon count and z range equal, building by
// building, what GDAL's SQLite driver reads from the pack's SpatiaLite
// surfaces; the item route answers the same geometry; the headers name
// the compound CRS with DHHN2016 and the profile; other collections
// refuse the parameter.
func TestOGCBuildingsLoD2ProfileGDAL(t *testing.T) {
	python := testtool.PythonGDAL(t)
	h, data := wholeServerData(t)
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	var feats []json.RawMessage
	for path := wholeItems + "?profile=lod2&limit=100"; path != ""; {
		rec := get(path)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.Bytes())
		}
		if got, want := rec.Header().Get("Content-Crs"), "<http://www.opengis.net/def/crs-compound?1=http://www.opengis.net/def/crs/OGC/1.3/CRS84&2=http://www.opengis.net/def/crs/EPSG/0/7837>"; got != want {
			t.Fatalf("Content-Crs %s, want %s", got, want)
		}
		if l := rec.Header().Get("Link"); !strings.Contains(l, `#profile-lod2>; rel="profile"`) {
			t.Fatalf("Link %q names no profile", l)
		}
		var p struct {
			Features []json.RawMessage
			Links    []map[string]any
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		feats = append(feats, p.Features...)
		path = nextOf(ogcTestPage{Links: p.Links})
	}
	fc, _ := json.Marshal(map[string]any{"type": "FeatureCollection", "features": feats})
	answer := filepath.Join(t.TempDir(), "buildings.geojson")
	if err := os.WriteFile(answer, fc, 0o644); err != nil {
		t.Fatal(err)
	}
	type solid struct {
		Polygons   int
		Zmin, Zmax float64
		Dim        int
	}
	var packs []string
	filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "lod2.sqlite" {
			packs = append(packs, p)
		}
		return nil
	})
	if len(packs) != 2 {
		t.Fatalf("packs %v", packs)
	}
	compared := 0
	for _, pk := range packs {
		out, err := exec.Command(python, "testdata/gdal_solids.py", pk, answer).Output()
		if err != nil {
			t.Fatalf("gdal_solids.py: %v %s", err, exitStderrOf(err))
		}
		var r struct {
			Pack, GeoJSON map[string]solid
			GeoJSONType   string `json:"geojson_type"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		if r.GeoJSONType != "3D Multi Polygon" {
			t.Errorf("GDAL reads the answer as %q, want 3D Multi Polygon", r.GeoJSONType)
		}
		for id, want := range r.Pack {
			got, ok := r.GeoJSON[id]
			if !ok {
				t.Errorf("building %s of %s not served", id, filepath.Base(filepath.Dir(filepath.Dir(pk))))
				continue
			}
			if got.Dim != 3 || got.Polygons != want.Polygons || math.Abs(got.Zmin-want.Zmin) > 5e-4 || math.Abs(got.Zmax-want.Zmax) > 5e-4 {
				t.Errorf("building %s: served %+v, pack %+v", id, got, want)
			}
			compared++
		}
	}
	if compared != len(feats) || compared < 250 {
		t.Errorf("compared %d buildings of %d served", compared, len(feats))
	}
	t.Logf("%d buildings: polygon counts and z ranges equal", compared)

	// The item answers the feature of the items page.
	var first struct {
		ID       string
		Geometry json.RawMessage
	}
	json.Unmarshal(feats[0], &first)
	rec := get(wholeItems + "/" + first.ID + "?profile=lod2")
	var item struct{ Geometry any }
	var page any
	json.Unmarshal(first.Geometry, &page)
	if err := json.Unmarshal(rec.Body.Bytes(), &item); rec.Code != 200 || err != nil || !reflect.DeepEqual(item.Geometry, page) {
		t.Errorf("item %s: %d, geometry differs from the page's: %.200s", first.ID, rec.Code, item.Geometry)
	}
	// The collection's items links keep the profile (GDAL forwards the
	// query of the collection URL to every request).
	if rec := get("/ogc/collections/buildings?profile=lod2"); rec.Code != 200 || !strings.Contains(rec.Body.String(), `/items?f=json\u0026profile=lod2"`) {
		t.Errorf("collection with profile: %d %.300s", rec.Code, rec.Body.Bytes())
	}
	for _, path := range []string{"/ogc/collections/surfaces/items?profile=lod2", "/ogc/collections/roofs/items/nrw.1?profile=footprint",
		"/ogc/collections/surfaces?profile=lod2",
		wholeItems + "?profile=solid"} {
		rec := get(path)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "profile") {
			t.Errorf("%s: %d %s", path, rec.Code, rec.Body.Bytes())
		}
	}
}

// exitStderrOf is the stderr of a failed command, if any.
func exitStderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}

// TestOGCBuildingsLoD2PageLimit: a LoD2 page holds at most MaxLoD2Limit
// buildings (a server-limited page with a next link); the footprint
// profile keeps its own maximum. Over 1,005 attributed boxes.
func TestOGCBuildingsLoD2PageLimit(t *testing.T) {
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
	const n = ogcapi.MaxLoD2Limit + 5
	for i := range n {
		id := fmt.Sprintf("DEHE%08d", i)
		x, y := glbE0+float64(i%40)*15, glbN0+float64(i/40)*15
		if err := lw.Add(ctx, lod2store.BuildingInput{GMLID: id, Valid: true, Surfaces: synth.Box(x, y, 8, 6, 100, 10),
			Attrs:    []lod2store.AttrsInput{{GMLID: id}},
			Measures: &lod2store.MeasuresInput{FootprintAreaM2: 48, GroundZ: 100, EavesZ: 110, RidgeZ: 110}}); err != nil {
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
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	t.Cleanup(cat.Close)
	if _, err := cat.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		pages []int
	}{
		{"profile=lod2&limit=5000", []int{ogcapi.MaxLoD2Limit, 5}},
		{"profile=lod2&limit=600", []int{600, 405}},
		{"limit=5000", []int{n}},
	} {
		var got []int
		for path := wholeItems + "?" + tc.query; path != ""; {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			var p struct {
				NumberReturned int
				Features       []json.RawMessage
				Links          []map[string]any
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &p); rec.Code != 200 || err != nil || p.NumberReturned != len(p.Features) {
				t.Fatalf("%s: %d %v %.300s", path, rec.Code, err, rec.Body.Bytes())
			}
			got = append(got, len(p.Features))
			path = nextOf(ogcTestPage{Links: p.Links})
		}
		if !slices.Equal(got, tc.pages) {
			t.Errorf("%s: pages of %v, want %v", tc.query, got, tc.pages)
		}
	}
}
