package cmd

import (
	"encoding/csv"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
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
			cmd := exec.Command(ogr2ogr, "-f", "CSV", "/vsistdout/", landing, "surfaces", "-where", tc.where,
				"-oo", "PAGE_SIZE=50", "-select", "gmlid", "--config", "CPL_DEBUG", "ON")
			cmd.Env = append(os.Environ(), "CPL_DEBUG=ON")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("ogr2ogr: %v\n%s", err, stderr.String())
			}
			sent := "filter=" + url.QueryEscape(tc.sent)
			if !strings.Contains(strings.ReplaceAll(stderr.String(), "%20", "+"), sent) {
				t.Fatalf("GDAL did not pass the filter to the server as %s:\n%.3000s", sent, stderr.String())
			}
			rd := csv.NewReader(strings.NewReader(string(out)))
			rd.FieldsPerRecord = -1 // GDAL ends the header with a comma
			rows, err := rd.ReadAll()
			if err != nil || len(rows) < 2 {
				t.Fatalf("GDAL's CSV: %v\n%q", err, out[:min(len(out), 300)])
			}
			var got []string
			for _, r := range rows[1:] {
				got = append(got, r[0])
			}
			var want []string
			next := base + "/ogc/collections/surfaces/items?limit=1000&filter=" + url.QueryEscape(tc.cql2)
			for next != "" {
				var page struct {
					Features []struct {
						Properties struct {
							GMLID string `json:"gmlid"`
						} `json:"properties"`
					} `json:"features"`
					Links []struct{ Rel, Href string } `json:"links"`
				}
				getJSON(t, next, &page)
				for _, f := range page.Features {
					want = append(want, f.Properties.GMLID)
				}
				next = ""
				for _, l := range page.Links {
					if l.Rel == "next" {
						next = l.Href
					}
				}
			}
			if len(want) < 10 || !slices.Equal(got, want) {
				t.Fatalf("GDAL read %d features, our evaluation selects %d", len(got), len(want))
			}
		})
	}
}
