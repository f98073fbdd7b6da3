package cmd

import (
	"context"
	"encoding/csv"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
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
	base := serveData(t, data)
	landing := "OAPIF:" + base + "/ogc"
	for _, tc := range []struct{ name, where, cql2, sent string }{
		{"flat roofs over 200 m²", "roof_type = '1000' AND roof_area_m2 > 200", "roof_type = '1000' AND roof_area_m2 > 200",
			"(roof_type = '1000') AND (roof_area_m2 > 200)"},
		// GDAL 3.6 types the fields from the first page (a field null there
		// becomes a string, storeys in these samples): numbers it has seen.
		{"or", "height_m > 20 OR function = '31001_2463'", "height_m > 20 OR function = '31001_2463'", "(height_m > 20) OR (function = '31001_2463')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(ogr2ogr, "-f", "CSV", "/vsistdout/", landing, "buildings", "-where", tc.where,
				"-oo", "PAGE_SIZE=20", "-select", "gmlid", "--config", "CPL_DEBUG", "ON")
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
			rd.FieldsPerRecord = -1
			rows, err := rd.ReadAll()
			if err != nil || len(rows) < 2 {
				t.Fatalf("GDAL's CSV: %v\n%q", err, out[:min(len(out), 300)])
			}
			var got []string
			for _, r := range rows[1:] {
				got = append(got, r[0])
			}
			var want []string
			next := base + "/ogc/collections/buildings/items?limit=1000&filter=" + url.QueryEscape(tc.cql2)
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
				t.Fatalf("GDAL read %d buildings, the server's filter selects %d", len(got), len(want))
			}
			t.Logf("%s: %d buildings", tc.where, len(got))
		})
	}
}
