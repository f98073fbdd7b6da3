package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestViewerColoursBuildingsByAttribute drives the viewer's 3D tab in
// headless Chromium on the tileset of the real NRW LoD2 sample and judges
// what a person sees:
//   - the "Colour by" control shows on the 3D tab; choosing "height" turns
//     the buildings into the height classes' colours (the rendered pixels
//     of the globe: many more pixels of the < 6 m and 6-12 m blues than
//     uncoloured), choosing "function" into the living-function orange
//     (the sample's buildings are mostly 31001_1xxx), "none" back;
//   - clicking a building shows its attributes from the tile (height,
//     function with its AdV label) equal to /v1/buildings/{gmlid}/attributes.
func TestViewerColoursBuildingsByAttribute(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	nrw := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	data := t.TempDir()
	for _, c := range [][]string{
		{"import", "lod2", "--data", data, "--bl", "nrw", "--snapshot", "2026-01-01", "--license", "dl-de-zero-2.0", nrw},
		{"build", "tileset", "--data", data, "--bl", "nrw"},
	} {
		if out, err := run(ctx, c...); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	base := serveInBackground(t, data)
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
			t.Fatalf("%s: %v", what, err)
		}
	}
	waitJS := func(what, expr string, limit time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(limit); ; time.Sleep(200 * time.Millisecond) {
			var ok bool
			if err := chromedp.Run(bctx, chromedp.Evaluate(expr, &ok)); err == nil && ok {
				return
			}
			if time.Now().After(deadline) {
				var errs []string
				chromedp.Run(bctx, chromedp.Evaluate(`window.svcViewer ? svcViewer.errors : []`, &errs))
				t.Fatalf("%s: not true after %v: %s (page errors %q %q)", what, limit, expr, errs, pageErrors)
			}
		}
	}
	do("open", chromedp.Navigate(base+"/viewer/"))
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	var hidden bool
	do("control on the map tab", chromedp.Evaluate(`document.getElementById('colour-by-wrap').hidden`, &hidden))
	if !hidden {
		t.Error("the Colour by control shows on the map tab")
	}
	do("open 3D", chromedp.Click("#tab-globe", chromedp.ByQuery))
	waitJS("globe ready", `!!svcViewer.globeReady`, 90*time.Second)
	drawn := `svcViewer.globeTilesets.some(t => t.svcKind === 'buildings' && t.tilesLoaded && t.statistics.numberOfLoadedTilesTotal > 0)`
	waitJS("buildings drawn", drawn, 60*time.Second)
	// Straight down at the buildings, so that they fill the view.
	do("look down", chromedp.Evaluate(`(() => { const v = svcViewer.globe, t = svcViewer.globeTilesets.find(t => t.svcKind === 'buildings');
		v.camera.viewBoundingSphere(t.boundingSphere, new Cesium.HeadingPitchRange(0, -Math.PI / 2, t.boundingSphere.radius * 1.2));
		v.camera.lookAtTransform(Cesium.Matrix4.IDENTITY); return true; })()`, nil))
	time.Sleep(time.Second)
	waitJS("buildings drawn from above", drawn, 60*time.Second)
	do("control on the 3D tab", chromedp.Evaluate(`document.getElementById('colour-by-wrap').hidden`, &hidden))
	if hidden {
		t.Error("the Colour by control is hidden on the 3D tab")
	}
	// pixels renders the globe and counts its canvas pixels near each colour
	// (shading darkens a colour: the hue is compared, within a distance in
	// RGB of the colour scaled to the pixel's brightness).
	type counts struct{ DarkBlue, LightBlue, Orange, Total int }
	pixels := func(what string) counts {
		t.Helper()
		var c counts
		do(what, chromedp.Evaluate(`(() => {
			const v = svcViewer.globe; v.render();
			const src = v.canvas, cv = document.createElement('canvas'); cv.width = src.width; cv.height = src.height;
			const g = cv.getContext('2d'); g.drawImage(src, 0, 0);
			const d = g.getImageData(0, 0, cv.width, cv.height).data;
			const near = (r, gr, b, ref) => { const s = Math.max(r, gr, b) / Math.max(...ref); if (s < 0.35) return false;
				return Math.hypot(r - ref[0] * s, gr - ref[1] * s, b - ref[2] * s) < 28; };
			const out = {DarkBlue: 0, LightBlue: 0, Orange: 0, Total: d.length / 4};
			for (let i = 0; i < d.length; i += 4) {
				const r = d[i], gr = d[i + 1], b = d[i + 2];
				if (near(r, gr, b, [0x21, 0x66, 0xac])) out.DarkBlue++;
				else if (near(r, gr, b, [0x67, 0xa9, 0xcf])) out.LightBlue++;
				else if (near(r, gr, b, [0xf2, 0x8e, 0x2b])) out.Orange++;
			}
			return out; })()`, &c))
		return c
	}
	choose := func(v string) {
		t.Helper()
		do("colour by "+v, chromedp.SetValue("#colour-by", v, chromedp.ByQuery),
			chromedp.Evaluate(`document.getElementById('colour-by').dispatchEvent(new Event('change')), true`, nil))
		time.Sleep(500 * time.Millisecond)
		waitJS("restyled", drawn, 60*time.Second)
	}
	plain := pixels("plain pixels")
	choose("height")
	height := pixels("height pixels")
	choose("function")
	function := pixels("function pixels")
	choose("none")
	back := pixels("none pixels")
	t.Logf("pixels of %d: plain %+v, height %+v, function %+v, none %+v", plain.Total, plain, height, function, back)
	if blue := height.DarkBlue + height.LightBlue - plain.DarkBlue - plain.LightBlue; blue < 2000 {
		t.Errorf("colour by height: %d more blue pixels than uncoloured, want >= 2000", blue)
	}
	if o := function.Orange - plain.Orange; o < 2000 {
		t.Errorf("colour by function: %d more orange pixels than uncoloured, want >= 2000", o)
	}
	if d := back.DarkBlue + back.LightBlue + back.Orange - plain.DarkBlue - plain.LightBlue - plain.Orange; d > 200 {
		t.Errorf("colour by none: %d coloured pixels more than at first", d)
	}
	var legend string
	choose("height")
	do("legend", chromedp.Text("#colour-legend", &legend, chromedp.ByQuery))
	if !strings.Contains(legend, "< 6 m") {
		t.Errorf("legend %q", legend)
	}

	// Pick a building: its attributes from the tile show in the panel.
	var pick struct {
		Gmlid string
		X, Y  float64
	}
	do("find a building", chromedp.Evaluate(`(() => {
		const v = svcViewer.globe, c = v.scene.canvas, r = c.getBoundingClientRect();
		for (let y = c.clientHeight * 0.3; y < c.clientHeight * 0.7; y += 8) for (let x = c.clientWidth * 0.3; x < c.clientWidth * 0.7; x += 8) {
			const f = v.scene.pick(new Cesium.Cartesian2(x, y));
			if (f instanceof Cesium.Cesium3DTileFeature && f.getProperty('gmlid') && f.getProperty('function') !== undefined)
				return {Gmlid: f.getProperty('gmlid'), X: r.left + x, Y: r.top + y};
		}
		return {Gmlid: '', X: 0, Y: 0}; })()`, &pick))
	if pick.Gmlid == "" {
		t.Fatal("no building to pick in the 3D view")
	}
	do("click the building", chromedp.MouseClickXY(pick.X, pick.Y))
	waitJS("building panel", fmt.Sprintf(`(document.getElementById('building-gmlid') || {}).textContent === %q && !!document.getElementById('building-attr-height_m')`, pick.Gmlid), 20*time.Second)
	var shownH, shownFn string
	do("attributes shown", chromedp.Text("#building-attr-height_m", &shownH, chromedp.ByQuery),
		chromedp.Text("#building-attr-function", &shownFn, chromedp.ByQuery))
	var a struct {
		Building struct {
			Function []struct {
				Code    string `json:"code"`
				LabelDe string `json:"label_de"`
			} `json:"function"`
		} `json:"building"`
		Measures map[string]json.RawMessage `json:"measures"`
	}
	getJSON(t, base+"/v1/buildings/"+url.PathEscape(pick.Gmlid)+"/attributes", &a)
	var h float64
	if err := json.Unmarshal(a.Measures["height_m"], &h); err != nil {
		t.Fatalf("height_m %s: %v", a.Measures["height_m"], err)
	}
	if want := fmt.Sprintf("%.2f m", math.Round(h*100)/100); shownH != want {
		t.Errorf("%s: height shown %q, API %q", pick.Gmlid, shownH, want)
	}
	if len(a.Building.Function) > 0 {
		f := a.Building.Function[0]
		if want := f.Code + " (" + f.LabelDe + ")"; f.LabelDe != "" && shownFn != want {
			t.Errorf("%s: function shown %q, API %q", pick.Gmlid, shownFn, want)
		}
	}
	if len(pageErrors) > 0 {
		t.Errorf("page errors: %q", pageErrors)
	}
}
