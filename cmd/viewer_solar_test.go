package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestViewerSolarLayer drives the viewer's Map tab in headless Chromium
// over the real NRW sample with a solar pack (and Berlin without one) and
// judges the screenshots: at zoom 19 over the interior of the sample's
// largest roof facet, after a click on the Solar button, the map's pixel
// at that point (MapLibre's own projection of it) has the colour the
// TileJSON's legend gives the facet's stored annual irradiation (within 6
// of 255 per channel: MapLibre samples the PNG with linear filtering) and
// the legend is shown with the ramp's stops; after a second click the
// pixel is far from that colour (at least 60 apart) and the legend hidden.
// Before the click the layer is not drawn either.
func TestViewerSolarLayer(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	data, big, bigWh := solarSamples(t)
	base := serveData(t, data)
	_, body := solarGet(t, base+"/v1/solar/tiles.json", nil)
	var tj solarTileJSON
	if err := json.Unmarshal(body, &tj); err != nil {
		t.Fatal(err)
	}
	want := tj.colourAt(float64(bigWh) / 1000)
	const z = 19
	gx, gy, d := interiorPoint(t, big.Coords, z)
	if d < 4 {
		t.Fatalf("the largest facet has no point 4 px inside at z%d", z)
	}
	n := 256 * math.Exp2(z)
	lon := gx/n*360 - 180
	lat := math.Atan(math.Sinh(math.Pi*(1-2*gy/n))) * 180 / math.Pi

	bctx := headlessChromium(t, ctx, chromium, 1000, 700)
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
	// pixel is the map's colour at (lon, lat), where MapLibre projects it.
	pixel := func(what string) [3]float64 {
		t.Helper()
		var at struct{ X, Y float64 }
		do(what, chromedp.Evaluate(fmt.Sprintf(`(p => ({X: p.x, Y: p.y}))(svcViewer.map.project([%.9f, %.9f]))`, lon, lat), &at))
		var b []byte
		do(what, chromedp.Screenshot("#map", &b, chromedp.ByQuery))
		os.WriteFile(filepath.Join(artefactDir(t), "viewer-solar-"+what+".png"), b, 0o644)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		rgba := image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
		i := rgba.PixOffset(int(at.X), int(at.Y))
		return [3]float64{float64(rgba.Pix[i]), float64(rgba.Pix[i+1]), float64(rgba.Pix[i+2])}
	}
	dist := func(a, b [3]float64) float64 {
		return math.Max(math.Abs(a[0]-b[0]), math.Max(math.Abs(a[1]-b[1]), math.Abs(a[2]-b[2])))
	}
	legendShown := func() (bool, string) {
		var shown bool
		var text string
		do("legend", chromedp.Evaluate(`!document.getElementById('solar-legend').hidden`, &shown),
			chromedp.Evaluate(`document.getElementById('solar-legend').textContent`, &text))
		return shown, text
	}
	click := func(what string) {
		t.Helper()
		var shown bool
		do(what, chromedp.Evaluate(`(e => !!e && !e.hidden && !e.disabled)(document.getElementById('btn-solar'))`, &shown))
		if !shown {
			t.Fatalf("%s: the Solar button is not shown", what)
		}
		do(what, chromedp.Click("#btn-solar", chromedp.ByQuery))
		settle(what)
	}

	do("open", chromedp.Navigate(fmt.Sprintf("%s/viewer/#%d/%.7f/%.7f", base, z, lat, lon)))
	settle("first draw")
	before := pixel("before")
	if d := dist(before, want); d < 60 {
		t.Errorf("before the Solar button the facet's pixel %v is already near the ramp's colour %v", before, want)
	}
	click("solar on")
	on := pixel("on")
	if d := dist(on, want); d > 6 {
		t.Errorf("Solar on: the pixel of facet %d/%d (%.3f kWh/m²) is %v, the legend's colour %v", big.SurfaceID, big.Part, float64(bigWh)/1000, on, want)
	}
	if shown, text := legendShown(); !shown || !strings.Contains(text, "kWh/m²") || !strings.Contains(text, "1300") {
		t.Errorf("Solar on: legend shown %v, text %q", shown, text)
	}
	t.Logf("pixel at the facet: before %v, on %v (legend colour %v)", before, on, want)
	click("solar off")
	off := pixel("off")
	if d := dist(off, want); d < 60 {
		t.Errorf("Solar off: the pixel %v is still near the ramp's colour %v", off, want)
	}
	if shown, _ := legendShown(); shown {
		t.Error("Solar off: the legend is still shown")
	}
	if len(pageErrors) > 0 {
		t.Errorf("page errors %q", pageErrors)
	}
}
