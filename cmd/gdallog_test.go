package cmd

import (
	"encoding/csv"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// gdalFetches returns the URLs GDAL fetched, in order, from its debug log
// (CPL_DEBUG=ON writes "HTTP: Fetch(<url>)" per request).
func gdalFetches(log string) []*url.URL {
	var out []*url.URL
	for _, line := range strings.Split(log, "\n") {
		_, rest, ok := strings.Cut(line, "HTTP: Fetch(")
		if !ok {
			continue
		}
		if u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(rest), ")")); err == nil {
			out = append(out, u)
		}
	}
	return out
}

// gdalSentFilter returns the filter (decoded) of the last items request
// GDAL sent for collection coll, and whether it sent one.
func gdalSentFilter(log, coll string) (string, bool) {
	filter, sent := "", false
	for _, u := range gdalFetches(log) {
		if strings.HasSuffix(u.Path, "/collections/"+coll+"/items") && u.Query().Has("filter") {
			filter, sent = u.Query().Get("filter"), true
		}
	}
	return filter, sent
}

// ogr2ogrWhere reads layer coll of the OAPIF landing page with ogr2ogr
// -where (pages of pageSize, the gmlid field as CSV, GDAL's debug log on)
// and returns the gml:ids in GDAL's order and the debug log.
func ogr2ogrWhere(t *testing.T, ogr2ogr, landing, coll, where string, pageSize int) ([]string, string) {
	t.Helper()
	cmd := exec.Command(ogr2ogr, "-f", "CSV", "/vsistdout/", landing, coll, "-where", where,
		"-oo", "PAGE_SIZE="+strconv.Itoa(pageSize), "-select", "gmlid", "--config", "CPL_DEBUG", "ON")
	cmd.Env = append(os.Environ(), "CPL_DEBUG=ON")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ogr2ogr: %v\n%s", err, stderr.String())
	}
	rd := csv.NewReader(strings.NewReader(string(out)))
	rd.FieldsPerRecord = -1 // GDAL ends the header with a comma
	rows, err := rd.ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("GDAL's CSV: %v\n%q", err, out[:min(len(out), 300)])
	}
	var ids []string
	for _, r := range rows[1:] {
		ids = append(ids, r[0])
	}
	return ids, stderr.String()
}

// serverGMLIDs follows the next links from items URL next and returns the
// gmlid property of every feature, in the server's order.
func serverGMLIDs(t *testing.T, next string) []string {
	t.Helper()
	var out []string
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
			out = append(out, f.Properties.GMLID)
		}
		next = ""
		for _, l := range page.Links {
			if l.Rel == "next" {
				next = l.Href
			}
		}
	}
	return out
}
