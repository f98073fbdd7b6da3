package cmd

import (
	"context"
	"encoding/json"
	"math"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestOGCBuildingsFilterWithGDAL: on the buildings collection (whole
// buildings with attributes; the real NRW and Berlin samples imported as
// two BL), GDAL's OAPIF driver passes an ogr2ogr -where on the attributes
// to the server as a CQL2 text filter and reads, through pages of 20,
// exactly the buildings the server's own filter selects (the server test
// TestOGCBuildingsCollection checks those against a Go evaluation).
func TestOGCBuildingsFilterWithGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	base := serveData(t, wholeSamples(t))
	landing := "OAPIF:" + base + "/ogc"
	for _, tc := range []struct{ name, where, cql2, sent string }{
		{"flat roofs over 200 m²", "roof_type = '1000' AND roof_area_m2 > 200", "roof_type = '1000' AND roof_area_m2 > 200",
			"(roof_type = '1000') AND (roof_area_m2 > 200)"},
		// GDAL 3.6 types the fields from the first page (a field null there
		// becomes a string, storeys in these samples): numbers it has seen.
		{"or", "height_m > 20 OR function = '31001_2463'", "height_m > 20 OR function = '31001_2463'", "(height_m > 20) OR (function = '31001_2463')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, log := ogr2ogrWhere(t, ogr2ogr, landing, "buildings", tc.where, 20)
			if f, ok := gdalSentFilter(log, "buildings"); !ok || f != tc.sent {
				t.Fatalf("GDAL did not pass the filter to the server as %s (sent %q):\n%.3000s", tc.sent, f, log)
			}
			want := serverGMLIDs(t, base+"/ogc/collections/buildings/items?limit=1000&filter="+url.QueryEscape(tc.cql2))
			if len(want) < 10 || !slices.Equal(got, want) {
				t.Fatalf("GDAL read %d buildings, the server's filter selects %d", len(got), len(want))
			}
			t.Logf("%s: %d buildings", tc.where, len(got))
		})
	}
}

// wholeSamples imports the real NRW and Berlin samples as two BL and
// returns the data directory.
func wholeSamples(t *testing.T) string {
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
	return data
}

// TestOGCBuildingsLoD2WithGDAL: GDAL's OAPIF driver, given the buildings
// collection with profile=lod2 (it forwards the URL's query to every
// request), reads every building of the real NRW and Berlin samples as a
// 3D MultiPolygon; written out and read again by GDAL, the polygon count
// and z range of each equal what GDAL's SQLite driver reads of the
// building's surfaces in the pack (server/testdata/gdal_solids.py).
func TestOGCBuildingsLoD2WithGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	python := testtool.PythonGDAL(t)
	data := wholeSamples(t)
	base := serveData(t, data)
	out := filepath.Join(t.TempDir(), "buildings.geojson")
	if text, err := exec.Command(ogr2ogr, "-f", "GeoJSON", out, "OAPIF:"+base+"/ogc/collections/buildings?profile=lod2",
		"-oo", "PAGE_SIZE=100", "-select", "gmlid").CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v\n%s", err, text)
	}
	packs, _ := filepath.Glob(filepath.Join(data, "lod2", "*", "*", "lod2.sqlite"))
	if len(packs) != 2 {
		t.Fatalf("packs %v", packs)
	}
	root, _ := testtool.ModuleRoot()
	compared := 0
	for _, pk := range packs {
		text, err := exec.Command(python, filepath.Join(root, "server", "testdata", "gdal_solids.py"), pk, out).Output()
		if err != nil {
			t.Fatalf("gdal_solids.py: %v", err)
		}
		type solid struct {
			Polygons   int
			Zmin, Zmax float64
			Dim        int
		}
		var r struct {
			Pack, GeoJSON map[string]solid
			GeoJSONType   string `json:"geojson_type"`
		}
		if err := json.Unmarshal(text, &r); err != nil {
			t.Fatal(err)
		}
		if r.GeoJSONType != "3D Multi Polygon" {
			t.Errorf("GDAL's layer is %q, want 3D Multi Polygon", r.GeoJSONType)
		}
		for id, want := range r.Pack {
			got := r.GeoJSON[id]
			if got.Dim != 3 || got.Polygons != want.Polygons || math.Abs(got.Zmin-want.Zmin) > 5e-4 || math.Abs(got.Zmax-want.Zmax) > 5e-4 {
				t.Errorf("building %s: GDAL read %+v through OAPIF, %+v from the pack", id, got, want)
			}
			compared++
		}
	}
	if compared < 250 {
		t.Errorf("%d buildings compared", compared)
	}
	t.Logf("%d buildings read through OAPIF with the pack's polygon counts and z ranges", compared)
}
