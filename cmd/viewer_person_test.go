package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestViewerForAPerson drives the viewer in headless Chromium as one person
// uses it, against `svc serve --keyless-limit 12` on a fresh demo pack (its
// own, so that no other test's requests are on the counters), and judges
// what the person sees:
//   - opened without a hash, the map shows everything published (all the
//     dataset extents fill the view), and the address bar gets #zoom/lat/lon;
//     a click on a dataset's mark goes there;
//   - opened at /#15/50.11/8.67 (through the redirect at /) it is centred
//     there at zoom 15; moving the map rewrites the hash, and a new hash
//     moves the map; a reload without a hash comes back to the last view;
//   - "N buildings in view" is the number of distinct buildings whose
//     ground surface meets the view, as /v1/buildings gives it for the view's
//     bbox (not the number of ground surfaces);
//   - 60 pans and zooms over the data leave the keyless budget where it was
//     (the footprints come from the uncounted tile route) and every view
//     draws footprints;
//   - clicks (counted) until the limit: the page then shows a notice naming
//     the limit and how to get a key, the footprints still draw, and its
//     "Get a free trial key" button gets a key with which a click works again.
func TestViewerForAPerson(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	data := t.TempDir()
	if out, err := run(ctx, "demo", "--data", data); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	const limit = 12
	t0 := time.Now()
	base := serveArgs(t, "--data", data, "--keyless-limit", strconv.Itoa(limit))
	// The test's own questions to the API carry a trial key: only the page
	// counts against the keyless budget of 127.0.0.1.
	key := mintTrialKey(t, base)
	remaining := func() int {
		t.Helper()
		resp, err := http.Get(base + "/v1/datasets") // not counted; shows the budget
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		n, err := strconv.Atoi(resp.Header.Get("X-Keyless-Remaining"))
		if err != nil {
			t.Fatalf("X-Keyless-Remaining %q: %v", resp.Header.Get("X-Keyless-Remaining"), err)
		}
		return n
	}

	bctx := headlessChromium(t, ctx, chromium, 1200, 800)
	var mu sync.Mutex
	var pageErrors []string
	requests := map[string]int{} // path kind -> requests the page sent
	chromedp.ListenTarget(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			pageErrors = append(pageErrors, e.ExceptionDetails.Error())
		case *network.EventRequestWillBeSent:
			if u, err := url.Parse(e.Request.URL); err == nil && strings.HasPrefix(u.Path, "/v1/") {
				kind := u.Path
				if strings.HasPrefix(kind, "/v1/buildings/footprints/") {
					kind = "/v1/buildings/footprints/"
				} else if strings.HasPrefix(kind, "/v1/terrain/hillshade/") {
					kind = "/v1/terrain/hillshade/"
				}
				requests[kind]++
			}
		}
	})
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
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
				var st string
				chromedp.Run(bctx, chromedp.Text("#status", &st, chromedp.ByQuery))
				t.Fatalf("%s: not true after %v: %s (status %q, page errors %q)", what, limit, expr, st, pageErrors)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	type view struct {
		Zoom, Lat, Lon           float64
		W, S, E, N               float64
		Hash, Status             string
		Count                    *int
		Footprints, FootprintReq int
	}
	// settled waits until the map stopped and the page counted the view.
	settled := `svcViewer.ready && !svcViewer.map.isMoving() && svcViewer.map.loaded() &&
		(svcViewer.map.getZoom() < 15 || svcViewer.buildingView === undefined || (svcViewer.buildingView && svcViewer.buildingView[0] === svcViewer.map.getBounds().getWest() &&
		 svcViewer.buildingView[3] === svcViewer.map.getBounds().getNorth()))`
	current := func() view {
		t.Helper()
		var v view
		run("read the view", chromedp.Evaluate(`(() => { const m = svcViewer.map, c = m.getCenter(), b = m.getBounds();
			return {Zoom: m.getZoom(), Lat: c.lat, Lon: c.lng, W: b.getWest(), S: b.getSouth(), E: b.getEast(), N: b.getNorth(),
				Hash: location.hash, Status: document.getElementById('status').textContent, Count: svcViewer.buildingCount,
				Footprints: m.getZoom() >= 15 ? m.queryRenderedFeatures({layers: ['buildings-fill']}).length : 0,
				FootprintReq: svcViewer.footprintRequests || 0}; })()`, &v))
		return v
	}
	// The hash is #zoom/lat/lon of the map as MapLibre writes it.
	hashRe := regexp.MustCompile(`^#([0-9.]+)/(-?[0-9.]+)/(-?[0-9.]+)$`)
	hashMatches := func(v view) bool {
		m := hashRe.FindStringSubmatch(v.Hash)
		if m == nil {
			return false
		}
		z, _ := strconv.ParseFloat(m[1], 64)
		lat, _ := strconv.ParseFloat(m[2], 64)
		lon, _ := strconv.ParseFloat(m[3], 64)
		// The hash writes lat/lon with fewer decimals at lower zooms (as
		// MapLibre's hash: 2 at zoom 5, 4 at zoom 15): half a unit of its
		// own last decimal is the most it may differ from the map.
		tol := func(s string) float64 {
			d := 0
			if i := strings.IndexByte(s, '.'); i >= 0 {
				d = len(s) - i - 1
			}
			return 0.5*math.Pow(10, -float64(d)) + 1e-9
		}
		return math.Abs(z-v.Zoom) < 0.01 && math.Abs(lat-v.Lat) <= tol(m[2]) && math.Abs(lon-v.Lon) <= tol(m[3])
	}

	// 1. No hash, nothing remembered: everything published is in view.
	var sets struct {
		Tilesets []struct {
			BL string `json:"bundesland_code"`
			BV struct {
				Coordinates [][][2]float64 `json:"coordinates"`
			} `json:"bounding_volume"`
		} `json:"tilesets"`
	}
	getKeyed(t, base+"/v1/tilesets?bbox=5.5,47.2,15.5,55.1", key, &sets)
	ext := [4]float64{180, 90, -180, -90}
	for _, ts := range sets.Tilesets {
		for _, p := range ts.BV.Coordinates[0] {
			ext = [4]float64{math.Min(ext[0], p[0]), math.Min(ext[1], p[1]), math.Max(ext[2], p[0]), math.Max(ext[3], p[1])}
		}
	}
	if len(sets.Tilesets) < 2 {
		t.Fatalf("the demo publishes %d building datasets; the test needs several", len(sets.Tilesets))
	}
	run("open without a hash", chromedp.Navigate(base+"/viewer/"))
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	waitJS("settled", settled, 20*time.Second)
	v := current()
	inView := ext[0] >= v.W && ext[2] <= v.E && ext[1] >= v.S && ext[3] <= v.N
	fills := (ext[2]-ext[0])/(v.E-v.W) > 0.5 || (ext[3]-ext[1])/(v.N-v.S) > 0.5
	if !inView || !fills {
		t.Errorf("opened without a hash on %.4f,%.4f,%.4f,%.4f (zoom %.2f); everything published is %.4f,%.4f,%.4f,%.4f",
			v.W, v.S, v.E, v.N, v.Zoom, ext[0], ext[1], ext[2], ext[3])
	}
	if !hashMatches(v) {
		t.Errorf("after opening, the hash is %q; the map is at zoom %.2f, %.5f, %.5f", v.Hash, v.Zoom, v.Lat, v.Lon)
	}

	// A click on a dataset's mark goes there: its buildings are drawn.
	var mark struct{ X, Y float64 }
	run("the Hesse mark", chromedp.Evaluate(`(() => { const m = svcViewer.map, r = m.getContainer().getBoundingClientRect();
		const f = m.queryRenderedFeatures({layers: ['extents-mark']}).find((f) => f.properties.bl === 'he');
		if (!f) return {X: -1, Y: -1};
		const p = m.project(f.geometry.coordinates); return {X: r.left + p.x, Y: r.top + p.y}; })()`, &mark))
	if mark.X < 0 {
		t.Error("no mark of the Hesse dataset on the map of everything published")
	} else {
		run("click the mark", chromedp.MouseClickXY(mark.X, mark.Y))
		waitJS("at the dataset", `svcViewer.map.getZoom() >= 15 && !svcViewer.map.isMoving()`, 20*time.Second)
		waitJS("settled", settled, 20*time.Second)
		if v := current(); v.Footprints == 0 || v.Lon < 8.67 || v.Lon > 8.69 {
			t.Errorf("after a click on the Hesse mark: zoom %.2f at %.5f, %.5f, %d footprints", v.Zoom, v.Lat, v.Lon, v.Footprints)
		}
	}

	// 2. A hash through the redirect at /: the map is there.
	run("open with a hash", chromedp.Navigate(base+"/#15/50.11/8.67"))
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	waitJS("settled", settled, 20*time.Second)
	v = current()
	if math.Abs(v.Zoom-15) > 1e-6 || math.Abs(v.Lat-50.11) > 1e-6 || math.Abs(v.Lon-8.67) > 1e-6 {
		t.Errorf("opened /#15/50.11/8.67: map at zoom %.4f, %.6f, %.6f", v.Zoom, v.Lat, v.Lon)
	}
	if v.Footprints == 0 {
		t.Errorf("at #15/50.11/8.67 no footprints are drawn (status %q)", v.Status)
	}
	// Moving the map (arrow keys on the focused map) rewrites the hash.
	run("pan with the keyboard", chromedp.Focus("#map canvas", chromedp.ByQuery), chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowDown), chromedp.Sleep(time.Second))
	waitJS("settled after the keys", settled, 20*time.Second)
	v = current()
	if math.Hypot(v.Lon-8.67, v.Lat-50.11) < 1e-4 || !hashMatches(v) {
		t.Errorf("after panning the map is at %.6f, %.6f and the hash is %q", v.Lat, v.Lon, v.Hash)
	}
	// A new hash moves the map (a link within the page, the back button).
	const heLat, heLon = 50.11295, 8.67815 // the middle of the Hesse demo data
	// goTo sets the hash and waits for the map to follow; when it does not,
	// that is an error and the map is moved by script, so that the later
	// checks still run.
	goTo := func(z, lat, lon float64) {
		t.Helper()
		follows := fmt.Sprintf(`Math.abs(svcViewer.map.getZoom() - %v) < 1e-6 && Math.abs(svcViewer.map.getCenter().lat - %v) < 1e-6 &&
			Math.abs(svcViewer.map.getCenter().lng - %v) < 1e-6`, z, lat, lon)
		run("set the hash", chromedp.Evaluate(fmt.Sprintf(`location.hash = '#%v/%v/%v'`, z, lat, lon), nil))
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			var ok bool
			if chromedp.Run(bctx, chromedp.Evaluate(follows, &ok)) == nil && ok {
				break
			}
			if time.Now().After(end) {
				t.Errorf("the map does not follow the hash #%v/%v/%v", z, lat, lon)
				run("move by script", chromedp.Evaluate(fmt.Sprintf(`void svcViewer.map.jumpTo({zoom: %v, center: [%v, %v]})`, z, lon, lat), nil))
				break
			}
		}
		waitJS("settled at #"+fmt.Sprint(z, lat, lon), settled, 20*time.Second)
	}
	goTo(17, heLat, heLon)

	// 3. The building count of this view against the API.
	v = current()
	bbox := fmt.Sprintf("%.9f,%.9f,%.9f,%.9f", v.W, v.S, v.E, v.N)
	ground, all, parts := distinctBuildings(t, base, key, bbox)
	t.Logf("view %s: %d buildings (ground surfaces of %d buildings, %d ground surfaces); page: %q", bbox, all, ground, parts, v.Status)
	if parts == ground {
		t.Fatalf("the view %s has no building of several ground surfaces; the count would not tell buildings from surfaces", bbox)
	}
	if v.Count == nil {
		v.Count = new(int)
	}
	if *v.Count != ground || v.Status != fmt.Sprintf("%d buildings in view.", ground) {
		t.Errorf("the page says %q (count %d); /v1/buildings has %d distinct buildings with a ground surface in the view (%d ground surfaces)",
			v.Status, *v.Count, ground, parts)
	}

	// 4. A reload without a hash comes back to the last view.
	run("reload without a hash", chromedp.Navigate(base+"/viewer/"))
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	waitJS("settled", settled, 20*time.Second)
	if w := current(); math.Abs(w.Zoom-17) > 1e-3 || math.Abs(w.Lat-heLat) > 1e-5 || math.Abs(w.Lon-heLon) > 1e-5 {
		t.Errorf("reopened without a hash at zoom %.3f, %.6f, %.6f; the last view was zoom 17, %v, %v", w.Zoom, w.Lat, w.Lon, heLat, heLon)
	}

	t.Logf("%v: opened, hash and count checked", time.Since(t0).Round(time.Second))
	// 5. An afternoon of panning over the data, compressed: 60 moves.
	before := remaining()
	fpBefore := current().FootprintReq
	starts := [][3]float64{{16, heLat, heLon}}
	for _, ts := range sets.Tilesets {
		c := ts.BV.Coordinates[0]
		starts = append(starts, [3]float64{16, (c[0][1] + c[2][1]) / 2, (c[0][0] + c[2][0]) / 2})
	}
	empty := 0
	const moves = 60
	for i := 0; i < moves; i++ {
		s := starts[i%len(starts)]
		// Pans of a third of the view around each dataset, zooming 15 to 17.
		dx, dy := float64(i%5-2)*0.004, float64(i%3-1)*0.002
		z := 15 + float64(i%3)
		run("pan", chromedp.Evaluate(fmt.Sprintf(`void svcViewer.map.jumpTo({center: [%v, %v], zoom: %v})`, s[2]+dx, s[1]+dy, z), nil))
		waitJS("settled after a pan", settled, 20*time.Second)
		if current().Footprints == 0 {
			empty++
		}
	}
	after := remaining()
	fpAfter := current().FootprintReq
	t.Logf("%d moves: %d footprint tile requests (%.2f per move, uncounted), keyless budget %d before and %d after",
		moves, fpAfter-fpBefore, float64(fpAfter-fpBefore)/moves, before, after)
	if after != before {
		t.Errorf("%d moves of the map used %d of the keyless budget; drawing must not count", moves, before-after)
	}
	if empty > 0 {
		t.Errorf("%d of %d views over the data drew no footprints", empty, moves)
	}

	t.Logf("%v: panning done", time.Since(t0).Round(time.Second))

	// 6. Clicks count: click beside the buildings until the limit is reached.
	goTo(17, heLat, heLon)
	// clickBeside clicks a point without a building (elevation and canopy:
	// two counted requests) and reports whether the limit notice shows.
	clickBeside := func(i int) bool {
		t.Helper()
		var pt struct{ X, Y float64 }
		run("a point beside the buildings", chromedp.Evaluate(fmt.Sprintf(`(() => { const m = svcViewer.map, r = m.getContainer().getBoundingClientRect();
			for (let y = 20 + %d; y < r.height - 20; y += 13) for (let x = 20; x < r.width - 20; x += 17)
				if (!m.queryRenderedFeatures([x, y], {layers: ['buildings-fill']}).length) return {X: r.left + x, Y: r.top + y};
			return {X: 0, Y: 0}; })()`, i*3), &pt))
		run("click", chromedp.Evaluate(`svcViewer.point = null`, nil), chromedp.MouseClickXY(pt.X, pt.Y))
		waitJS("the click answered", `!!svcViewer.point`, 20*time.Second)
		var notice bool
		run("notice?", chromedp.Evaluate(`!!svcViewer.limit && !document.getElementById('notice').hidden`, &notice))
		return notice
	}
	notice := false
	for i := 0; i < limit+2 && !notice; i++ {
		notice = clickBeside(i)
	}
	if !notice {
		t.Fatalf("%d clicks against a keyless limit of %d: the page shows no limit notice", limit+2, limit)
	}
	var shown struct {
		Text, Href string
		Button     bool
		Visible    bool
	}
	run("the notice", chromedp.Evaluate(`(() => { const n = document.getElementById('notice'), a = document.getElementById('key-docs'), r = n.getBoundingClientRect();
		return {Text: n.innerText, Href: a ? a.href : '', Button: !!document.getElementById('btn-trial'), Visible: r.height > 20 && r.width > 200}; })()`, &shown))
	t.Logf("the notice: %q (%s)", shown.Text, shown.Href)
	var png []byte
	run("screenshot", chromedp.CaptureScreenshot(&png))
	if dir := os.Getenv("SVC_TEST_ARTIFACTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "viewer-limit.png"), png, 0o644)
	}
	for _, want := range []string{"limit", strconv.Itoa(limit) + " requests", "key", "not counted"} {
		if !strings.Contains(shown.Text, want) {
			t.Errorf("the notice does not say %q: %q", want, shown.Text)
		}
	}
	if !shown.Visible || !shown.Button || !strings.HasSuffix(shown.Href, "/docs#trial-keys") {
		t.Errorf("the notice: visible %v, trial key button %v, key link %q", shown.Visible, shown.Button, shown.Href)
	}
	if page := getStatus(base + strings.TrimPrefix(shown.Href, base)); page != http.StatusOK {
		t.Errorf("the key link %s answers %d", shown.Href, page)
	}
	// The map still draws: on another dataset, and after a reload.
	goTo(16.5, 50.94088, 6.95730)
	if v := current(); v.Footprints == 0 || !strings.HasSuffix(v.Status, "buildings in view.") {
		t.Errorf("past the limit, another view draws %d footprints, status %q", v.Footprints, v.Status)
	}
	run("reload past the limit", chromedp.Reload())
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	waitJS("settled", settled, 20*time.Second)
	if v := current(); v.Footprints == 0 || !strings.HasSuffix(v.Status, "buildings in view.") {
		t.Errorf("reloaded past the limit: %d footprints, status %q", v.Footprints, v.Status)
	}
	// The next click says so again, and the notice's button gets a trial
	// key, with which clicks work again.
	if !clickBeside(0) {
		t.Fatal("a click past the limit after a reload shows no notice")
	}
	run("get a trial key", chromedp.Click("#btn-trial", chromedp.ByQuery))
	waitJS("the key is used", `document.getElementById('notice').hidden && /^Key svc_/.test(document.getElementById('key-state').textContent)`, 10*time.Second)
	if clickBeside(1) {
		t.Error("with the trial key, a click still shows the limit notice")
	}
	var shownElev string
	run("elevation", chromedp.Text("#point-elevation", &shownElev, chromedp.ByQuery))
	if !strings.HasSuffix(shownElev, " m (DHHN2016)") {
		t.Errorf("with the trial key, the elevation reads %q", shownElev)
	}

	mu.Lock()
	defer mu.Unlock()
	t.Logf("requests of the page by route: %v", requests)
	if len(pageErrors) > 0 {
		t.Errorf("page errors: %q", pageErrors)
	}
}

