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
	artefacts := os.Getenv("SVC_TEST_ARTIFACTS")
	if artefacts == "" {
		artefacts = t.TempDir()
	}
	os.MkdirAll(artefacts, 0o755)

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(900, 600),
		chromedp.Flag("use-angle", "swiftshader"), chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("ignore-gpu-blocklist", true))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()

	var (
		mu       sync.Mutex
		problems []string        // what fails the test
		levels   = map[int]int{} // terrain tile requests per level
		workers  []string
		cancels  []context.CancelFunc
	)
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	seen := map[string]bool{}
	addProblem := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		// Blob URLs differ per worker: one line per kind of problem.
		p := fmt.Sprintf(format, args...)
		if k := blobRE.ReplaceAllString(p, "blob:…"); !seen[k] {
			seen[k] = true
			problems = append(problems, p)
		}
	}
	// listen judges the events of one target (the page or a worker).
	listen := func(who string) func(ev any) {
		return func(ev any) {
			switch e := ev.(type) {
			case *runtime.EventExceptionThrown:
				addProblem("%s: uncaught %s", who, e.ExceptionDetails.Error())
			case *runtime.EventConsoleAPICalled:
				if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
					var parts []string
					for _, a := range e.Args {
						parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
					}
					addProblem("%s: console.%s %s", who, e.Type, strings.Join(parts, " "))
				}
			case *log.EventEntryAdded:
				if e.Entry.Level == log.LevelError {
					addProblem("%s: %s log: %s %s", who, e.Entry.Source, e.Entry.Text, e.Entry.URL)
				}
			}
		}
	}
	pageListener := listen("page")
	chromedp.ListenTarget(bctx, func(ev any) {
		pageListener(ev)
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if m := terrainTileRE.FindStringSubmatch(e.Request.URL); m != nil {
				z, _ := strconv.Atoi(m[1])
				mu.Lock()
				levels[z]++
				mu.Unlock()
			}
		case *network.EventResponseReceived:
			if u, err := url.Parse(e.Response.URL); err == nil && e.Response.Status >= 400 && strings.HasPrefix(u.Path, "/v1/terrain/") {
				addProblem("page: %d %s", e.Response.Status, u.Path)
			}
		case *target.EventAttachedToTarget:
			// chromedp auto-attaches the page's workers (flatten, not waiting
			// for the debugger); a second session of our own receives their
			// Runtime and Log events. Runtime.enable and Log.enable report
			// what happened before, so an early failure is not missed.
			if e.TargetInfo.Type != "worker" {
				return
			}
			id, who := e.TargetInfo.TargetID, "worker "+e.TargetInfo.URL
			wctx, wcancel := chromedp.NewContext(bctx, chromedp.WithTargetID(id))
			chromedp.ListenTarget(wctx, listen(who))
			mu.Lock()
			workers = append(workers, who)
			cancels = append(cancels, wcancel)
			mu.Unlock()
			go func() {
				if err := chromedp.Run(wctx); err != nil && ctx.Err() == nil {
					t.Logf("%s: not attached (%v)", who, err)
				}
			}()
		}
	})
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	report := func() string {
		mu.Lock()
		defer mu.Unlock()
		var probe []string
		chromedp.Run(bctx, chromedp.Evaluate(`window.svcProbe ? svcProbe.problems : []`, &probe))
		return fmt.Sprintf("problems %q, page probe %q, terrain requests per level %v", problems, probe, levels)
	}
	waitJS := func(what, expr string, limit time.Duration) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for {
			var ok bool
			if err := chromedp.Run(bctx, chromedp.Evaluate(expr, &ok)); err == nil && ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not true after %v: %s (%s)", what, limit, expr, report())
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	awaitPromise := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
	// settle resolves when the globe has drawn a few frames with every
	// needed tile loaded (or after limit ms, with false).
	settle := func(what string, limit time.Duration) {
		t.Helper()
		var ok bool
		run(what, chromedp.Evaluate(fmt.Sprintf(`new Promise((resolve) => {
			const s = svcViewer.globe.scene; let frames = 0;
			const stop = setTimeout(() => { rm(); resolve(false); }, %d);
			const rm = s.postRender.addEventListener(() => {
				frames = s.globe.tilesLoaded ? frames + 1 : 0;
				if (frames >= 5) { clearTimeout(stop); rm(); resolve(true); }
			});
		})`, limit.Milliseconds()), &ok, awaitPromise))
		if !ok {
			var diag string
			chromedp.Run(bctx, chromedp.Evaluate(`(() => { const s = svcViewer.globe.scene, q = s.globe._surface;
				return JSON.stringify({frames: s.frameState.frameNumber, high: q._tileLoadQueueHigh.length, medium: q._tileLoadQueueMedium.length,
					low: q._tileLoadQueueLow.length, render: q._tilesToRender.length,
					levels: q._tilesToRender.map(t => t.level).join(',')}); })()`, &diag))
			t.Fatalf("%s: globe.tilesLoaded not reached in %v (%s; %s)", what, limit, diag, report())
		}
	}

	run("probe", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(globeProbeJS).Do(ctx)
		return err
	}))
	start := time.Now()
	run("open", chromedp.Navigate(base+"/viewer/"))
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	run("open 3D", chromedp.Click("#tab-globe", chromedp.ByQuery))
	waitJS("globe ready", `!!svcViewer.globeReady`, time.Minute)
	var qm bool
	run("terrain provider", chromedp.Evaluate(`!!svcViewer.quantizedMesh && svcViewer.globe.terrainProvider instanceof Cesium.CesiumTerrainProvider`, &qm))
	if !qm {
		t.Fatalf("the 3D view does not use the server's quantized-mesh terrain (%s)", report())
	}
	// The view the tab opens on (the buildings from above at an angle),
	// with the globe alone: the 3D Tiles have their own test
	// (TestViewerInBrowser), here they would only cover the ground and
	// slow SwiftShader down.
	run("globe alone", chromedp.Evaluate(`svcViewer.globeTilesets.forEach((ts) => { ts.show = false; }), true`, nil))
	settle("first view", 60*time.Second)
	t.Logf("first view settled after %v", time.Since(start).Round(time.Second))

	// What the user sees: the lower part of the globe's canvas (above the
	// credits CesiumJS writes along its bottom) is ground.
	// Ground draws the hillshade (greys) over the globe; where the globe is
	// missing the canvas shows the background (black) or the sky
	// atmosphere (blue). Rays through the same pixels must hit the globe.
	var rect struct{ X, Y, W, H float64 }
	run("canvas", chromedp.Evaluate(`(() => { const r = svcViewer.globe.scene.canvas.getBoundingClientRect();
		return {X: r.left, Y: r.top, W: r.width, H: r.height}; })()`, &rect))
	var buf []byte
	run("screenshot", chromedp.CaptureScreenshot(&buf))
	shot := filepath.Join(artefacts, "viewer-globe.png")
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
	run("globe picks", chromedp.Evaluate(`(() => {
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
	run("look down", chromedp.Evaluate(fmt.Sprintf(`svcViewer.globe.camera.setView({
		destination: Cesium.Cartesian3.fromDegrees(%v, %v, %v),
		orientation: {heading: 0, pitch: -Cesium.Math.PI_OVER_TWO, roll: 0}}), true`, lon, lat, e.Elevation+n+400), nil))
	settle("view from 400 m", 60*time.Second)
	var picked struct {
		Height float64
		Level  int
		OK     bool
	}
	run("pick the globe", chromedp.Evaluate(fmt.Sprintf(`(() => {
		const v = svcViewer.globe, C = Cesium, carto = C.Cartographic.fromDegrees(%v, %v);
		const top = C.Cartesian3.fromRadians(carto.longitude, carto.latitude, 20000);
		const down = C.Cartesian3.negate(C.Ellipsoid.WGS84.geodeticSurfaceNormal(top, new C.Cartesian3()), new C.Cartesian3());
		const p = v.scene.globe.pick(new C.Ray(top, down), v.scene);
		// The level of the drawn tile under the point.
		let level = -1;
		for (const tile of v.scene.globe._surface._tilesToRender)
			if (C.Rectangle.contains(tile.rectangle, carto)) level = Math.max(level, tile.level);
		return p ? {Height: C.Cartographic.fromCartesian(p).height, Level: level, OK: true} : {Height: 0, Level: level, OK: false};
	})()`, lon, lat), &picked))
	mu.Lock()
	deepest, requested := -1, 0
	for z, c := range levels {
		deepest, requested = max(deepest, z), requested+c
	}
	mu.Unlock()
	t.Logf("%d terrain tiles requested, deepest level %d; drawn tile under the point: level %d", requested, deepest, picked.Level)
	if deepest <= 10 {
		t.Errorf("CesiumJS requested terrain tiles down to level %d only, want deeper than 10 (%s)", deepest, report())
	}
	// The drawn mesh deviates from the DGM samples by at most the RTIN
	// tolerance of its level (qmesh: half Cesium's geometric error, at
	// least 0.25 m); 0.1 m more covers the height quantization
	// (span/32767), float32 vertex positions and interpolating between the
	// 65 x 65 samples instead of in the DGM's own 1 m grid.
	if !picked.OK {
		t.Errorf("globe.pick found no drawn terrain at %v, %v (%s)", lon, lat, report())
	} else {
		tol := math.Max(qmesh.GeometricError(picked.Level)/2, 0.25) + 0.1
		want := e.Elevation + n
		if d := picked.Height - want; math.Abs(d) > tol || picked.Level <= 10 {
			t.Errorf("drawn globe at %v, %v: %.3f m (level %d), DGM %.3f + N %.3f = %.3f, off by %.3f (tolerance %.2f m)",
				lon, lat, picked.Height, picked.Level, e.Elevation, n, want, d, tol)
		} else {
			t.Logf("drawn globe %.3f m (level %d) = DGM %.3f + N %.3f, off by %.3f m (tolerance %.2f m)", picked.Height, picked.Level, e.Elevation, n, d, tol)
		}
	}

	mu.Lock()
	t.Logf("workers attached: %d; %v in all", len(workers), time.Since(start).Round(time.Second))
	mu.Unlock()
	var probe []string
	run("probe", chromedp.Evaluate(`svcViewer && window.svcProbe ? svcProbe.problems : ['the probe was not installed']`, &probe))
	mu.Lock()
	defer mu.Unlock()
	if len(workers) == 0 {
		t.Error("no web worker of CesiumJS was attached: the test cannot see their errors")
	}
	if all := append(problems, probe...); len(all) > 0 {
		t.Errorf("%d errors in the page or its workers:\n%s", len(all), strings.Join(all, "\n"))
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
