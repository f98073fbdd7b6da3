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

	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestMapLibreDrawsContours opens cmd/testdata/maplibre/index.html in
// headless Chromium over the Hesse demo DGM, hides its building layer and
// adds svc's /v1/terrain/contours.json as a vector source with one blue
// line layer on the "contours" source layer (index lines wider). It judges
// the screenshot: the lines' blue is drawn, and none with the layer hidden.
func TestMapLibreDrawsContours(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	m := contourMap(t, chromium, serveData(t, demoData(t)), "")
	t.Logf("blue pixels: %d with the contour layer, %d hidden", m.shown, m.hidden)
	if m.shown < 1000 {
		t.Errorf("%d pixels of the contour colour", m.shown)
	}
	if m.hidden > 0 {
		t.Errorf("%d pixels of the contour colour with the layer hidden", m.hidden)
	}
}

// contourShot is what contourMap saw: the screenshot with the contour
// layer and the pixels of its colour, shown and hidden.
type contourShot struct {
	img           image.Image
	shown, hidden int
}

// contourMap draws the contours of the svc at base as
// TestMapLibreDrawsContours describes, at zoom 15 over the two demo DGM
// files (5 m lines), and fails t on map errors. Screenshots go to the
// artefacts as maplibre-contours<tag>-{shown,hidden}.png.
func contourMap(t *testing.T, chromium, base, tag string) contourShot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	page := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("testdata", "maplibre"))))
	defer page.Close()
	bctx := headlessChromium(t, ctx, chromium, 800, 600)
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
				t.Fatalf("%s: the map did not settle (errors %q)", what, errs)
			}
		}
	}
	blue := func(what string) (image.Image, int) {
		t.Helper()
		var shot []byte
		do(what, chromedp.CaptureScreenshot(&shot))
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(artefactDir(t), "maplibre-contours"+tag+"-"+what+".png"), shot, 0o644)
		n := 0
		bb := img.Bounds()
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				r, g, b = r>>8, g>>8, b>>8
				if b >= 60 && b > 2*r && b > 2*g {
					n++
				}
			}
		}
		return img, n
	}
	do("open", chromedp.Navigate(fmt.Sprintf("%s/?svc=%s&lon=8.6783&lat=50.1153&zoom=15", page.URL, url.QueryEscape(base))))
	idle("first draw")
	do("contours", chromedp.Evaluate(fmt.Sprintf(`svcMap.setLayoutProperty('buildings-3d', 'visibility', 'none'),
		svcMap.addSource('contours', {type: 'vector', url: %q}),
		svcMap.addLayer({id: 'contour-lines', type: 'line', source: 'contours', 'source-layer': 'contours',
			paint: {'line-color': '#1030e0', 'line-width': ['case', ['get', 'index'], 3, 1.5]}}),
		svcRedraw(), true`, base+"/v1/terrain/contours.json"), nil))
	idle("contours")
	var m contourShot
	m.img, m.shown = blue("shown")
	do("hide", chromedp.Evaluate(`svcMap.setLayoutProperty('contour-lines', 'visibility', 'none'), svcRedraw(), true`, nil))
	idle("hidden")
	_, m.hidden = blue("hidden")
	var errs []string
	do("errors", chromedp.Evaluate(`window.svcErrors`, &errs))
	if len(errs) > 0 {
		t.Errorf("map errors %q", errs)
	}
	return m
}
