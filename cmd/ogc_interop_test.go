package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// ogcBBox is a part of the demo town with a few hundred surfaces.
const ogcBBox = "8.672,50.111,8.676,50.113"

// TestOGCWithGDAL reads the OGC API layer of `svc serve` on the demo pack
// with the independent tools: GDAL's OAPIF driver lists every collection
// and copies a bbox of the federated collection to a GeoPackage through
// small pages (the same surfaces as /v1/buildings), reads every collection;
// the coordinates in each supported CRS equal PROJ's cs2cs conversion of the
// CRS84 answer, and in the pack's own CRS the SpatiaLite geometry, to 1 mm.
func TestOGCWithGDAL(t *testing.T) {
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	cs2cs := testtool.Require(t, "cs2cs", "apt-get install proj-bin")
	spatialite := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	data := demoData(t)
	base := serveData(t, data)
	landing := "OAPIF:" + base + "/ogc"

	var cols struct {
		Collections []struct {
			ID  string   `json:"id"`
			CRS []string `json:"crs"`
		} `json:"collections"`
	}
	getJSON(t, base+"/ogc/collections", &cols)
	var ids []string
	for _, c := range cols.Collections {
		ids = append(ids, c.ID)
	}

	t.Run("ogrinfo lists every collection", func(t *testing.T) {
		out := toolOut(t, ogrinfo, "-ro", "-q", landing)
		var got []string
		for _, m := range regexp.MustCompile(`(?m)^\d+: (\S+) `).FindAllStringSubmatch(out, -1) {
			got = append(got, m[1])
		}
		if !slices.Equal(got, ids) || len(ids) < 3 {
			t.Fatalf("ogrinfo lists %v, /ogc/collections %v", got, ids)
		}
	})

	t.Run("every collection reads", func(t *testing.T) {
		for _, id := range ids {
			out := toolOut(t, ogrinfo, "-ro", "-so", "-oo", "PAGE_SIZE=1000", landing, id)
			m := regexp.MustCompile(`Feature Count: (\d+)`).FindStringSubmatch(out)
			if m == nil || m[1] == "0" {
				t.Errorf("%s: %s", id, out)
			}
		}
	})

	// GDAL 3.6 (Debian 12) has no CRS option in its OAPIF driver (3.7+):
	// its GeoJSON driver reads a page of every collection in every CRS; the
	// coordinates themselves are checked against PROJ and SpatiaLite below.
	t.Run("GDAL reads every collection in every CRS", func(t *testing.T) {
		for _, c := range cols.Collections {
			if len(c.CRS) != len(geo.SupportedCRS) {
				t.Fatalf("%s lists %d CRS", c.ID, len(c.CRS))
			}
			for _, crs := range c.CRS {
				u := base + "/ogc/collections/" + c.ID + "/items?limit=5&f=json&crs=" + url.QueryEscape(crs)
				out := toolOut(t, ogrinfo, "-ro", "-al", "-q", u)
				if n := strings.Count(out, "MULTIPOLYGON"); n != 5 {
					t.Fatalf("%s in %s: GDAL read %d features:\n%.500s", c.ID, crs, n, out)
				}
			}
		}
	})

	t.Run("bbox through pages equals /v1/buildings", func(t *testing.T) {
		gpkg := filepath.Join(t.TempDir(), "b.gpkg")
		s := strings.Split(ogcBBox, ",")
		toolOut(t, ogr2ogr, "-f", "GPKG", gpkg, landing, "surfaces", "-spat", s[0], s[1], s[2], s[3], "-oo", "PAGE_SIZE=37")
		csv := toolOut(t, ogr2ogr, "-f", "CSV", "/vsistdout/", gpkg, "-sql", "SELECT id FROM surfaces")
		got := strings.Fields(csv)[1:]
		sort.Strings(got)
		var want []string
		cursor := ""
		for {
			var page struct {
				Features []struct {
					Properties struct {
						SurfaceID  int64  `json:"surface_id"`
						Bundesland string `json:"bundesland"`
					} `json:"properties"`
				} `json:"features"`
				Svc struct {
					Next string `json:"next"`
				} `json:"svc"`
			}
			getJSON(t, base+"/v1/buildings?limit=100&bbox="+ogcBBox+cursor, &page)
			for _, f := range page.Features {
				want = append(want, fmt.Sprintf("%s.%d", f.Properties.Bundesland, f.Properties.SurfaceID))
			}
			if page.Svc.Next == "" {
				break
			}
			cursor = "&cursor=" + page.Svc.Next
		}
		sort.Strings(want)
		for i := range got {
			got[i] = strings.Trim(got[i], `"`)
		}
		if len(want) < 50 || !slices.Equal(got, want) {
			t.Fatalf("GDAL copied %d surfaces, /v1/buildings has %d", len(got), len(want))
		}
	})

	// The CRS84 page is the reference; every other CRS must be its PROJ
	// conversion.
	items := func(t *testing.T, coll, crs string) ([]string, [][3]float64) {
		u := base + "/ogc/collections/" + coll + "/items?limit=40&bbox=" + ogcBBox
		if crs != "" {
			u += "&crs=" + url.QueryEscape(crs)
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "<" + crsOrDefault(crs) + ">"; resp.StatusCode != 200 || resp.Header.Get("Content-Crs") != want {
			t.Fatalf("%s: %d, Content-Crs %q (want %q): %.300s", u, resp.StatusCode, resp.Header.Get("Content-Crs"), want, body)
		}
		var fc struct {
			Features []struct {
				ID       string `json:"id"`
				Geometry struct {
					Coordinates [][][][]float64 `json:"coordinates"`
				} `json:"geometry"`
			} `json:"features"`
		}
		if err := json.Unmarshal(body, &fc); err != nil {
			t.Fatal(err)
		}
		var fids []string
		var pts [][3]float64
		for _, f := range fc.Features {
			fids = append(fids, f.ID)
			for _, poly := range f.Geometry.Coordinates {
				for _, ring := range poly {
					for _, p := range ring {
						pts = append(pts, [3]float64{p[0], p[1], p[2]})
					}
				}
			}
		}
		return fids, pts
	}
	refIDs, ref := items(t, "surfaces-he", "")
	if len(ref) == 0 {
		t.Fatal("no coordinates in the reference page")
	}
	for _, c := range geo.SupportedCRS[1:] {
		t.Run("crs "+c.URI(), func(t *testing.T) {
			fids, got := items(t, "surfaces-he", c.URI())
			if !slices.Equal(fids, refIDs) || len(got) != len(ref) {
				t.Fatalf("%d features %d points, reference %d features %d points", len(fids), len(got), len(refIDs), len(ref))
			}
			var in bytes.Buffer
			for _, p := range ref {
				fmt.Fprintf(&in, "%.9f %.9f\n", p[0], p[1])
			}
			cmd := exec.Command(cs2cs, "-f", "%.9f", "OGC:CRS84", "EPSG:"+strconv.Itoa(c.EPSG))
			cmd.Stdin = &in
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("cs2cs: %v", err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			tol := 0.001
			if !c.Projected() {
				tol = 1e-8
			}
			worst := 0.0
			for i, l := range lines {
				f := strings.Fields(l)
				x, _ := strconv.ParseFloat(f[0], 64)
				y, _ := strconv.ParseFloat(f[1], 64)
				// Our output is rounded to the CRS's precision (3 decimals
				// for metres, 8 for degrees): allow half a unit of it.
				d := math.Max(math.Abs(got[i][0]-x), math.Abs(got[i][1]-y))
				worst = math.Max(worst, d)
				if d > tol || got[i][2] != ref[i][2] {
					t.Fatalf("point %d: %v, PROJ %.9f %.9f (from %v)", i, got[i], x, y, ref[i])
				}
			}
			t.Logf("%d points, worst difference to PROJ %.2g", len(lines), worst)
		})
	}

	t.Run("EPSG:25832 equals the SpatiaLite pack", func(t *testing.T) {
		fids, got := items(t, "surfaces-he", "http://www.opengis.net/def/crs/EPSG/0/25832")
		var sids []string
		for _, id := range fids {
			sids = append(sids, strings.TrimPrefix(id, "he."))
		}
		dbs, _ := filepath.Glob(filepath.Join(data, "lod2", "he", "*", "lod2.sqlite"))
		if len(dbs) != 1 {
			t.Fatalf("he pack: %v", dbs)
		}
		out := toolOut(t, spatialite, dbs[0], "SELECT surface_id, AsGeoJSON(geom, 6) FROM surfaces WHERE surface_id IN ("+strings.Join(sids, ",")+")")
		byID := map[string][][][][]float64{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			id, js, _ := strings.Cut(l, "|")
			var g struct {
				Coordinates [][][][]float64 `json:"coordinates"`
			}
			if err := json.Unmarshal([]byte(js), &g); err != nil {
				t.Fatalf("spatialite line %q: %v", l, err)
			}
			byID[id] = g.Coordinates
		}
		i := 0
		for _, sid := range sids {
			for _, poly := range byID[sid] {
				for _, ring := range poly {
					for _, p := range ring {
						if i >= len(got) {
							t.Fatalf("SpatiaLite has more points than the answer")
						}
						if math.Abs(p[0]-got[i][0]) > 0.001 || math.Abs(p[1]-got[i][1]) > 0.001 {
							t.Fatalf("surface %s: %v, SpatiaLite %v", sid, got[i], p)
						}
						i++
					}
				}
			}
		}
		if i != len(got) || i == 0 {
			t.Fatalf("compared %d of %d points", i, len(got))
		}
	})

	t.Run("HTML pages", func(t *testing.T) {
		for _, path := range []string{"/ogc", "/ogc/collections", "/ogc/collections/surfaces/items?limit=20&bbox=" + ogcBBox, "/ogc/collections/roofs/items/" + refIDs[0]} {
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("Accept", "text/html,application/xhtml+xml")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if path == "/ogc/collections/roofs/items/"+refIDs[0] {
				// The first surface of the page need not be a roof.
				if resp.StatusCode != 200 && resp.StatusCode != 404 {
					t.Errorf("%s: %d", path, resp.StatusCode)
				}
				continue
			}
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !bytes.Contains(body, []byte("</html>")) {
				t.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if strings.Contains(path, "items") && (!bytes.Contains(body, []byte("<svg")) || !bytes.Contains(body, []byte("<table"))) {
				t.Errorf("%s: no map or table", path)
			}
		}
	})
}

func crsOrDefault(c string) string {
	if c == "" {
		return geo.CRS84.URI()
	}
	return c
}

func toolOut(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
	}
	return string(out)
}
