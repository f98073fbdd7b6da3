package cmd

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/qmesh"
)

// globeProbeJS is installed in the viewer page before its own scripts run:
// it records the page's CSP violations and the errors its web workers report
// to the page (a worker whose script cannot load fires "error" on its Worker
// object and nothing else in the page).
const globeProbeJS = `(() => {
	const probe = window.svcProbe = {problems: []};
	document.addEventListener('securitypolicyviolation', (e) => probe.problems.push(
		'CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)') + ' in ' + (e.sourceFile || '?') + ':' + e.lineNumber));
	const W = window.Worker;
	window.Worker = class extends W {
		constructor(url, opts) {
			super(url, opts);
			this.addEventListener('error', (e) => probe.problems.push('worker error: ' + (e.message || 'the worker script did not load') + ' (' + String(url).slice(0, 80) + ')'));
			this.addEventListener('messageerror', () => probe.problems.push('worker messageerror (' + String(url).slice(0, 80) + ')'));
		}
	};
})();`

var (
	terrainTileRE = regexp.MustCompile(`/v1/terrain/quantized-mesh/(\d+)/\d+/\d+\.terrain`)
	blobRE        = regexp.MustCompile(`blob:\S+?/[0-9a-f-]{36}`)
)

// TestViewerGlobeDrawsTerrain opens the viewer's 3D tab in headless
// Chromium (SwiftShader WebGL) against `svc serve` on the demo pack and
// judges what a user sees: CesiumJS's globe refines the server's
// quantized-mesh terrain below level 10 (the requests the page made), the
// rendered globe (globe.pick along the vertical, not a direct tile read) is
// at the DGM height the API gives plus the geoid undulation, and the lower
// part of the view shows ground, not the empty sky/background. Any uncaught
// exception, console error, error log entry or CSP violation of the page or
// of any of its web workers (attached through the DevTools protocol as
// worker targets) fails the test.
func TestViewerGlobeDrawsTerrain(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	base := serveInBackground(t, demoData(t))
	artefacts := artefactDir(t)

	bctx := headlessChromium(t, ctx, chromium, 900, 600)
	gp := &globePage{t: t, ctx: bctx, watch: watchGlobe(bctx)}
	defer gp.watch.close()

	gp.run("probe", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(globeProbeJS).Do(ctx)
		return err
	}))
	start := time.Now()
	gp.run("open", chromedp.Navigate(base+"/viewer/"))
	gp.waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	gp.run("open 3D", chromedp.Click("#tab-globe", chromedp.ByQuery))
	gp.waitJS("globe ready", `!!svcViewer.globeReady`, time.Minute)
	var qm bool
	gp.run("terrain provider", chromedp.Evaluate(`!!svcViewer.quantizedMesh && svcViewer.globe.terrainProvider instanceof Cesium.CesiumTerrainProvider`, &qm))
	if !qm {
		t.Fatalf("the 3D view does not use the server's quantized-mesh terrain (%s)", gp.report())
	}
	// The view the tab opens on (the buildings from above at an angle),
	// with the globe alone: the 3D Tiles have their own test
	// (TestViewerInBrowser), here they would only cover the ground and
	// slow SwiftShader down.
	gp.run("globe alone", chromedp.Evaluate(`svcViewer.globeTilesets.forEach((ts) => { ts.show = false; }), true`, nil))
	gp.settle("first view", 90*time.Second)
	t.Logf("first view settled after %v", time.Since(start).Round(time.Second))
	gp.checkGround(filepath.Join(artefacts, "viewer-globe.png"))

	// Down to a demo point of the Hesse DGM: the globe refines there and its
	// drawn surface is at DGM + N.
	const lon, lat = 8.6705, 50.1152
	var e struct {
		Elevation float64 `json:"elevation_m"`
	}
	getJSON(t, base+fmt.Sprintf("/v1/terrain/elevation?lat=%v&lon=%v", lat, lon), &e)
	g := geoid.Default()
	n, ok := g.Undulation(lon, lat)
	if !ok {
		t.Fatalf("no undulation at %v, %v", lon, lat)
	}
	var layer struct{ Description string }
	getJSON(t, base+"/v1/terrain/quantized-mesh/layer.json", &layer)
	if !strings.Contains(layer.Description, g.ID()) {
		t.Fatalf("layer.json %q does not name the height model %s the test lifts with", layer.Description, g.ID())
	}
	gp.run("look down", chromedp.Evaluate(fmt.Sprintf(`svcViewer.globe.camera.setView({
		destination: Cesium.Cartesian3.fromDegrees(%v, %v, %v),
		orientation: {heading: 0, pitch: -Cesium.Math.PI_OVER_TWO, roll: 0}}), true`, lon, lat, e.Elevation+n+400), nil))
	gp.settle("view from 400 m", 60*time.Second)
	height, level, ok := gp.pick(lon, lat)
	deepest, requested := gp.watch.deepest()
	t.Logf("%d terrain tiles requested, deepest level %d; drawn tile under the point: level %d", requested, deepest, level)
	if deepest <= 10 {
		t.Errorf("CesiumJS requested terrain tiles down to level %d only, want deeper than 10 (%s)", deepest, gp.report())
	}
	// The drawn mesh deviates from the DGM samples by at most the RTIN
	// tolerance of its level (qmesh: half Cesium's geometric error, at
	// least 0.25 m); 0.1 m more covers the height quantization
	// (span/32767), float32 vertex positions and interpolating between the
	// 65 x 65 samples instead of in the DGM's own 1 m grid.
	if !ok {
		t.Errorf("globe.pick found no drawn terrain at %v, %v (%s)", lon, lat, gp.report())
	} else {
		tol := math.Max(qmesh.GeometricError(level)/2, 0.25) + 0.1
		want := e.Elevation + n
		if d := height - want; math.Abs(d) > tol || level <= 10 {
			t.Errorf("drawn globe at %v, %v: %.3f m (level %d), DGM %.3f + N %.3f = %.3f, off by %.3f (tolerance %.2f m)",
				lon, lat, height, level, e.Elevation, n, want, d, tol)
		} else {
			t.Logf("drawn globe %.3f m (level %d) = DGM %.3f + N %.3f, off by %.3f m (tolerance %.2f m)", height, level, e.Elevation, n, d, tol)
		}
	}

	var probe []string
	gp.run("probe", chromedp.Evaluate(`window.svcProbe ? svcProbe.problems : ['the probe was not installed']`, &probe))
	workers, problems, notes := gp.watch.result()
	t.Logf("%d workers attached %q; %v in all", workers, notes, time.Since(start).Round(time.Second))
	if workers == 0 {
		t.Error("no web worker of CesiumJS was attached: the test cannot see their errors")
	}
	if all := append(problems, probe...); len(all) > 0 {
		t.Errorf("%d errors in the page or its workers:\n%s", len(all), strings.Join(all, "\n"))
	}
}

