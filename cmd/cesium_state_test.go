package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
)

// stateReport is what the CesiumJS page of make bench-scale's judge
// (internal/scalerun.StatePage, served as /state.html) reports for one
// tileset: Views is its product's, Errors and Failed the page's and the
// product's together.
type stateReport struct {
	Done     bool
	OK       bool
	Cesium   string
	Errors   []string
	Warnings []string
	Failed   []string // tileFailed events
	Products []struct {
		URL    string
		Failed []string
		Errors []string
		Views  map[string]stateView
	}
	Views map[string]stateView `json:"-"`
}

type stateView struct {
	Requests         int
	Bytes            int64 // of the requested files, from the disk
	MS               int   // from the move to a settled view, 1 s of quiet included
	URLs             []string
	Selected         int
	Visited          int
	ContentReady     int
	FeaturesSelected int
	Triangles        int
	CameraHeight     float64
	Hits             int
}

// Request budgets of a state-size tileset in CesiumJS (issue 24): the first
// view of the whole state, and a street view in a town.
const (
	stateViewMaxRequests  = 50
	streetViewMaxRequests = 200
	// stateViewMaxBytes bounds what the first view downloads: the request
	// count alone would pass a single tileset.json of megabytes, which is
	// what keeps a viewer waiting before anything shows.
	stateViewMaxBytes = 1 << 20
)

// TestStateTilesetRequestsInCesium builds the building tileset of a
// synthetic state (20,000 box buildings in towns over 200 x 170 km, at most
// 4 per tile: 9,601 leaves, as many as 11 million buildings at the default
// 1,000 per tile) with `svc build tileset`, serves it with `svc serve` and
// loads it in CesiumJS in headless Chromium. It counts the tile requests
// (tileset JSON, glb) CesiumJS makes for the first view of the whole state
// (from straight above, and after viewer.zoomTo) and for a street view in
// the densest town, and asserts that the street view draws buildings
// (scene.pick hits the tileset).
func TestStateTilesetRequestsInCesium(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	testtool.Node(t, "cesium")
	cesiumDir := filepath.Join(testtool.NodeModules(t), "cesium", "Build", "Cesium")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	data := t.TempDir()
	if _, err := fixture.StateLoD2(ctx, data, "nrw", 20000, 1); err != nil {
		t.Fatal(err)
	}
	if out, err := run(ctx, "build", "tileset", "--data", data, "--bl", "nrw", "--max-per-tile", "4"); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	} else {
		t.Log(strings.TrimSpace(out))
	}
	dir := filepath.Join(data, "buildings", "nrw", "2026-07-20")
	fi, err := os.Stat(filepath.Join(dir, "tileset.json"))
	if err != nil {
		t.Fatal(err)
	}
	lon, lat, roofs := densestLeaf(t, dir)
	w, s := geo.FromUTM(geo.Zone32, fixture.StateE0, fixture.StateN0)
	e, n := geo.FromUTM(geo.Zone32, fixture.StateE0+fixture.StateW, fixture.StateN0+fixture.StateH)
	base := serveInBackground(t, data)
	tileset := tilesetURL(t, base+fmt.Sprintf("/v1/tilesets?bbox=%f,%f,%f,%f", w, s, e, n), "tilesets", "nrw")

	t.Logf("tileset.json %d bytes", fi.Size())
	rep := stateViews(ctx, t, chromium, cesiumDir, data, tileset, [4]float64{w, s, e, n}, [3]float64{lon, lat, roofs})
	st := rep.Views["street"]
	if st.FeaturesSelected == 0 {
		t.Errorf("street view: no building feature selected")
	}
}

