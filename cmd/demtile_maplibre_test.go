package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestDEMTilesInMapLibre hands the TileJSON of each encoding to MapLibre GL
// JS (the copy the viewer serves) in headless Chromium as a raster-dem
// source with setTerrain, and reads heights back with MapLibre's own
// decoder (map.queryTerrainElevation): at demo points they must equal the
// API's bilinear DGM height within half the encoding's step plus what
// MapLibre's half-pixel convention adds (below). On the river's NoData and
// just beyond the data's edge MapLibre must read the nearest valid height
// (the fill, docs/terrain-tiles.md) within fillTolM, not the encoding's
// lowest height (-10000 or -32768 m, a pit) it read before the fill.
func TestDEMTilesInMapLibre(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	base := serveData(t, demoData(t))
	judgeDEMHeights(t, chromium, base, base, 17)
}

// judgeDEMHeights is the judge of TestDEMTilesInMapLibre: MapLibre (the
// viewer's copy) draws from mapBase alone, whose TileJSON states maxZoom;
// the heights it reads must be the elevation API's of apiBase.
func judgeDEMHeights(t *testing.T, chromium, mapBase, apiBase string, maxZoom int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	base := apiBase
	bctx := headlessChromium(t, ctx, chromium, 800, 600)
	if err := chromedp.Run(bctx, chromedp.Navigate(mapBase+"/viewer")); err != nil {
		t.Fatal(err)
	}
	// Demo he DGM points (UTM32): inside both DGM tiles, near their edge;
	// then two without data: in the river (NoData about 5551765-5551795 m
	// N at 477000 m E), 10 m north of its southern bank's latitude there,
	// and 12 m east of the DGM's east edge (478000 m E). For each, the
	// API's first valid height 1 m at a time towards the data (south,
	// west) is the height the fill must give.
	at := func(e, n float64) [2]float64 {
		lon, lat := geo.FromUTM(geo.Zone(32), e, n)
		return [2]float64{lon, lat}
	}
	points := [][2]float64{at(476300.3, 5551120.7), at(476999.5, 5551610.2), at(477420.8, 5551480.9), at(477801.1, 5551905.4),
		at(477000, 5551775), at(478012, 5551500)}
	nearest := map[int][2]float64{}
	for i, walk := range map[int][4]float64{4: {477000, 5551775, 0, -1}, 5: {478012, 5551500, -1, 0}} {
		for k := 0.0; k < 40; k++ {
			p := at(walk[0]+k*walk[2], walk[1]+k*walk[3])
			var api struct{}
			if getJSONStatus(fmt.Sprintf("%s/v1/terrain/elevation?lon=%.8f&lat=%.8f", base, p[0], p[1]), &api) == 200 {
				nearest[i] = p
				t.Logf("point %d: no data for %.0f m", i, k)
				break
			}
		}
		if _, ok := nearest[i]; !ok {
			t.Fatalf("point %d: no data within 40 m", i)
		}
	}
	centre := at(477000, 5551500)
	for _, enc := range []struct {
		route string
		step  float64
	}{{"rgb", 0.1}, {"terrarium", 1.0 / 256}} {
		t.Run(enc.route, func(t *testing.T) {
			js := fmt.Sprintf(`new Promise((resolve, reject) => {
				const old = document.getElementById('demtest'); if (old) old.remove();
				const d = document.createElement('div'); d.id = 'demtest';
				d.style = 'position:fixed;left:0;top:0;width:800px;height:600px;z-index:10000';
				document.body.appendChild(d);
				const m = new maplibregl.Map({container: d, center: %[2]s, zoom: 15.5, attributionControl: false, fadeDuration: 0,
					style: {version: 8, sources: {dem: {type: 'raster-dem', url: location.origin + '/v1/terrain/%[1]s.json'}},
						layers: [{id: 'bg', type: 'background', paint: {'background-color': '#777'}}]}});
				m.on('error', e => reject(String(e.error && e.error.message || e)));
				m.on('load', () => {
					m.setTerrain({source: 'dem', exaggeration: 1});
					m.once('idle', () => {
						const src = m.getSource('dem');
						resolve(JSON.stringify({encoding: src.encoding, tileSize: src.tileSize, maxzoom: src.maxzoom,
							heights: %[3]s.map(p => m.queryTerrainElevation(p))}));
					});
				});
			})`, enc.route, jsonOf(centre), jsonOf(points))
			var out string
			if err := chromedp.Run(bctx, chromedp.Evaluate(js, &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Encoding string     `json:"encoding"`
				TileSize int        `json:"tileSize"`
				MaxZoom  int        `json:"maxzoom"`
				Heights  []*float64 `json:"heights"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			wantEnc := map[string]string{"rgb": "mapbox", "terrarium": "terrarium"}[enc.route]
			if got.Encoding != wantEnc || got.TileSize != 256 || got.MaxZoom != maxZoom {
				t.Errorf("MapLibre took encoding %q, tileSize %d, maxzoom %d from the TileJSON", got.Encoding, got.TileSize, got.MaxZoom)
			}
			worst, worstFill := 0.0, 0.0
			for i, p := range points {
				var api struct {
					ElevationM float64 `json:"elevation_m"`
				}
				ref, filled := nearest[i]
				if !filled {
					ref = p
				} else if status := getJSONStatus(fmt.Sprintf("%s/v1/terrain/elevation?lon=%.8f&lat=%.8f", base, p[0], p[1]), &api); status != http.StatusNotFound {
					t.Fatalf("point %d: API %d, want 404 (no data there)", i, status)
				}
				u := fmt.Sprintf("%s/v1/terrain/elevation?lon=%.8f&lat=%.8f&interpolation=bilinear", base, ref[0], ref[1])
				status := getJSONStatus(u, &api)
				h := got.Heights[i]
				switch {
				case h == nil:
					t.Fatalf("point %d: MapLibre has no terrain height", i)
				case status != 200:
					t.Fatalf("point %d: API %d, MapLibre %.3f m", i, status, *h)
				case filled:
					worstFill = max(worstFill, math.Abs(*h-api.ElevationM))
					t.Logf("point %d (no data): MapLibre %.3f m, API %.3f m at the nearest valid place", i, *h, api.ElevationM)
				default:
					worst = max(worst, math.Abs(*h-api.ElevationM))
					t.Logf("point %d: MapLibre %.3f m, API %.3f m", i, *h, api.ElevationM)
				}
			}
			// MapLibre's bilinear (Terrain.getDEMElevation, and its terrain
			// shader) places pixel (i, j) of a tile at the tile's (i/256,
			// j/256), the pixel's corner, where we and GDAL sample the centre:
			// half a pixel (1.5 m at z 15) times the demo relief's slope (at
			// most 7 %) is up to 0.1 m.
			if lim := enc.step/2 + 0.1; worst > lim {
				t.Errorf("worst |MapLibre - API| %.4f m (allowed %.4f)", worst, lim)
			}
			// Without data the fill is the nearest valid pixel's height: the
			// pixel (3 m at z 15) and the few metres between the bank found
			// straight south and the nearest one, at most 7 % slope.
			const fillTolM = 1.5
			if worstFill > fillTolM {
				t.Errorf("worst |MapLibre - nearest valid height| %.3f m without data (allowed %g m): a pit", worstFill, fillTolM)
			}
		})
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestDEMTilesPitchedEdgeInMapLibre looks east across the demo DGM's east
// edge (478000 m E, 350 m ahead) at pitch 70 with MapLibre's 3D terrain
// and a hillshade layer draped on it, both from the raster-dem source, on
// a magenta page, and counts the screenshot's magenta pixels: where the
// terrain is drawn they are covered, up to the horizon. With a pit at the
// edge the terrain beyond it drops 10 km out of the view and the page
// shows through there (and the river is a trench of black walls). The
// TileJSON's tiles (nodata=fill) must cover almost all of the view; the
// transparent tiles (the bytes the route served before the fill, as the
// browser decodes them) must leave a large part uncovered, so the scene is
// known to look at the edge.
func TestDEMTilesPitchedEdgeInMapLibre(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	base := serveData(t, demoData(t)) // the demo build (minutes on a loaded machine) is not the browser's time
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bctx := headlessChromium(t, ctx, chromium, 800, 600)
	lon, lat := geo.FromUTM(geo.Zone(32), 477650, 5551500)
	dir := artefactDir(t)
	uncovered := map[string]float64{}
	for _, tc := range []struct{ name, tiles string }{
		{"fill", "/v1/terrain/rgb/{z}/{x}/{y}.png?nodata=fill"},
		{"transparent", "/v1/terrain/rgb/{z}/{x}/{y}.png"},
	} {
		js := fmt.Sprintf(`new Promise((resolve, reject) => {
			const old = document.getElementById('demtest'); if (old) old.remove();
			const d = document.createElement('div'); d.id = 'demtest';
			d.style = 'position:fixed;left:0;top:0;width:800px;height:600px;z-index:10000;background:#f0f';
			document.body.appendChild(d);
			const m = new maplibregl.Map({container: d, center: [%f, %f], zoom: 16, pitch: 70, bearing: 90,
				attributionControl: false, fadeDuration: 0, maxPitch: 85,
				style: {version: 8, sources: {dem: {type: 'raster-dem', tiles: [location.origin + '%s'], tileSize: 256, maxzoom: 17, encoding: 'mapbox'}},
					layers: [{id: 'bg', type: 'background', paint: {'background-color': '#ddd'}},
						{id: 'hs', type: 'hillshade', source: 'dem', paint: {'hillshade-exaggeration': 1}}]}});
			m.on('error', e => reject(String(e.error && e.error.message || e)));
			m.on('load', () => {
				m.setTerrain({source: 'dem', exaggeration: 1});
				m.once('idle', () => resolve('ok'));
			});
		})`, lon, lat, tc.tiles)
		var out string
		var shot []byte
		// A fresh page for each map: one WebGL context at a time.
		if err := chromedp.Run(bctx, chromedp.Navigate(base+"/viewer"), chromedp.Evaluate(js, &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
			chromedp.CaptureScreenshot(&shot)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "dem-edge-"+tc.name+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		n, magenta := 0, 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				n++
				if r>>8 > 200 && g>>8 < 60 && bl>>8 > 200 {
					magenta++
				}
			}
		}
		uncovered[tc.name] = float64(magenta) / float64(n)
		t.Logf("%s: %.1f %% of the view without terrain (screenshot %s)", tc.name, 100*uncovered[tc.name], filepath.Join(dir, "dem-edge-"+tc.name+".png"))
	}
	if uncovered["transparent"] < 0.2 {
		t.Errorf("transparent tiles: %.1f %% of the view without terrain, the scene shows no pit to compare with", 100*uncovered["transparent"])
	}
	if uncovered["fill"] > 0.05 {
		t.Errorf("filled tiles: %.1f %% of the view without terrain: a pit at the data's edge", 100*uncovered["fill"])
	}
}