// globePage drives the viewer page of TestViewerGlobeDrawsTerrain.
type globePage struct {
	t     *testing.T
	ctx   context.Context
	watch *globeWatch
}

func (gp *globePage) run(what string, actions ...chromedp.Action) {
	gp.t.Helper()
	if err := chromedp.Run(gp.ctx, actions...); err != nil {
		gp.t.Fatalf("%s: %v", what, err)
	}
}

// report sums up what was seen so far, for a failure message.
func (gp *globePage) report() string {
	var probe []string
	chromedp.Run(gp.ctx, chromedp.Evaluate(`window.svcProbe ? svcProbe.problems : []`, &probe))
	return gp.watch.String() + fmt.Sprintf(", page probe %q", probe)
}

// waitJS polls a boolean expression of the page.
func (gp *globePage) waitJS(what, expr string, limit time.Duration) {
	gp.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var ok bool
		if err := chromedp.Run(gp.ctx, chromedp.Evaluate(expr, &ok)); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			gp.t.Fatalf("%s: not true after %v: %s (%s)", what, limit, expr, gp.report())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// settle waits until the globe has drawn 5 frames in a row with every tile
// it needs loaded (globe.tilesLoaded). An error of the page or a worker
// ends the wait at once: the globe would not settle.
func (gp *globePage) settle(what string, limit time.Duration) {
	gp.t.Helper()
	gp.run(what, chromedp.Evaluate(`(() => {
		const s = svcViewer.globe.scene; let frames = 0;
		svcProbe.settled = false;
		svcProbe.stopSettle = s.postRender.addEventListener(() => {
			frames = s.globe.tilesLoaded ? frames + 1 : 0;
			if (frames >= 5) { svcProbe.settled = true; svcProbe.stopSettle(); }
		});
		return true; })()`, nil))
	start := time.Now()
	for {
		var ok bool
		if err := chromedp.Run(gp.ctx, chromedp.Evaluate(`svcProbe.settled`, &ok)); err == nil && ok {
			return
		}
		var probe []string
		chromedp.Run(gp.ctx, chromedp.Evaluate(`svcProbe.problems`, &probe))
		if _, problems, _ := gp.watch.result(); len(problems)+len(probe) > 0 || time.Since(start) > limit {
			var diag string
			chromedp.Run(gp.ctx, chromedp.Evaluate(`(() => { const s = svcViewer.globe.scene, q = s.globe._surface;
				return JSON.stringify({frames: s.frameState.frameNumber, high: q._tileLoadQueueHigh.length, medium: q._tileLoadQueueMedium.length,
					low: q._tileLoadQueueLow.length, render: q._tilesToRender.length}); })()`, &diag))
			gp.t.Fatalf("%s: globe.tilesLoaded not reached after %v (limit %v; %s; %s)", what, time.Since(start).Round(time.Second), limit, diag, gp.report())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// checkGround asserts that the lower part of the globe's canvas (above the
// credits CesiumJS writes along its bottom) is ground in a screenshot,
// saved to shot: where the globe is missing the canvas shows the
// background (black) or the sky atmosphere (blue). Rays through the same
// part must hit the drawn globe.
func (gp *globePage) checkGround(shot string) {
	t := gp.t
	t.Helper()
	var rect struct{ X, Y, W, H float64 }
	gp.run("canvas", chromedp.Evaluate(`(() => { const r = svcViewer.globe.scene.canvas.getBoundingClientRect();
		return {X: r.left, Y: r.top, W: r.width, H: r.height}; })()`, &rect))
	var buf []byte
	gp.run("screenshot", chromedp.CaptureScreenshot(&buf))
	os.WriteFile(shot, buf, 0o644)
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	ground, empty := groundShare(img, image.Rect(int(rect.X), int(rect.Y+rect.H*0.55), int(rect.X+rect.W), int(rect.Y+rect.H*0.88)))
	t.Logf("screenshot %s: lower part of the canvas %.1f%% ground, %.1f%% background or sky", shot, 100*ground, 100*empty)
	if ground < 0.9 {
		t.Errorf("the lower part of the 3D view is %.1f%% ground (%.1f%% background or sky), want at least 90%% (%s)", 100*ground, 100*empty, shot)
	}
	var hits float64
	gp.run("globe picks", chromedp.Evaluate(`(() => {
		const v = svcViewer.globe, c = v.scene.canvas; let n = 0, hit = 0;
		for (let y = c.clientHeight * 0.55; y < c.clientHeight; y += c.clientHeight / 20)
			for (let x = c.clientWidth * 0.05; x < c.clientWidth; x += c.clientWidth / 20) {
				n++;
				if (v.scene.globe.pick(v.camera.getPickRay(new Cesium.Cartesian2(x, y)), v.scene)) hit++;
			}
		return hit / n; })()`, &hits))
	if hits < 0.99 {
		t.Errorf("rays through the lower part of the 3D view hit the drawn globe %.0f%% of the time, want 100%%", 100*hits)
	}
}

// pick intersects the drawn globe with the vertical at lon, lat and returns
// the ellipsoidal height there and the level of the drawn tile holding the
// point (-1 if none); ok is false where the globe draws nothing.
func (gp *globePage) pick(lon, lat float64) (height float64, level int, ok bool) {
	var res struct {
		Height float64
		Level  int
		OK     bool
	}
	gp.run("pick the globe", chromedp.Evaluate(fmt.Sprintf(`(() => {
		const v = svcViewer.globe, C = Cesium, carto = C.Cartographic.fromDegrees(%v, %v);
		const top = C.Cartesian3.fromRadians(carto.longitude, carto.latitude, 20000);
		const down = C.Cartesian3.negate(C.Ellipsoid.WGS84.geodeticSurfaceNormal(top, new C.Cartesian3()), new C.Cartesian3());
		const p = v.scene.globe.pick(new C.Ray(top, down), v.scene);
		let level = -1;
		for (const tile of v.scene.globe._surface._tilesToRender)
			if (C.Rectangle.contains(tile.rectangle, carto)) level = Math.max(level, tile.level);
		return p ? {Height: C.Cartographic.fromCartesian(p).height, Level: level, OK: true} : {Height: 0, Level: level, OK: false};
	})()`, lon, lat), &res))
	return res.Height, res.Level, res.OK
}

// globeWatch collects through the DevTools protocol what fails
// TestViewerGlobeDrawsTerrain (errors of the page and of its web workers)
// and the terrain tile requests the page makes.
type globeWatch struct {
	mu       sync.Mutex
	seen     map[string]bool
	problems []string
	levels   map[int]int // terrain tile requests per level
	workers  int
	notes    []string
	cancels  []context.CancelFunc
}

func watchGlobe(bctx context.Context) *globeWatch {
	w := &globeWatch{seen: map[string]bool{}, levels: map[int]int{}}
	onPage := w.listen("page")
	chromedp.ListenTarget(bctx, func(ev any) {
		onPage(ev)
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if m := terrainTileRE.FindStringSubmatch(e.Request.URL); m != nil {
				z, _ := strconv.Atoi(m[1])
				w.mu.Lock()
				w.levels[z]++
				w.mu.Unlock()
			}
		case *network.EventResponseReceived:
			if u, err := url.Parse(e.Response.URL); err == nil && e.Response.Status >= 400 && strings.HasPrefix(u.Path, "/v1/terrain/") {
				w.add("page: %d %s", e.Response.Status, u.Path)
			}
		case *target.EventAttachedToTarget:
			if e.TargetInfo.Type == "worker" {
				w.attach(bctx, e.TargetInfo)
			}
		}
	})
	return w
}

// attach opens a DevTools session of its own on a worker target: chromedp
// auto-attaches the page's workers (flatten, not waiting for the debugger)
// but passes on no event of them. Runtime.enable and Log.enable report
// what happened before, so an early failure is not missed.
func (w *globeWatch) attach(bctx context.Context, info *target.Info) {
	who := "worker " + info.URL
	wctx, cancel := chromedp.NewContext(bctx, chromedp.WithTargetID(info.TargetID))
	chromedp.ListenTarget(wctx, w.listen(who))
	w.mu.Lock()
	w.workers++
	w.cancels = append(w.cancels, cancel)
	w.mu.Unlock()
	go func() {
		if err := chromedp.Run(wctx); err != nil && wctx.Err() == nil {
			// A worker that ended before we attached: its errors still
			// reach the page's log and the page probe.
			w.mu.Lock()
			w.notes = append(w.notes, fmt.Sprintf("%s: not attached (%v)", who, err))
			w.mu.Unlock()
		}
	}()
}

// listen judges the events of one target (the page or a worker).
func (w *globeWatch) listen(who string) func(ev any) {
	return func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			w.add("%s: uncaught %s", who, e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				w.add("%s: console.%s %s", who, e.Type, strings.Join(parts, " "))
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				w.add("%s: %s log: %s %s", who, e.Entry.Source, e.Entry.Text, e.Entry.URL)
			}
		}
	}
}

// add records a problem once per kind (blob URLs differ per worker).
func (w *globeWatch) add(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := fmt.Sprintf(format, args...)
	if k := blobRE.ReplaceAllString(p, "blob:…"); !w.seen[k] {
		w.seen[k] = true
		w.problems = append(w.problems, p)
	}
}

// deepest returns the deepest terrain level requested and the number of
// terrain tile requests.
func (w *globeWatch) deepest() (level, requests int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	level = -1
	for z, c := range w.levels {
		level, requests = max(level, z), requests+c
	}
	return level, requests
}

func (w *globeWatch) result() (workers int, problems, notes []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.workers, append([]string(nil), w.problems...), append([]string(nil), w.notes...)
}

func (w *globeWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("problems %q, terrain requests per level %v", w.problems, w.levels)
}

func (w *globeWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.cancels {
		c()
	}
}

// groundShare classifies the pixels of r: the share that is ground (not the
// background and not sky) and the share that is near-black background or
// blue sky.
func groundShare(img image.Image, r image.Rectangle) (ground, empty float64) {
	r = r.Intersect(img.Bounds())
	var n, g, e float64
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			R, G, B := float64(cr>>8), float64(cg>>8), float64(cb>>8)
			n++
			switch {
			case math.Max(R, math.Max(G, B)) < 40: // the scene's black background
				e++
			case B > R+25 && B > G+5: // the sky atmosphere
				e++
			default:
				g++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return g / n, e / n
}