// stateViews loads the tileset at tilesetURL (served from data's tiles)
// with scalerun's judge page (scalerun.StatePage): the whole state (W, S, E, N degrees) and
// a street view at street (lon, lat and ground or roof height), logs the
// views and asserts the request budgets and that the street view draws the
// tileset.
func stateViews(ctx context.Context, t *testing.T, chromium, cesiumDir, data, tilesetURL string, state [4]float64, street [3]float64) stateReport {
	t.Helper()
	page := newCesiumPage(t, cesiumDir)
	q := url.Values{"tileset": {tilesetURL}, "state": {fmt.Sprintf("%f,%f,%f,%f", state[0], state[1], state[2], state[3])},
		"street": {fmt.Sprintf("%f,%f,%.1f", street[0], street[1], street[2])}}
	body := page.loadPage(ctx, t, chromium, page.URL+"/state.html?"+q.Encode())
	var rep stateReport
	if err := json.Unmarshal(body, &rep); err != nil || !rep.Done || len(rep.Products) != 1 {
		t.Fatalf("page report %.500s: %v", body, err)
	}
	p := rep.Products[0]
	rep.Views, rep.Errors = p.Views, append(rep.Errors, p.Errors...)
	for _, m := range rep.Warnings {
		t.Logf("console.warn: %s", m)
	}
	if !rep.OK || len(rep.Errors) > 0 || len(rep.Failed) > 0 {
		t.Fatalf("CesiumJS %s: errors %q, failed tiles %q", rep.Cesium, rep.Errors, rep.Failed)
	}
	t.Logf("CesiumJS %s", rep.Cesium)
	for _, name := range []string{"state", "zoomTo", "street"} {
		v, ok := rep.Views[name]
		if !ok {
			t.Fatalf("no %s view in the report", name)
		}
		for _, u := range v.URLs {
			rel, ok := strings.CutPrefix(u, "/tiles/")
			if fi, err := os.Stat(filepath.Join(data, filepath.FromSlash(rel))); ok && err == nil {
				v.Bytes += fi.Size()
			} else {
				t.Errorf("%s view: request %s is no file of the pack", name, u)
			}
		}
		rep.Views[name] = v
		t.Logf("%-6s view: %3d requests, %8d bytes, %5d ms, %4d tiles visited, %3d selected, %3d with content, %5d features, camera at %.0f m, %d/100 picks hit; first requests %q",
			name, v.Requests, v.Bytes, v.MS, v.Visited, v.Selected, v.ContentReady, v.FeaturesSelected, v.CameraHeight, v.Hits, v.URLs[:min(len(v.URLs), 8)])
	}
	for _, name := range []string{"state", "zoomTo"} {
		if r := rep.Views[name].Requests; r >= stateViewMaxRequests || r < 1 {
			t.Errorf("%s view of the whole state: %d tile requests, want 1..%d", name, r, stateViewMaxRequests-1)
		}
		if b := rep.Views[name].Bytes; b > stateViewMaxBytes {
			t.Errorf("%s view of the whole state: %d bytes of tiles and tileset JSON, want at most %d", name, b, stateViewMaxBytes)
		}
	}
	st := rep.Views["street"]
	if st.Requests > streetViewMaxRequests {
		t.Errorf("street view: %d tile requests, want at most %d", st.Requests, streetViewMaxRequests)
	}
	if st.Hits == 0 || st.ContentReady == 0 {
		t.Errorf("street view draws nothing of the tileset: %d/100 picks hit, %d tiles with content", st.Hits, st.ContentReady)
	}
	return rep
}

// densestLeaf walks the tileset files in dir and returns the centre (WGS84
// degrees) and top height of the deepest leaf (the smallest quadtree cell
// with more than --max-per-tile buildings): the middle of a dense town.
func densestLeaf(t *testing.T, dir string) (lon, lat, top float64) {
	t.Helper()
	best := -1
	var visit func(path string)
	visit = func(path string) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Root stateTile }
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var walk func(tl *stateTile)
		walk = func(tl *stateTile) {
			if tl.Content != nil && strings.HasSuffix(tl.Content.URI, ".json") {
				visit(filepath.Join(filepath.Dir(path), filepath.FromSlash(tl.Content.URI)))
			} else if r := tl.BoundingVolume.Region; tl.Content != nil && len(r) == 6 {
				var level int
				fmt.Sscanf(filepath.Base(tl.Content.URI), "%d_", &level)
				if level > best {
					best, lon, lat, top = level, (r[0]+r[2])/2*180/math.Pi, (r[1]+r[3])/2*180/math.Pi, r[5]
				}
			}
			for _, c := range tl.Children {
				walk(c)
			}
		}
		walk(&doc.Root)
	}
	visit(filepath.Join(dir, "tileset.json"))
	if best < 0 {
		t.Fatal("no leaf with content")
	}
	return lon, lat, top
}

