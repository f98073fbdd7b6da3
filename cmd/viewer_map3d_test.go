package cmd

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestViewerMapIn3D drives the viewer's Map tab in headless Chromium over
// the Hesse demo (buildings and DGM) and judges the screenshots of the map:
//   - flat, then tilted 45° at the same place: the buildings' orange covers
//     at least 1.3 times as many pixels tilted (the extrusions' walls and
//     roofs stand up from the footprints), and MapLibre renders features of
//     the extrusion layer; a click on an extrusion shows that building's
//     panel; tilted over a part of the DGM without buildings no pixel is
//     orange;
//   - the Terrain button (a real click): before it MapLibre has no terrain
//     (queryTerrainElevation null), after it the height MapLibre reads from
//     svc's terrain-RGB tiles at five points in view equals the API's
//     bilinear DGM height within 1 m, and at least 5 % of the map's pixels
//     change (the relief lifts and shades the ground);
//   - the Contours button: the contour brown covers at least 150 pixels away
//     from the buildings with the layer on and none off; the index lines carry labels whose values
//     are multiples of 5 m (the index interval at zoom 17).
//
// It saves the three views side by side, halved, as viewer-map-3d.png in
// the artefact directory (docs/viewer-map-3d.png is one such run).
func TestViewerMapIn3D(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	base := serveData(t, demoData(t))
	bctx := headlessChromium(t, ctx, chromium, 1200, 800)
	var pageErrors []string
	chromedp.ListenTarget(bctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			pageErrors = append(pageErrors, e.ExceptionDetails.Error())
		}
	})
	do := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v (page errors %q)", what, err, pageErrors)
		}
	}
	awaitPromise := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
	// settle waits for a frame with every tile of every source loaded.
	settle := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			var ok bool
			if err := chromedp.Run(bctx, chromedp.Evaluate(`!!(window.svcViewer && svcViewer.ready) && svcViewer.map.loaded() && !svcViewer.map.isMoving()`, &ok)); err == nil && ok {
				break
			}
			if time.Now().After(deadline) {
				var errs []string
				chromedp.Run(bctx, chromedp.Evaluate(`window.svcViewer ? svcViewer.errors : []`, &errs))
				t.Fatalf("%s: the map did not settle (errors %q, page errors %q)", what, errs, pageErrors)
			}
		}
		do(what, chromedp.Evaluate(`new Promise(r => { const m = svcViewer.map; m.once('idle', () => r(true)); m.triggerRepaint(); })`, nil, awaitPromise))
	}
	shot := func(what string) *image.RGBA {
		t.Helper()
		var b []byte
		do(what, chromedp.Screenshot("#map", &b, chromedp.ByQuery))
		os.WriteFile(filepath.Join(artefactDir(t), "viewer-map-"+what+".png"), b, 0o644)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		rgba := image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
		return rgba
	}
	count := func(img *image.RGBA, is func(r, g, b int) bool) int {
		n := 0
		for i := 0; i+3 < len(img.Pix); i += 4 {
			if is(int(img.Pix[i]), int(img.Pix[i+1]), int(img.Pix[i+2])) {
				n++
			}
		}
		return n
	}
	// The buildings' #c2703d, over the hillshade (flat, 75 %) or shaded
	// (walls): red over green over blue, well apart; the hillshade is grey,
	// the dataset extents blue, the background #eae6da.
	orange := func(r, g, b int) bool { return r-b > 60 && g-b > 15 && r-g > 30 }
	// The contour lines' #8a5a2b (sum of the channels' differences up to
	// 36), away from the buildings: the footprints' dark outline blends
	// into their orange fill through browns, so a brown pixel next to an
	// orange one is not counted.
	brown := func(r, g, b int) bool {
		return math.Abs(float64(r-0x8a))+math.Abs(float64(g-0x5a))+math.Abs(float64(b-0x2b)) <= 36
	}
	contour := func(img *image.RGBA) int {
		n, bb := 0, img.Bounds()
		px := func(x, y int) (int, int, int) {
			i := img.PixOffset(x, y)
			return int(img.Pix[i]), int(img.Pix[i+1]), int(img.Pix[i+2])
		}
		for y := bb.Min.Y + 1; y < bb.Max.Y-1; y++ {
		next:
			for x := bb.Min.X + 1; x < bb.Max.X-1; x++ {
				if !brown(px(x, y)) {
					continue
				}
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if r, g, b := px(x+dx, y+dy); orange(r, g, b) && !brown(r, g, b) {
							continue next
						}
					}
				}
				n++
			}
		}
		return n
	}
	// click clicks a button of the page as a person does, after checking
	// that it is there and shown.
	click := func(sel string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var shown bool
			if err := chromedp.Evaluate(fmt.Sprintf(`(e => !!e && !e.hidden && !e.disabled)(document.querySelector(%q))`, sel), &shown).Do(ctx); err != nil {
				return err
			}
			if !shown {
				return fmt.Errorf("no button %s shown", sel)
			}
			return chromedp.Click(sel, chromedp.ByQuery).Do(ctx)
		})
	}
	jump := func(what, js string) {
		t.Helper()
		do(what, chromedp.Evaluate(`svcViewer.map.jumpTo(`+js+`), true`, nil))
		settle(what)
	}

	// Inside the Hesse DGM (2 x 1 km), among the demo town, looking east
	// along the DGM so that the tilted view stays over it.
	const lon, lat = 8.6760, 50.1137
	do("open", chromedp.Navigate(fmt.Sprintf("%s/viewer/#17/%g/%g/90", base, lat, lon)))
	settle("first draw")
	flat := shot("flat")
	jump("tilt", `{pitch: 45}`)
	var extruded int
	do("extrusions", chromedp.Evaluate(`svcViewer.map.getPitch() > 0 && svcViewer.map.getLayer('buildings-3d') ?
		svcViewer.map.queryRenderedFeatures({layers: ['buildings-3d']}).length : 0`, &extruded))
	pitched := shot("pitched")
	fo, po := count(flat, orange), count(pitched, orange)
	t.Logf("orange pixels: flat %d, pitched %d (%d extrusion features rendered)", fo, po, extruded)
	if fo < 2000 || float64(po) < 1.3*float64(fo) || extruded == 0 {
		t.Errorf("orange pixels flat %d, pitched %d, extrusion features %d: the tilted map does not extrude the buildings", fo, po, extruded)
	}
	// A click on an extrusion shows that building's panel.
	var pick struct {
		Gmlid string
		X, Y  float64
	}
	do("find an extrusion", chromedp.Evaluate(`(() => { const m = svcViewer.map, c = m.getCanvas(), r = c.getBoundingClientRect();
		for (let y = c.clientHeight * 0.5; y < c.clientHeight * 0.9; y += 6) for (let x = c.clientWidth * 0.3; x < c.clientWidth * 0.7; x += 6) {
			const f = m.queryRenderedFeatures([x, y], {layers: ['buildings-3d']});
			if (f.length && f[0].properties.gmlid) return {Gmlid: f[0].properties.gmlid, X: r.left + x, Y: r.top + y};
		}
		return {Gmlid: '', X: 0, Y: 0}; })()`, &pick))
	if pick.Gmlid == "" {
		t.Error("no extrusion to click in the lower middle of the tilted map")
	} else {
		do("click the extrusion", chromedp.MouseClickXY(pick.X, pick.Y))
		var shown string
		for deadline := time.Now().Add(20 * time.Second); shown != pick.Gmlid && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			chromedp.Run(bctx, chromedp.Evaluate(`(document.getElementById('building-gmlid') || {}).textContent || ''`, &shown))
		}
		if shown != pick.Gmlid {
			t.Errorf("clicked the extrusion of %s, the panel shows %q", pick.Gmlid, shown)
		}
	}
	jump("no buildings", fmt.Sprintf(`{center: [%g, %g]}`, 8.6895, 50.1180))
	if n := count(shot("nobuildings"), orange); n > 0 {
		t.Errorf("%d orange pixels tilted over ground without buildings", n)
	}
	jump("back", fmt.Sprintf(`{center: [%g, %g]}`, lon, lat))

	// Terrain: MapLibre's heights from the terrain-RGB tiles, against the API.
	heights := func() (pts [][2]float64, hs []*float64) {
		t.Helper()
		var out struct {
			Pts [][2]float64
			Hs  []*float64
		}
		do("heights", chromedp.Evaluate(`(() => { const m = svcViewer.map, c = m.getCanvas(), w = c.clientWidth, h = c.clientHeight;
			const pts = [[0.5, 0.5], [0.3, 0.6], [0.7, 0.6], [0.4, 0.8], [0.6, 0.45]].map(([x, y]) => m.unproject([w * x, h * y])).map(p => [p.lng, p.lat]);
			return {Pts: pts, Hs: pts.map(p => m.queryTerrainElevation(p))}; })()`, &out))
		return out.Pts, out.Hs
	}
	if _, hs := heights(); hs[0] != nil {
		t.Errorf("terrain off: MapLibre has a terrain height %.2f m", *hs[0])
	}
	off := shot("terrain-off")
	do("terrain on", click("#btn-terrain"))
	settle("terrain")
	on := shot("terrain-on")
	var pressed string
	do("pressed", chromedp.AttributeValue("#btn-terrain", "aria-pressed", &pressed, nil, chromedp.ByQuery))
	if pressed != "true" {
		t.Errorf("Terrain button aria-pressed %q after the click", pressed)
	}
	pts, hs := heights()
	for i, p := range pts {
		var api struct {
			ElevationM float64 `json:"elevation_m"`
		}
		u := fmt.Sprintf("%s/v1/terrain/elevation?lon=%.8f&lat=%.8f&interpolation=bilinear", base, p[0], p[1])
		if st := getJSONStatus(u, &api); st != 200 {
			t.Fatalf("point %d %v: API %d", i, p, st)
		}
		if hs[i] == nil {
			t.Errorf("point %d %v: MapLibre has no terrain height with Terrain on", i, p)
		} else if d := math.Abs(*hs[i] - api.ElevationM); d > 1 {
			t.Errorf("point %d %v: MapLibre %.2f m, API %.2f m", i, p, *hs[i], api.ElevationM)
		} else {
			t.Logf("point %d: MapLibre %.2f m, API %.2f m", i, *hs[i], api.ElevationM)
		}
	}
	changed := 0
	for i := 0; i+3 < len(on.Pix) && i+3 < len(off.Pix); i += 4 {
		d := 0
		for k := range 3 {
			d += int(math.Abs(float64(int(on.Pix[i+k]) - int(off.Pix[i+k]))))
		}
		if d > 30 {
			changed++
		}
	}
	frac := float64(changed) / float64(len(on.Pix)/4)
	t.Logf("terrain on: %.1f %% of the pixels changed", 100*frac)
	if frac < 0.05 {
		t.Errorf("terrain on changes %.1f %% of the map's pixels", 100*frac)
	}

	// Contours, on the flat map without terrain.
	do("terrain off", click("#btn-terrain"))
	jump("flat again", `{pitch: 0}`)
	before := contour(shot("contours-off"))
	do("contours on", click("#btn-contours"))
	settle("contours")
	shown := contour(shot("contours-on"))
	var labels []struct{ Elevation float64 }
	do("labels", chromedp.Evaluate(`svcViewer.contourLabels`, &labels))
	do("contours off", click("#btn-contours"))
	settle("contours off")
	after := contour(shot("contours-off-again"))
	t.Logf("contour pixels: %d before, %d on, %d off again; %d labels %v", before, shown, after, len(labels), labels)
	if shown < 150 || before > 0 || after > 0 {
		t.Errorf("contour-coloured pixels: %d before, %d with Contours on, %d off again", before, shown, after)
	}
	if len(labels) == 0 {
		t.Error("no contour labels")
	}
	for _, l := range labels {
		if math.Mod(l.Elevation, 5) != 0 {
			t.Errorf("label %g m is not on an index line", l.Elevation)
		}
	}

	// The picture for docs/viewer.md: tilted with terrain and contours.
	jump("tilt again", `{pitch: 45}`)
	do("all on", click("#btn-terrain"), click("#btn-contours"))
	settle("all on")
	saveHalf(t, filepath.Join(artefactDir(t), "viewer-map-3d.png"), shot("all-on"))
	var errs []string
	do("errors", chromedp.Evaluate(`svcViewer.errors`, &errs))
	if len(errs) > 0 || len(pageErrors) > 0 {
		t.Errorf("map errors %q, page errors %q", errs, pageErrors)
	}
}

// saveHalf writes img at half its size (2x2 box filter) as a PNG.
func saveHalf(t *testing.T, path string, img *image.RGBA) {
	t.Helper()
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
	for y := 0; y < b.Dy()/2; y++ {
		for x := 0; x < b.Dx()/2; x++ {
			for k := range 4 {
				s := 0
				for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
					s += int(img.Pix[img.PixOffset(b.Min.X+2*x+d[0], b.Min.Y+2*y+d[1])+k])
				}
				out.Pix[out.PixOffset(x, y)+k] = uint8(s / 4)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
