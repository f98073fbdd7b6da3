package cmd

import (
	"net/url"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestOGCFilterWithGDAL: GDAL's OAPIF driver, given an attribute filter
// (ogr2ogr -where), passes it to the server as a CQL2 text filter (GDAL
// 3.6 does so when the items operation of /ogc/api lists `cql-text` among
// the filter-lang values and the field among its parameters; newer GDAL
// reads cql2-text from the conformance) and gets exactly the features our
// own evaluation of the same filter selects, through pages of 50.
func TestOGCFilterWithGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	data := demoData(t)
	base := serveData(t, data)
	landing := "OAPIF:" + base + "/ogc"
	for _, tc := range []struct{ name, where, cql2, sent string }{
		{"equality", "surface_class = 712", "surface_class = 712", "surface_class = 712"},
		{"or", "surface_class = 709 OR surface_class = 710", "surface_class IN (709, 710)", "(surface_class = 709) OR (surface_class = 710)"},
		{"and not", "surface_class <> 712 AND gmlid LIKE '%1%'", "NOT surface_class = 712 AND gmlid LIKE '%1%'", "(surface_class <> 712) AND (gmlid LIKE '%1%')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, log := ogr2ogrWhere(t, ogr2ogr, landing, "surfaces", tc.where, 50)
			if f, ok := gdalSentFilter(log, "surfaces"); !ok || f != tc.sent {
				t.Fatalf("GDAL did not pass the filter to the server as %s (sent %q):\n%.3000s", tc.sent, f, log)
			}
			want := serverGMLIDs(t, base+"/ogc/collections/surfaces/items?limit=1000&filter="+url.QueryEscape(tc.cql2))
			if len(want) < 10 || !slices.Equal(got, want) {
				t.Fatalf("GDAL read %d features, our evaluation selects %d", len(got), len(want))
			}
		})
	}
}