type stateTile struct {
	BoundingVolume struct{ Region []float64 }
	Content        *struct{ URI string }
	Children       []*stateTile
}

// TestStateTerrainMeshRequestsInCesium does the same for a terrain mesh of
// the synthetic state's extent: 50 x 42 DGM tiles of 4 km (125 m pixels,
// rolling hills of 100-400 m; the quadtree groups tiles by count, so 2,100
// tiles make the tree of the upper levels of a state's 34,000), imported
// with `svc import dgm --force` (the synthetic state reaches past NRW's
// border) and built with `svc build terrain-mesh`. The street
// view must draw the mesh (scene.pick hits it).
func TestStateTerrainMeshRequestsInCesium(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	testtool.Node(t, "cesium")
	cesiumDir := filepath.Join(testtool.NodeModules(t), "cesium", "Build", "Cesium")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	const px, edge = 32, 4000.0
	src := t.TempDir()
	height := func(x, y float64) float64 {
		return 250 + 100*math.Sin(x/7300)*math.Cos(y/9100) + 40*math.Sin((x+y)/2300)
	}
	args := []string{"import", "dgm", "--data", "", "--bl", "nrw", "--snapshot", "2026-07-20", "--license", "dl-de-zero-2.0", "--force"}
	for i := range int(math.Floor(fixture.StateW / edge)) {
		for j := range int(math.Floor(fixture.StateH / edge)) {
			e0, n0 := fixture.StateE0+float64(i)*edge, fixture.StateN0+float64(j)*edge
			g := raster.Grid{Width: px, Height: px, Data: make([]float32, px*px), EPSG: 25832,
				GeoTransform: [6]float64{e0, edge / px, 0, n0 + edge, 0, -edge / px}}
			for r := range px {
				for c := range px {
					g.Data[r*px+c] = float32(height(e0+(float64(c)+0.5)*edge/px, n0+edge-(float64(r)+0.5)*edge/px))
				}
			}
			var buf bytes.Buffer
			if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(src, fmt.Sprintf("dgm_32_%d_%d.tif", int(e0/1000), int(n0/1000)))
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, p)
		}
	}
	data := t.TempDir()
	args[3] = data
	for _, c := range [][]string{args, {"build", "terrain-mesh", "--data", data, "--bl", "nrw"}} {
		out, err := run(ctx, c...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", c[0], c[1], err, tail(out, 2000))
		}
		t.Log(strings.TrimSpace(tail(out, 300)))
	}
	fi, err := os.Stat(filepath.Join(data, "terrain-mesh", "nrw", "2026-07-20", "tileset.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tileset.json %d bytes", fi.Size())
	w, s := geo.FromUTM(geo.Zone32, fixture.StateE0, fixture.StateN0)
	e, n := geo.FromUTM(geo.Zone32, fixture.StateE0+fixture.StateW, fixture.StateN0+fixture.StateH)
	x, y := fixture.StateE0+fixture.StateW/2, fixture.StateN0+fixture.StateH/2
	lon, lat := geo.FromUTM(geo.Zone32, x, y)
	und, _ := geoid.Default().Undulation(lon, lat)
	base := serveInBackground(t, data)
	tileset := tilesetURL(t, base+"/v1/terrain-mesh/datasets", "datasets", "nrw")
	stateViews(ctx, t, chromium, cesiumDir, data, tileset, [4]float64{w, s, e, n}, [3]float64{lon, lat, height(x, y) + und})
}
