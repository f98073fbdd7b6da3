package cmd

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestMapLibreExtrudesBuildingTiles opens cmd/testdata/maplibre/index.html
// in headless Chromium (SwiftShader WebGL): MapLibre GL JS as svc vendors
// it, one vector source that is svc's /v1/buildings/tiles.json and one
// fill-extrusion layer with height_m, pitched 60°, over the Hesse demo
// town. It judges the screenshot: the extrusion's red covers the ground
// point of (nearly) every demo building in view, as the building search
// gives them; with fill-extrusion-height 0 far fewer pixels are red (the
// heights lift the walls); with the layer hidden none are.
func TestMapLibreExtrudesBuildingTiles(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	base := serveData(t, demoData(t))
	judgeExtrusion(t, chromium, base, base)
}

// judgeExtrusion is the judge of TestMapLibreExtrudesBuildingTiles: the
// map draws from mapBase alone (MapLibre and the tiles), the demo
// buildings in view come from the building search of searchBase.
func judgeExtrusion(t *testing.T, chromium, mapBase, searchBase string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	page := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("testdata", "maplibre"))))
	defer page.Close()
	const lon, lat = 8.67815, 50.11295
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
			t.Fatalf("%s: %v", what, err)
		}
	}
	idle := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			var ok bool
			if err := chromedp.Run(bctx, chromedp.Evaluate(`window.svcIdle === true && !!window.svcMap && svcMap.loaded()`, &ok)); err == nil && ok {
				return
			}
			if time.Now().After(deadline) {
				var errs []string
				chromedp.Run(bctx, chromedp.Evaluate(`window.svcErrors`, &errs))
				t.Fatalf("%s: the map did not settle (errors %q, page errors %q)", what, errs, pageErrors)
			}
		}
	}
	// red counts the pixels of the extrusion's colour (shading keeps the
	// hue: red well above green and blue), in all and within 4 px of each
	// point.
	red := func(what string, pts [][2]float64) (total, hit int) {
		t.Helper()
		var shot []byte
		do(what, chromedp.CaptureScreenshot(&shot))
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(artefactDir(t), "maplibre-"+what+".png"), shot, 0o644)
		isRed := func(x, y int) bool {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			return r >= 60 && r > 2*g && r > 2*b
		}
		bb := img.Bounds()
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				if isRed(x, y) {
					total++
				}
			}
		}
		for _, p := range pts {
			if nearRed(bb, int(p[0]), int(p[1]), isRed) {
				hit++
			}
		}
		return total, hit
	}

	do("open", chromedp.Navigate(fmt.Sprintf("%s/?svc=%s&lon=%g&lat=%g&zoom=17&pitch=60&bearing=20", page.URL, url.QueryEscape(mapBase), lon, lat)))
	idle("first draw")
	// The demo buildings in view, from the search (not from the tiles):
	// the centre of each ground surface, projected by the map to the screen.
	var view [4]float64
	do("bounds", chromedp.Evaluate(`(() => { const b = svcMap.getBounds(); return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()]; })()`, &view))
	var page1 searchResult
	getJSON(t, fmt.Sprintf("%s/v1/buildings?limit=1000&bbox=%.6f,%.6f,%.6f,%.6f", searchBase, view[0], view[1], view[2], view[3]), &page1)
	var ground [][2]float64
	for _, f := range page1.Features {
		if f.Properties.SurfaceClass != 710 || len(f.Geometry.Coordinates) == 0 || len(f.Geometry.Coordinates[0]) == 0 {
			continue
		}
		var c [2]float64
		ring := f.Geometry.Coordinates[0][0]
		for _, p := range ring[:len(ring)-1] {
			c[0] += p[0] / float64(len(ring)-1)
			c[1] += p[1] / float64(len(ring)-1)
		}
		ground = append(ground, c)
	}
	var screen [][2]float64
	do("project", chromedp.Evaluate(fmt.Sprintf(`(() => { const c = svcMap.getCanvas(), w = c.clientWidth, h = c.clientHeight;
		return %s.map(p => svcMap.project(p)).filter(p => p.x > 20 && p.x < w - 20 && p.y > h * 0.35 && p.y < h - 20).map(p => [p.x, p.y]); })()`, jsonOf(ground)), &screen))
	if len(screen) < 20 {
		t.Fatalf("%d demo buildings in the lower part of the view (%d in its bounds)", len(screen), len(ground))
	}
	extruded, hit := red("extruded", screen)
	do("flat", chromedp.Evaluate(`svcMap.setPaintProperty('buildings-3d', 'fill-extrusion-height', 0), svcRedraw(), true`, nil))
	idle("flat")
	flat, flatHit := red("flat", screen)
	do("hide", chromedp.Evaluate(`svcMap.setLayoutProperty('buildings-3d', 'visibility', 'none'), svcRedraw(), true`, nil))
	idle("hidden")
	hidden, _ := red("hidden", nil)
	t.Logf("red pixels: extruded %d (at %d of %d buildings), flat %d (at %d), hidden %d", extruded, hit, len(screen), flat, flatHit, hidden)
	if hit < len(screen)*95/100 {
		t.Errorf("the extrusion covers %d of the %d demo buildings in view", hit, len(screen))
	}
	if extruded < 20000 || float64(extruded) < 1.3*float64(flat) {
		t.Errorf("extruded: %d red pixels, flat %d: the heights do not lift the buildings", extruded, flat)
	}
	if hidden > 0 {
		t.Errorf("%d red pixels with the layer hidden", hidden)
	}
	var errs []string
	do("errors", chromedp.Evaluate(`window.svcErrors`, &errs))
	if len(errs) > 0 || len(pageErrors) > 0 {
		t.Errorf("map errors %q, page errors %q", errs, pageErrors)
	}
}

// searchResult is the part of a /v1/buildings page the map test reads.
type searchResult struct {
	Features []struct {
		Geometry struct {
			Coordinates [][][][]float64
		}
		Properties struct {
			SurfaceClass int `json:"surface_class"`
		}
	}
}

func nearRed(bb image.Rectangle, x, y int, isRed func(x, y int) bool) bool {
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			if p := (image.Point{x + dx, y + dy}); p.In(bb) && isRed(p.X, p.Y) {
				return true
			}
		}
	}
	return false
}
