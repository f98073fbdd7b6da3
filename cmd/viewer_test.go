package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestViewerInBrowser drives the built-in viewer in headless Chromium
// (SwiftShader WebGL) against `svc serve` on the demo pack: the map loads
// with building footprints, a real mouse click on a building shows its gmlid
// and the roof area the API gives, a click beside it the elevation the API
// gives, the 3D view loads every tileset and picking a building there shows
// it too. Screenshots of both views are saved (SVC_TEST_ARTIFACTS, else a
// temporary directory) and must not be blank; no console error may occur
// and no request may leave the server's origin. The page is also checked at
// 360 px wide and from the keyboard.
func TestViewerInBrowser(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	base := serveInBackground(t, demoData(t))
	artefacts := artefactDir(t)

	bctx := headlessChromium(t, ctx, chromium, 1200, 800)

	var mu sync.Mutex
	var consoleErrors, external, missing []string
	origin, _ := url.Parse(base)
	chromedp.ListenTarget(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				consoleErrors = append(consoleErrors, strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			consoleErrors = append(consoleErrors, e.ExceptionDetails.Error())
		case *network.EventResponseReceived:
			// The page's own files must all exist (a library asking for a
			// file the vendoring left out shows here).
			if u, err := url.Parse(e.Response.URL); err == nil && e.Response.Status >= 400 && strings.HasPrefix(u.Path, "/viewer/") {
				missing = append(missing, fmt.Sprintf("%d %s", e.Response.Status, u.Path))
			}
		case *network.EventRequestWillBeSent:
			u, err := url.Parse(e.Request.URL)
			if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != origin.Host {
				external = append(external, e.Request.URL)
			}
		}
	})
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// waitJS polls a boolean expression (the page's own state).
	waitJS := func(what, expr string, limit time.Duration) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for {
			var ok bool
			if err := chromedp.Run(bctx, chromedp.Evaluate(expr, &ok)); err == nil && ok {
				return
			}
			if time.Now().After(deadline) {
				var errs []string
				var diag string
				chromedp.Run(bctx, chromedp.Evaluate(`window.svcViewer ? svcViewer.errors : []`, &errs),
					chromedp.Evaluate(`window.svcViewer && svcViewer.globe ? JSON.stringify({globe: svcViewer.globe.scene.globe.tilesLoaded,
						tilesets: svcViewer.globeTilesets.map(t => [t.svcKind, t.tilesLoaded, t.statistics.numberOfLoadedTilesTotal])}) : ''`, &diag))
				t.Fatalf("%s: not true after %v: %s (page errors %q, console %q, %s)", what, limit, expr, errs, consoleErrors, diag)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	shot := func(name string) {
		t.Helper()
		var buf []byte
		run("screenshot "+name, chromedp.CaptureScreenshot(&buf))
		path := filepath.Join(artefacts, name+".png")
		os.WriteFile(path, buf, 0o644)
		img, err := png.Decode(bytes.NewReader(buf))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v := lumaVariance(img); v < 50 {
			t.Errorf("%s looks blank: luma variance %.1f (%s)", name, v, path)
		} else {
			t.Logf("%s: %s (luma variance %.0f)", name, path, v)
		}
	}

	// 2D: the page at / redirects to the viewer, keeping the hash that
	// places the map on the Brandenburg demo data, and draws footprints.
	run("open", chromedp.Navigate(base+"/#15.5/52.39045/13.06003"))
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	waitJS("footprints drawn", `svcViewer.map.loaded() && svcViewer.map.queryRenderedFeatures({layers: ['buildings-fill']}).length > 0`, 30*time.Second)
	var loc string
	run("location", chromedp.Location(&loc))
	if page, _, _ := strings.Cut(loc, "#"); page != base+"/viewer/" {
		t.Errorf("/ led to %s, want %s/viewer/", loc, base)
	}

	// Click the building whose footprint covers the most pixels near the centre.
	var target struct {
		Gmlid string
		X, Y  float64
	}
	run("find a building", chromedp.Evaluate(`(() => {
		const m = svcViewer.map, r = m.getContainer().getBoundingClientRect(), c = m.getCanvas();
		const w = c.clientWidth, h = c.clientHeight;
		for (let d = 0; d < Math.min(w, h) / 2; d += 6) for (const [dx, dy] of [[d,0],[-d,0],[0,d],[0,-d],[d,d],[-d,-d]]) {
			const x = w / 2 + dx, y = h / 2 + dy;
			const f = m.queryRenderedFeatures([x, y], {layers: ['buildings-fill']});
			// Well inside: the same building 4 px around the point.
			if (f.length && [[4,0],[-4,0],[0,4],[0,-4]].every(([a,b]) => {
				const g = m.queryRenderedFeatures([x + a, y + b], {layers: ['buildings-fill']});
				return g.length && g[0].properties.gmlid === f[0].properties.gmlid; }))
				return {Gmlid: f[0].properties.gmlid, X: r.left + x, Y: r.top + y};
		}
		return {Gmlid: '', X: 0, Y: 0};
	})()`, &target))
	if target.Gmlid == "" {
		t.Fatal("no building footprint under the map centre")
	}
	run("click the building", chromedp.MouseClickXY(target.X, target.Y))
	waitJS("building panel", fmt.Sprintf(`(document.getElementById('building-gmlid') || {}).textContent === %q`, target.Gmlid), 20*time.Second)
	var roof struct {
		Features []struct {
			Properties struct {
				Area float64 `json:"area_m2"`
			} `json:"properties"`
		} `json:"features"`
	}
	getJSON(t, base+"/v1/buildings/"+url.PathEscape(target.Gmlid)+"/roof", &roof)
	area := 0.0
	for _, f := range roof.Features {
		area += f.Properties.Area
	}
	var shownArea string
	run("roof area", chromedp.Text("#building-roof-area", &shownArea, chromedp.ByQuery))
	if want := fmt.Sprintf("%.2f m²", area); shownArea != want {
		t.Errorf("roof area shown %q, API %q (gmlid %s)", shownArea, want, target.Gmlid)
	}
	shot("viewer-2d")

	// Elevation: click a point without a building where the DGM has data.
	var spot struct {
		Ok   bool
		X, Y float64
	}
	for _, p := range [][2]float64{{0.15, 0.15}, {0.85, 0.15}, {0.15, 0.85}, {0.85, 0.85}, {0.5, 0.1}, {0.1, 0.5}, {0.9, 0.5}, {0.5, 0.9}} {
		var ll struct{ Lng, Lat, X, Y float64 }
		run("unproject", chromedp.Evaluate(fmt.Sprintf(`(() => { const m = svcViewer.map, r = m.getContainer().getBoundingClientRect(), c = m.getCanvas();
			const x = c.clientWidth * %g, y = c.clientHeight * %g;
			if (m.queryRenderedFeatures([x, y], {layers: ['buildings-fill']}).length) return {Lng: 0, Lat: 0, X: -1, Y: -1};
			const l = m.unproject([x, y]); return {Lng: l.lng, Lat: l.lat, X: r.left + x, Y: r.top + y}; })()`, p[0], p[1]), &ll))
		if ll.X < 0 {
			continue
		}
		var e map[string]any
		if status := getJSONStatus(base+fmt.Sprintf("/v1/terrain/elevation?lat=%.7f&lon=%.7f", ll.Lat, ll.Lng), &e); status == 200 {
			spot.Ok, spot.X, spot.Y = true, ll.X, ll.Y
			break
		}
	}
	if !spot.Ok {
		t.Fatal("no point of the view has terrain data")
	}
	run("click a point", chromedp.MouseClickXY(spot.X, spot.Y))
	waitJS("point panel", `!!(svcViewer.point && document.getElementById('point-elevation'))`, 20*time.Second)
	var pt struct{ Lat, Lon float64 }
	var shownElev string
	run("point", chromedp.Evaluate(`({Lat: svcViewer.point.lat, Lon: svcViewer.point.lon})`, &pt),
		chromedp.Text("#point-elevation", &shownElev, chromedp.ByQuery))
	var elev struct {
		Elevation float64 `json:"elevation_m"`
	}
	getJSON(t, base+fmt.Sprintf("/v1/terrain/elevation?lat=%.7f&lon=%.7f", pt.Lat, pt.Lon), &elev)
	if want := fmt.Sprintf("%.2f m (DHHN2016)", elev.Elevation); shownElev != want {
		t.Errorf("elevation shown %q, API %q at %.7f,%.7f", shownElev, want, pt.Lat, pt.Lon)
	}

	// Keyboard: the map zooms with +, and the 3D tab opens with Enter.
	var z0, z1 float64
	run("keyboard zoom", chromedp.Evaluate(`svcViewer.map.getZoom()`, &z0), chromedp.Focus("#map canvas", chromedp.ByQuery),
		chromedp.KeyEvent("+"), chromedp.Sleep(800*time.Millisecond), chromedp.Evaluate(`svcViewer.map.getZoom()`, &z1))
	if z1 <= z0 {
		t.Errorf("+ on the focused map: zoom %.2f -> %.2f", z0, z1)
	}

	// 3D: every tileset loads, a building can be picked.
	run("open 3D", chromedp.Focus("#tab-globe", chromedp.ByQuery), chromedp.KeyEvent("\r"))
	waitJS("globe ready", `!!svcViewer.globeReady`, 90*time.Second)
	waitJS("tilesets loaded", `svcViewer.tilesets.loaded + svcViewer.tilesets.failed >= svcViewer.tilesets.requested && svcViewer.tilesets.requested > 0`, 90*time.Second)
	var ts struct{ Requested, Loaded, Failed int }
	run("tileset counts", chromedp.Evaluate(`({Requested: svcViewer.tilesets.requested, Loaded: svcViewer.tilesets.loaded, Failed: svcViewer.tilesets.failed})`, &ts))
	if ts.Failed > 0 || ts.Loaded != ts.Requested {
		t.Errorf("3D tilesets: %+v", ts)
	}
	// The buildings in view are drawn (SwiftShader renders slowly: the
	// tilesets out of view and the globe's imagery may still be loading).
	waitJS("buildings drawn", `svcViewer.globeTilesets.some(t => t.svcKind === 'buildings' && t.tilesLoaded && t.statistics.numberOfLoadedTilesTotal > 0)`, 60*time.Second)
	// CesiumJS reads the server's quantized-mesh terrain: its own decoder
	// (sampleTerrainMostDetailed, the most detailed level) gives the DGM
	// height plus the undulation at a point of the Hesse demo DGM.
	var qm bool
	run("terrain provider", chromedp.Evaluate(`!!svcViewer.quantizedMesh`, &qm))
	if !qm {
		t.Error("the 3D view did not use the quantized-mesh terrain")
	} else {
		const lon, lat = 8.6705, 50.1152
		var cesiumH float64
		run("sample terrain", chromedp.Evaluate(fmt.Sprintf(`(async () => {
			const r = await Cesium.sampleTerrainMostDetailed(svcViewer.globe.terrainProvider, [Cesium.Cartographic.fromDegrees(%v, %v)]);
			return r[0].height; })()`, lon, lat), &cesiumH, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		var e struct {
			Elevation float64 `json:"elevation_m"`
		}
		getJSON(t, base+fmt.Sprintf("/v1/terrain/elevation?lat=%v&lon=%v", lat, lon), &e)
		n, _ := geoid.Default().Undulation(lon, lat)
		if d := cesiumH - (e.Elevation + n); math.Abs(d) > 0.8 {
			t.Errorf("CesiumJS terrain height %.3f m, DGM %.3f + N %.3f = %.3f (off by %.3f)", cesiumH, e.Elevation, n, e.Elevation+n, d)
		} else {
			t.Logf("CesiumJS terrain height %.3f m = DGM %.3f + N %.3f (off by %.3f m)", cesiumH, e.Elevation, n, d)
		}
	}
	var pick struct {
		Gmlid string
		X, Y  float64
	}
	run("find a 3D building", chromedp.Evaluate(`(() => {
		const v = svcViewer.globe, c = v.scene.canvas, r = c.getBoundingClientRect();
		for (let y = c.clientHeight * 0.2; y < c.clientHeight * 0.9; y += 16) for (let x = c.clientWidth * 0.1; x < c.clientWidth * 0.9; x += 16) {
			const f = v.scene.pick(new Cesium.Cartesian2(x, y));
			if (f instanceof Cesium.Cesium3DTileFeature && f.getProperty('gmlid')) return {Gmlid: f.getProperty('gmlid'), X: r.left + x, Y: r.top + y};
		}
		return {Gmlid: '', X: 0, Y: 0};
	})()`, &pick))
	if pick.Gmlid == "" {
		t.Error("no building to pick in the 3D view")
	} else {
		run("click the 3D building", chromedp.MouseClickXY(pick.X, pick.Y))
		waitJS("3D building panel", fmt.Sprintf(`(document.getElementById('building-gmlid') || {}).textContent === %q`, pick.Gmlid), 20*time.Second)
	}
	// For the screenshot, give the globe's terrain and hillshade imagery a
	// moment to draw (SwiftShader is slow); not a condition of the test.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		var done bool
		if chromedp.Run(bctx, chromedp.Evaluate(`svcViewer.globe.scene.globe.tilesLoaded`, &done)) == nil && done {
			break
		}
	}
	shot("viewer-3d")

	// A field phone: 360 px wide, the panel under the map, nothing wider
	// than the screen.
	run("narrow", chromedp.EmulateViewport(360, 740), chromedp.Navigate(base+"/viewer/"))
	waitJS("narrow map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	var layout struct {
		ScrollWidth, PanelTop, MapBottom float64
	}
	run("narrow layout", chromedp.Evaluate(`({ScrollWidth: document.documentElement.scrollWidth,
		PanelTop: document.getElementById('panel').getBoundingClientRect().top,
		MapBottom: document.getElementById('map').getBoundingClientRect().bottom})`, &layout))
	if layout.ScrollWidth > 360 || layout.PanelTop < layout.MapBottom-1 {
		t.Errorf("at 360 px: %+v", layout)
	}
	shot("viewer-360px")

	mu.Lock()
	defer mu.Unlock()
	if len(consoleErrors) > 0 {
		t.Errorf("console errors: %q", consoleErrors)
	}
	if len(missing) > 0 {
		t.Errorf("viewer files missing: %q", missing)
	}
	if len(external) > 0 {
		t.Errorf("requests outside the server: %q", external)
	}
}

// getJSONStatus GETs url into v and returns the status (0 on a network error).
func getJSONStatus(u string, v any) int {
	resp, err := http.Get(u)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if resp.StatusCode == 200 {
		json.NewDecoder(resp.Body).Decode(v)
	}
	return resp.StatusCode
}

// lumaVariance is the variance of the pixels' luma: near 0 for a blank or
// single-colour screenshot.
func lumaVariance(img image.Image) float64 {
	b := img.Bounds()
	var n, sum, sq float64
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			l := (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 257
			n, sum, sq = n+1, sum+l, sq+l*l
		}
	}
	m := sum / n
	return math.Max(0, sq/n-m*m)
}
