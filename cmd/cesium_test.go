package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/scalerun"
	"github.com/svc-geodata/svc/internal/testtool"
)

// cesiumShot, when set, saves a PNG of the final CesiumJS view there (for a
// person to look at; the test asserts nothing about the pixels).
var cesiumShot = flag.String("cesium.screenshot", "", "write a PNG of the CesiumJS view to this path")

// cesiumReport is what cmd/testdata/cesium/index.html reports.
type cesiumReport struct {
	Done     bool
	OK       bool
	Cesium   string
	WebGL    string
	Errors   []string
	Warnings []string
	External []string
	Tilesets map[string]cesiumTileset
}

type cesiumTileset struct {
	URL                      string
	TileLoad                 int
	TileFailed               []string
	TilesLoaded              bool
	NumberOfLoadedTilesTotal int
	GeometryByteLength       int
	FeaturesLength           int
	Coverage                 float64
	Features                 []struct {
		Gmlid      string `json:"gmlid"`
		BuildingID string `json:"building_id"`
	}
	Asset struct{ Version string }
}

// TestTilesetsLoadInCesium runs `svc demo`, starts `svc serve` and loads
// the tileset_url of a building tileset (3D Tiles 1.1, glb with
// EXT_mesh_features/EXT_structural_metadata) and of a terrain mesh (3D
// Tiles 1.0, Draco b3dm) in CesiumJS in headless Chromium. The page comes
// from a second origin, so svc's CORS headers are exercised too.
func TestTilesetsLoadInCesium(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	testtool.Node(t, "cesium")
	cesiumDir := filepath.Join(testtool.NodeModules(t), "cesium", "Build", "Cesium")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // the demo alone is 15 s, minutes under -race
	defer cancel()

	data := t.TempDir()
	if out, err := run(ctx, "demo", "--data", data); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	base := serveInBackground(t, data)
	buildings := tilesetURL(t, base+"/v1/tilesets?bbox=8.6,50.0,8.8,50.2", "tilesets", "he")
	terrain := tilesetURL(t, base+"/v1/terrain-mesh/datasets", "datasets", "he")

	page := newCesiumPage(t, cesiumDir)
	// In this order (url.Values.Encode would sort): the final view frames
	// the last tileset, the buildings.
	// The same building tileset opened through the API's redirect: its
	// relative tile URIs then resolve below /v1/tilesets/{id}/.
	redirect := base + "/v1/tilesets/" + tilesetID(t, base+"/v1/tilesets?bbox=8.6,50.0,8.8,50.2", "he") + "/tileset.json"
	query := "redirect=" + url.QueryEscape(redirect) + "&terrain=" + url.QueryEscape(terrain) + "&buildings=" + url.QueryEscape(buildings)
	if *cesiumShot != "" {
		query += "&shot=1"
	}
	rep := page.load(ctx, t, chromium, page.URL+"/?"+query)
	t.Logf("CesiumJS %s (%s): %+v", rep.Cesium, rep.WebGL, rep.Tilesets)
	for _, w := range rep.Warnings {
		t.Logf("console.warn: %s", w)
	}
	if !rep.OK || len(rep.Errors) > 0 {
		t.Errorf("page reports ok=%v, errors %q", rep.OK, rep.Errors)
	}
	if len(rep.External) > 0 {
		t.Errorf("page fetched from outside loopback: %q", rep.External)
	}
	checkCesiumTileset(t, rep, "terrain", terrain, "1.0")
	checkCesiumTileset(t, rep, "buildings", buildings, "1.1")
	checkCesiumTileset(t, rep, "redirect", redirect, "1.1")
	// Seen from above, the terrain mesh hides the globe everywhere: no
	// triangle is culled as a back face.
	if c := rep.Tilesets["terrain"].Coverage; c < 0.99 {
		t.Errorf("terrain: picks hit the mesh at %.0f%% of the view from above, want 100%%", 100*c)
	}
	checkCesiumFeatures(t, base, rep.Tilesets["buildings"])
}

// checkCesiumTileset asserts that the named tileset loaded from want with
// at least one tile content and no failed tile.
func checkCesiumTileset(t *testing.T, rep cesiumReport, name, want, version string) {
	t.Helper()
	ts, ok := rep.Tilesets[name]
	switch {
	case !ok:
		t.Errorf("%s: not in the report", name)
	case ts.URL != want:
		t.Errorf("%s: loaded %s, want %s", name, ts.URL, want)
	case len(ts.TileFailed) > 0:
		t.Errorf("%s: tileFailed %q", name, ts.TileFailed)
	case ts.TileLoad < 1 || ts.NumberOfLoadedTilesTotal < 1 || ts.GeometryByteLength <= 0 || !ts.TilesLoaded:
		t.Errorf("%s: %d tileLoad events, %d tiles loaded, %d geometry bytes, tilesLoaded=%v", name,
			ts.TileLoad, ts.NumberOfLoadedTilesTotal, ts.GeometryByteLength, ts.TilesLoaded)
	case ts.Asset.Version != version:
		t.Errorf("%s: asset.version %q, want %q", name, ts.Asset.Version, version)
	}
}

