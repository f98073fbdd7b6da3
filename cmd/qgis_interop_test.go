package cmd

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestOGCWithQGIS reads the OGC API layer of `svc serve` on the demo pack
// with QGIS's own OGC API - Features provider (OAPIF, not GDAL's driver),
// headless through PyQGIS, as a QGIS user meets it:
//   - every collection opens as a valid layer;
//   - the feature count QGIS shows before downloading anything equals the
//     server's numberMatched (roofs included), and so does the number of
//     features it downloads;
//   - QGIS pages by what the /ogc/api document declares in
//     components.parameters.limit (the only place QGIS reads it): its own
//     rule makes 1000 of default 10 and maximum 10000, not its fallback 100;
//   - a page size above that maximum, typed into the connection, loads
//     every feature in pages of the declared maximum (QGIS holds the page
//     size to it; a client that does not gets server-limited pages);
//   - a bbox request (setFilterRect) gives the surfaces the server gives;
//   - the XYZ hillshade layer renders a map that is not blank.
//
// The requests QGIS makes are counted by a small proxy in front of svc
// (svc's --base-url points at it, so the next links go through it too).
func TestOGCWithQGIS(t *testing.T) {
	py := testtool.PythonQGIS(t)
	data := demoData(t)

	// The proxy listens first: svc's links must name it.
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxyBase := "http://" + pl.Addr().String()
	svcBase := serveData(t, data, "--base-url", proxyBase)
	target, _ := url.Parse(svcBase)
	var mu sync.Mutex
	var seen []string // "<status> <request URI>"
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/__requests" {
			mu.Lock()
			defer mu.Unlock()
			_ = json.NewEncoder(w).Encode(append([]string{}, seen...))
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: 200}
		rp.ServeHTTP(sw, r)
		mu.Lock()
		seen = append(seen, strconv.Itoa(sw.status)+" "+r.URL.RequestURI())
		mu.Unlock()
	})}
	go proxy.Serve(pl)
	t.Cleanup(func() { proxy.Close() })

	// What the server says: collections, numberMatched, the declared
	// maximum of limit, the hillshade's TileJSON.
	var cols struct {
		Collections []struct {
			ID     string `json:"id"`
			Extent struct {
				Spatial struct {
					BBox [][]float64 `json:"bbox"`
				} `json:"spatial"`
			} `json:"extent"`
		} `json:"collections"`
	}
	getJSON(t, proxyBase+"/ogc/collections", &cols)
	var api struct {
		Components struct {
			Parameters map[string]struct {
				Schema struct {
					Maximum int `json:"maximum"`
					Default any `json:"default"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"components"`
	}
	getJSON(t, proxyBase+"/ogc/api", &api)
	maxLimit := api.Components.Parameters["limit"].Schema.Maximum
	defLimit, _ := api.Components.Parameters["limit"].Schema.Default.(float64)
	// QGIS 3.22's page size from the declared limit (qgsoapifprovider.cpp):
	// the default, raised to 1000 and held to the maximum; without a
	// declared limit it pages by 100.
	qgisPage := min(max(1000, int(defLimit)), maxLimit)
	var tj struct {
		Tiles   []string  `json:"tiles"`
		MinZoom int       `json:"minzoom"`
		MaxZoom int       `json:"maxzoom"`
		Bounds  []float64 `json:"bounds"`
	}
	getJSON(t, proxyBase+"/v1/terrain/hillshade.json", &tj)
	if len(tj.Tiles) != 1 {
		t.Fatalf("hillshade TileJSON: %+v", tj)
	}

	var ids []string
	bboxes := map[string][]float64{}
	for _, c := range cols.Collections {
		ids = append(ids, c.ID)
		// The demo town of he for the federated collections, the middle
		// of its extent for each BL's own.
		b := []float64{8.672, 50.111, 8.676, 50.113}
		if strings.HasPrefix(c.ID, "surfaces-") && c.ID != "surfaces-he" {
			e := c.Extent.Spatial.BBox[0]
			w, h := (e[2]-e[0])/3, (e[3]-e[1])/3
			b = []float64{e[0] + w, e[1] + h, e[2] - w, e[3] - h}
		}
		bboxes[c.ID] = b
	}
	if len(ids) < 3 {
		t.Fatalf("collections: %v", ids)
	}
	// Downloaded whole: roofs and one BL's collection; the federated
	// surfaces (over 10,000) with the page size above the maximum.
	download := []string{"roofs", "surfaces-he"}
	cfg := map[string]any{
		"ogc": proxyBase + "/ogc", "requests": proxyBase + "/__requests", "collections": ids,
		"bboxes": bboxes, "download": download, "big_collection": "surfaces", "big_page": 50000,
		"xyz": tj.Tiles[0], "zmin": tj.MinZoom, "zmax": tj.MaxZoom,
		"extent": []float64{8.672, 50.1128, 8.684, 50.1160}, "png": filepath.Join(t.TempDir(), "hillshade.png"),
	}
	arg, _ := json.Marshal(cfg)
	cmd := exec.Command(py, filepath.Join("testdata", "qgis", "oapif.py"), string(arg))
	cmd.Env = append(cmd.Environ(), "QT_QPA_PLATFORM=offscreen", "XDG_RUNTIME_DIR="+t.TempDir(), "HOME="+t.TempDir())
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("PyQGIS: %v\n%s\n%s", err, out, stderr)
	}
	var res struct {
		QGIS        string `json:"qgis"`
		Collections map[string]struct {
			Valid               bool     `json:"valid"`
			Error               string   `json:"error"`
			CountBefore         int64    `json:"count_before_download"`
			RequestsForCount    []string `json:"requests_for_count"`
			IDs                 []string `json:"ids"`
			RequestsForFeatures []string `json:"requests_for_features"`
			CountAfter          int64    `json:"count_after_download"`
			BBoxIDs             []string `json:"bbox_ids"`
		} `json:"collections"`
		BigPage struct {
			Valid    bool     `json:"valid"`
			IDs      []string `json:"ids"`
			Requests []string `json:"requests"`
		} `json:"big_page"`
		Hillshade struct {
			Valid           bool     `json:"valid"`
			Error           string   `json:"error"`
			DistinctColours int      `json:"distinct_colours"`
			BackgroundShare float64  `json:"background_share"`
			Errors          []string `json:"errors"`
		} `json:"hillshade"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("PyQGIS output: %v\n%.2000s", err, out)
	}
	t.Logf("QGIS %s read %d collections in %s", res.QGIS, len(res.Collections), time.Since(start).Round(time.Millisecond))

	// itemsLimits lists the limit of every items request among reqs, and
	// the requests that did not answer 200.
	itemsLimits := func(reqs []string) (limits []int, failed []string) {
		for _, r := range reqs {
			status, uri, _ := strings.Cut(r, " ")
			if status != "200" {
				failed = append(failed, r)
			}
			u, err := url.Parse(uri)
			if err != nil || !strings.HasSuffix(u.Path, "/items") {
				continue
			}
			n, _ := strconv.Atoi(u.Query().Get("limit"))
			limits = append(limits, n)
		}
		return limits, failed
	}

	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			c, ok := res.Collections[id]
			if !ok || !c.Valid {
				t.Fatalf("QGIS: layer not valid: %+v", c)
			}
			matched, all := serverItems(t, proxyBase, id, "")
			t.Run("count before download equals numberMatched", func(t *testing.T) {
				// Opening the layer may read one small page (QGIS asks for 10
				// to learn the fields); no more: the count must not cost a
				// download.
				limits, failed := itemsLimits(c.RequestsForCount)
				for _, l := range limits {
					if l != 10 || len(failed) > 0 {
						t.Fatalf("QGIS downloaded features to count them (count %d): %v", c.CountBefore, c.RequestsForCount)
					}
				}
				if c.CountBefore != int64(len(all)) || matched != int64(len(all)) {
					t.Fatalf("QGIS shows %d features before downloading, numberMatched %d (-1: none), the server pages %d", c.CountBefore, matched, len(all))
				}
			})
			t.Run("bbox equals the server's", func(t *testing.T) {
				b := bboxes[id]
				_, want := serverItems(t, proxyBase, id, fmt.Sprintf("%g,%g,%g,%g", b[0], b[1], b[2], b[3]))
				if len(want) == 0 || !slices.Equal(c.BBoxIDs, want) {
					t.Fatalf("bbox %v: QGIS %d features, server %d", b, len(c.BBoxIDs), len(want))
				}
			})
			if !slices.Contains(download, id) {
				return
			}
			t.Run("downloaded features equal the server's", func(t *testing.T) {
				if !slices.Equal(c.IDs, all) || int64(len(all)) != matched || c.CountAfter != matched {
					t.Fatalf("QGIS read %d features (count %d), the server pages %d, numberMatched %d", len(c.IDs), c.CountAfter, len(all), matched)
				}
			})
			t.Run("page size follows the declared limit", func(t *testing.T) {
				limits, failed := itemsLimits(c.RequestsForFeatures)
				if len(failed) > 0 || len(limits) == 0 {
					t.Fatalf("requests %v", c.RequestsForFeatures)
				}
				if maxLimit <= 0 || defLimit <= 0 {
					t.Fatalf("QGIS paged by %v: /ogc/api declares no maximum or default in components.parameters.limit: %+v", limits, api.Components)
				}
				for _, l := range limits {
					if l != qgisPage {
						t.Fatalf("QGIS paged by %v; from the declared default %g and maximum %d it pages by %d", limits, defLimit, maxLimit, qgisPage)
					}
				}
			})
		})
	}

	// A user's page size above the maximum: QGIS holds it to the declared
	// maximum (and a client that does not read it gets server-limited
	// pages, TestOGCLimitClamped); every feature arrives, in pages of the
	// maximum.
	t.Run("page size above the maximum", func(t *testing.T) {
		_, all := serverItems(t, proxyBase, "surfaces", "")
		limits, failed := itemsLimits(res.BigPage.Requests)
		if !res.BigPage.Valid || len(failed) > 0 || !slices.Equal(res.BigPage.IDs, all) {
			t.Fatalf("pageSize=50000: valid %v, %d features of %d, failed requests %v", res.BigPage.Valid, len(res.BigPage.IDs), len(all), failed)
		}
		if len(all) <= maxLimit {
			t.Fatalf("the demo's buildings need more than %d features: %d", maxLimit, len(all))
		}
		pages := 0
		for _, l := range limits {
			switch l {
			case 10: // QGIS's first look at the collection
			case maxLimit:
				pages++
			default:
				t.Fatalf("QGIS paged by %v, the declared maximum is %d", limits, maxLimit)
			}
		}
		if want := (len(all) + maxLimit - 1) / maxLimit; pages != want {
			t.Fatalf("QGIS made %d pages of %d for %d features, want %d: %v", pages, maxLimit, len(all), want, res.BigPage.Requests)
		}
	})

	t.Run("hillshade renders", func(t *testing.T) {
		h := res.Hillshade
		if !h.Valid || len(h.Errors) > 0 {
			t.Fatalf("XYZ layer: %+v", h)
		}
		// The extent lies inside the demo DGM of he: every pixel is
		// shaded relief (a missing or transparent tile shows the magenta
		// background), in more than one grey (a blank map has one).
		if h.DistinctColours < 4 || h.BackgroundShare > 0.05 {
			t.Fatalf("rendered map has %d colours, %.0f%% background: %s", h.DistinctColours, 100*h.BackgroundShare, cfg["png"])
		}
		var tiles int
		mu.Lock()
		for _, r := range seen {
			if strings.Contains(r, "/v1/terrain/hillshade/") && strings.HasPrefix(r, "200 ") {
				tiles++
			}
		}
		mu.Unlock()
		if tiles == 0 {
			t.Fatal("QGIS fetched no hillshade tile")
		}
	})
}

// serverItems pages a collection (optionally in a bbox) through the server
// itself and returns its numberMatched (-1 when absent) and the sorted ids.
func serverItems(t *testing.T, base, coll, bbox string) (int64, []string) {
	t.Helper()
	u := base + "/ogc/collections/" + coll + "/items?f=json&limit=1000"
	if bbox != "" {
		u += "&bbox=" + bbox
	}
	matched := int64(-1)
	var ids []string
	for first := true; u != ""; first = false {
		var page struct {
			NumberMatched *int64 `json:"numberMatched"`
			Features      []struct {
				ID string `json:"id"`
			} `json:"features"`
			Links []struct {
				Href string `json:"href"`
				Rel  string `json:"rel"`
			} `json:"links"`
		}
		getJSON(t, u, &page)
		if first && page.NumberMatched != nil {
			matched = *page.NumberMatched
		}
		for _, f := range page.Features {
			ids = append(ids, f.ID)
		}
		u = ""
		for _, l := range page.Links {
			if l.Rel == "next" {
				u = l.Href
			}
		}
	}
	sort.Strings(ids)
	return matched, ids
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