// serveArgs starts `svc serve` with args on a free port until the test ends
// and returns its base URL.
func serveArgs(t *testing.T, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, append([]string{"serve", "--addr", addr, "--log-level", "warn", "--quiet"}, args...)...)
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

func mintTrialKey(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Post(base+"/v1/keys/trial", "application/json", bytes.NewReader([]byte(`{"source":"test"}`)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var k struct {
		Key string `json:"key"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&k); err != nil || k.Key == "" {
		t.Fatalf("mint: %d %v", resp.StatusCode, err)
	}
	return k.Key
}

func getKeyed(t *testing.T, u, key string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

func getStatus(u string) int {
	resp, err := http.Get(u)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// distinctBuildings pages /v1/buildings over bbox and returns the distinct
// buildings (BL and building_id) with a ground surface, those with any
// surface, and the number of ground surfaces.
func distinctBuildings(t *testing.T, base, key, bbox string) (ground, all, groundSurfaces int) {
	t.Helper()
	g, a := map[string]bool{}, map[string]bool{}
	cursor := ""
	for {
		var page struct {
			Features []struct {
				Properties struct {
					BuildingID   int64  `json:"building_id"`
					SurfaceClass int    `json:"surface_class"`
					BL           string `json:"bundesland"`
				} `json:"properties"`
			} `json:"features"`
			Svc struct {
				Next string `json:"next"`
			} `json:"svc"`
		}
		u := base + "/v1/buildings?limit=1000&bbox=" + bbox
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		getKeyed(t, u, key, &page)
		for _, f := range page.Features {
			id := f.Properties.BL + ":" + strconv.FormatInt(f.Properties.BuildingID, 10)
			a[id] = true
			if f.Properties.SurfaceClass == 710 {
				g[id] = true
				groundSurfaces++
			}
		}
		if cursor = page.Svc.Next; cursor == "" {
			return len(g), len(a), groundSurfaces
		}
	}
}

// TestViewerCountsRealBuildings opens the viewer on the real NRW LoD2 tile
// (../shared, 109 buildings with 140 ground surfaces: building parts have
// one each) and expects the status line to count the 109 buildings.
func TestViewerCountsRealBuildings(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	nrw := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	data := t.TempDir()
	if out, err := run(ctx, "import", "lod2", "--data", data, "--bl", "nrw", "--license", "dl-de-zero-2.0", "--snapshot", "2026-01-01", nrw); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	base := serveArgs(t, "--data", data)
	bctx := headlessChromium(t, ctx, chromium, 1200, 800)
	// The tile's buildings lie within 5.8721-5.8758 E, 51.0408-51.0440 N.
	if err := chromedp.Run(bctx, chromedp.Navigate(base+"/#16/51.0424/5.87395")); err != nil {
		t.Fatal(err)
	}
	// Where the hash is not followed (that is an error of its own), the map
	// is moved by script so that the count is still judged.
	var z float64
	if err := chromedp.Run(bctx, chromedp.Poll(`window.svcViewer && svcViewer.ready`, nil, chromedp.WithPollingTimeout(time.Minute)),
		chromedp.Evaluate(`svcViewer.map.getZoom()`, &z)); err != nil {
		t.Fatal(err)
	}
	if math.Abs(z-16) > 1e-6 {
		t.Errorf("opened at zoom %.2f, not at the hash's 16", z)
		chromedp.Run(bctx, chromedp.Evaluate(`void svcViewer.map.jumpTo({zoom: 16, center: [5.87395, 51.0424]})`, nil))
	}
	var got struct {
		Status string
		Count  int
		W, S   float64
		E, N   float64
	}
	for end := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		err := chromedp.Run(bctx, chromedp.Evaluate(`(() => { const b = svcViewer.map.getBounds();
			return {Status: document.getElementById('status').textContent, Count: svcViewer.buildingCount || 0,
				W: b.getWest(), S: b.getSouth(), E: b.getEast(), N: b.getNorth()}; })()`, &got))
		if err == nil && strings.HasSuffix(got.Status, "in view.") || time.Now().After(end) {
			break
		}
	}
	if got.W > 5.8721 || got.E < 5.8758 || got.S > 51.0408 || got.N < 51.0440 {
		t.Fatalf("the view %.5f,%.5f,%.5f,%.5f does not hold the whole tile", got.W, got.S, got.E, got.N)
	}
	if got.Status != "109 buildings in view." || got.Count != 109 {
		t.Errorf("the real NRW tile: the page says %q (count %d), want 109 buildings", got.Status, got.Count)
	}
}