// checkCesiumFeatures asserts that Cesium read building features whose
// gmlid is a building svc serves, in the Bundesland of the tileset.
func checkCesiumFeatures(t *testing.T, base string, ts cesiumTileset) {
	t.Helper()
	if ts.FeaturesLength < 1 || len(ts.Features) == 0 {
		t.Fatalf("buildings: Cesium found %d features", ts.FeaturesLength)
	}
	for _, f := range ts.Features {
		if f.Gmlid == "" || f.BuildingID == "" {
			t.Errorf("feature without gmlid/building_id: %+v", f)
			continue
		}
		var b struct {
			Gmlid          string      `json:"gmlid"`
			BundeslandCode string      `json:"bundesland_code"`
			BuildingID     json.Number `json:"building_id"`
		}
		getJSON(t, base+"/v1/buildings/"+url.PathEscape(f.Gmlid), &b)
		if b.Gmlid != f.Gmlid || b.BundeslandCode != "he" || b.BuildingID.String() != f.BuildingID {
			t.Errorf("feature gmlid %q: svc has %+v", f.Gmlid, b)
		}
	}
}

// serveInBackground starts `svc serve` on a free port until the test ends
// and returns its base URL.
func serveInBackground(t *testing.T, data string) string {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, "serve", "--data", data, "--addr", addr, "--log-level", "warn")
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve exited with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not shut down")
		}
	})
	base := "http://" + addr
	waitUp(t, base+"/healthz")
	return base
}

// tilesetURL reads a listing and returns the tileset_url of the entry of bl.
func tilesetURL(t *testing.T, listing, key, bl string) string {
	t.Helper()
	var doc map[string]json.RawMessage
	getJSON(t, listing, &doc)
	var entries []struct {
		BundeslandCode string `json:"bundesland_code"`
		TilesetURL     string `json:"tileset_url"`
	}
	if err := json.Unmarshal(doc[key], &entries); err != nil {
		t.Fatalf("%s: %q: %v", listing, key, err)
	}
	for _, e := range entries {
		if e.BundeslandCode == bl && e.TilesetURL != "" {
			return e.TilesetURL
		}
	}
	t.Fatalf("%s lists no tileset_url for %s: %+v", listing, bl, entries)
	return ""
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %.300s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// cesiumPage serves the test page and CesiumJS on its own loopback origin
// and receives the page's report.
type cesiumPage struct {
	*httptest.Server
	result chan []byte
}

func newCesiumPage(t *testing.T, cesiumDir string) *cesiumPage {
	t.Helper()
	p := &cesiumPage{result: make(chan []byte, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join("testdata", "cesium", "index.html"))
	})
	mux.HandleFunc("GET /state.html", func(w http.ResponseWriter, r *http.Request) {
		// The page of make bench-scale's CesiumJS judge, one tileset here.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(scalerun.StatePage())
	})
	mux.HandleFunc("GET /style.html", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join("testdata", "cesium", "style.html"))
	})
	mux.Handle("GET /Cesium/", http.StripPrefix("/Cesium/", http.FileServer(http.Dir(cesiumDir))))
	mux.HandleFunc("POST /result", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		select {
		case p.result <- body:
		default:
		}
	})
	mux.HandleFunc("POST /screenshot", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err := os.WriteFile(*cesiumShot, body, 0o644); err != nil {
			t.Errorf("screenshot: %v", err)
		}
	})
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

// load opens pageURL in headless Chromium and returns the page's report.
// WebGL runs on SwiftShader (CPU), as no GPU is needed or assumed. The
// browser runs in real time (no --virtual-time-budget: under virtual time
// CesiumJS's worker and render loop take minutes) until the page posts its
// report, then its process group is killed.
func (p *cesiumPage) load(ctx context.Context, t *testing.T, chromium, pageURL string) cesiumReport {
	t.Helper()
	body := p.loadPage(ctx, t, chromium, pageURL)
	var rep cesiumReport
	if err := json.Unmarshal(body, &rep); err != nil || !rep.Done {
		t.Fatalf("page report %.500s: %v", body, errors.Join(err, fmt.Errorf("done=%v", rep.Done)))
	}
	return rep
}

// loadPage opens pageURL in headless Chromium and returns the report the
// page POSTs to ./result.
func (p *cesiumPage) loadPage(ctx context.Context, t *testing.T, chromium, pageURL string) []byte {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
		"--no-first-run", "--no-default-browser-check", "--mute-audio", "--hide-scrollbars",
		"--window-size=1280,800", "--user-data-dir="+t.TempDir(), pageURL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { cancel(); <-exited }()

	var body []byte
	select {
	case body = <-p.result:
	case err := <-exited:
		exited <- err
		t.Fatalf("chromium exited before the page reported: %v\n%s", err, tail(stderr.String(), 2000))
	case <-ctx.Done():
		t.Fatalf("no report from the page: %v\n%s", ctx.Err(), tail(stderr.String(), 2000))
	}
	return body
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// tilesetID returns the tileset_id of the listing entry of bl.
func tilesetID(t *testing.T, listing, bl string) string {
	t.Helper()
	resp, err := http.Get(listing)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Tilesets []struct {
			TilesetID  string `json:"tileset_id"`
			RegionCode string `json:"region_code"`
		} `json:"tilesets"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	for _, e := range out.Tilesets {
		if e.RegionCode == bl {
			return e.TilesetID
		}
	}
	t.Fatalf("%s lists no tileset of %s", listing, bl)
	return ""
}
