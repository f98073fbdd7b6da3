package cmd

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestOfflineBundlesInMapLibre: MapLibre GL JS in headless Chromium draws
// from `svc serve --pmtiles` on an empty data directory alone (its
// MapLibre copy, its TileJSONs and tiles from the exported archives of the
// demo bbox, zooms 12-16) what it draws from the full server: the
// building extrusions cover the demo buildings in view
// (judgeExtrusion), the terrain heights MapLibre decodes from the offline
// terrain-RGB and Terrarium tiles are the full server's elevation API's
// (judgeDEMHeights: map.queryTerrainElevation over setTerrain), and a map
// of MapLibre's hillshade layer of the offline terrain-RGB source is pixel
// for pixel the map drawn from the full server, with shaded relief in it;
// so is the map of the offline contour lines (contourMap), with the lines
// in it.
func TestOfflineBundlesInMapLibre(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	dir := bundleDir(t)
	off, full := offlineServer(t, dir), serveData(t, demoData(t))
	t.Run("buildings extruded", func(t *testing.T) { judgeExtrusion(t, chromium, off, full) })
	t.Run("terrain heights", func(t *testing.T) { judgeDEMHeights(t, chromium, off, full, 16) })
	t.Run("contours drawn as from the full server", func(t *testing.T) {
		a, b := contourMap(t, chromium, full, "-full"), contourMap(t, chromium, off, "-offline")
		diff := 0
		bb := a.img.Bounds()
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				r, g, bl, _ := a.img.At(x, y).RGBA()
				r2, g2, b2, _ := b.img.At(x, y).RGBA()
				if r != r2 || g != g2 || bl != b2 {
					diff++
				}
			}
		}
		t.Logf("contour pixels: %d full, %d offline; %d of %d pixels differ", a.shown, b.shown, diff, bb.Dx()*bb.Dy())
		if a.shown < 1000 || b.shown != a.shown || b.hidden != 0 || diff > 0 {
			t.Errorf("MapLibre drew %d contour pixels from the full server, %d (%d hidden) offline, %d pixels differ: want the same map",
				a.shown, b.shown, b.hidden, diff)
		}
	})
	t.Run("terrain drawn as from the full server", func(t *testing.T) {
		a, b := terrainMap(t, chromium, full), terrainMap(t, chromium, off)
		colours := map[[3]uint32]int{}
		diff := 0
		bb := a.Bounds()
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				r, g, bl, _ := a.At(x, y).RGBA()
				r2, g2, b2, _ := b.At(x, y).RGBA()
				if r != r2 || g != g2 || bl != b2 {
					diff++
				}
				colours[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
			}
		}
		t.Logf("%d of %d pixels differ; colours %v", diff, bb.Dx()*bb.Dy(), colours)
		if diff > 0 {
			t.Errorf("%d of %d pixels differ between the full server's map and the offline one", diff, bb.Dx()*bb.Dy())
		}
		// The demo relief is planar slopes: MapLibre shades it in a few
		// greys. A missing or flat DEM draws one colour.
		shades := 0
		for _, n := range colours {
			if n > bb.Dx()*bb.Dy()/10 {
				shades++
			}
		}
		if shades < 2 {
			t.Errorf("the map has %d shades over a tenth of it (%v): no shaded relief", shades, colours)
		}
	})
}

// terrainMap draws, in a 256 x 192 px map from base alone, MapLibre's
// hillshade layer of the terrain-RGB source at zoom 15 (tiles of zoom 16,
// which both servers hold) over the demo Hesse DGM south of its river
// (whose NoData MapLibre reads as -10000 m), and returns the screenshot of
// the map. (With setTerrain as well, SwiftShader takes 80 s a map.)
func terrainMap(t *testing.T, chromium, base string) image.Image {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bctx := headlessChromium(t, ctx, chromium, 800, 600)
	if err := chromedp.Run(bctx, chromedp.Navigate(base+"/viewer")); err != nil {
		t.Fatal(err)
	}
	js := `new Promise((resolve, reject) => {
		const d = document.createElement('div');
		d.style = 'position:fixed;left:0;top:0;width:256px;height:192px;z-index:10000';
		document.body.appendChild(d);
		const m = new maplibregl.Map({container: d, center: %s, zoom: 15, attributionControl: false, fadeDuration: 0,
			style: {version: 8, sources: {dem: {type: 'raster-dem', url: location.origin + '/v1/terrain/rgb.json'}},
				layers: [{id: 'bg', type: 'background', paint: {'background-color': '#777'}},
					{id: 'hs', type: 'hillshade', source: 'dem', paint: {'hillshade-exaggeration': 1,
						'hillshade-shadow-color': '#000000', 'hillshade-highlight-color': '#ffffff', 'hillshade-accent-color': '#000000'}}]}});
		m.on('error', e => reject(String(e.error && e.error.message || e)));
		m.on('load', () => m.once('idle', () => resolve(true)));
	})`
	lon, lat := geo.FromUTM(geo.Zone(32), 477000, 5551400)
	js = fmt.Sprintf(js, jsonOf([2]float64{lon, lat}))
	var ok bool
	if err := chromedp.Run(bctx, chromedp.Evaluate(js, &ok, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatalf("map from %s: %v", base, err)
	}
	var shot []byte
	if err := chromedp.Run(bctx, chromedp.CaptureScreenshot(&shot)); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(artefactDir(t), fmt.Sprintf("terrain-%d.png", time.Now().UnixNano())), shot, 0o644)
	return img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(0, 0, 256, 192))
}
