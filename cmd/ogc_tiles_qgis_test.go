package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestOGCTilesWithQGIS opens the buildings of `svc serve` on the demo pack
// in QGIS 3.22 (PyQGIS, headless; cmd/testdata/qgis/ogctiles.py) the two
// ways QGIS offers for an OGC API:
//   - its own vector tile layer on the template of the buildings
//     collection's OGC tileset (found by following the links, as a client
//     does, with zooms from its tileMatrixSetLimits), rendered over a box
//     of the demo town: in every tile QGIS fetched and decoded it finds as
//     many buildings and roofs as GDAL's MVT driver reads from that tile,
//     the buildings of the pack in the box among them, each with the
//     pack's height and BL;
//   - the OGR provider on OGCAPI:<base>/ogc/collections/buildings (GDAL's
//     OGCAPI driver, no open option): a valid layer `buildings` whose
//     features in the box are the pack's, with its heights. This failed
//     while the collection's tilesets link was typed (docs/ogc-tiles.md).
func TestOGCTilesWithQGIS(t *testing.T) {
	py := testtool.PythonQGIS(t)
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	sqlite := testtool.Require(t, "sqlite3", "apt-get install sqlite3")
	data := demoData(t)
	base := serveData(t, data)
	box := [4]float64{8.676, 50.112, 8.680, 50.114}

	var coll ogcTileLinks
	getJSON(t, base+"/ogc/collections/buildings", &coll)
	var list struct{ Tilesets []ogcTileLinks }
	getJSON(t, coll.href("http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector", ""), &list)
	if len(list.Tilesets) != 1 {
		t.Fatalf("tilesets: %+v", list)
	}
	var ts struct {
		ogcTileLinks
		TileMatrixSetLimits []struct{ TileMatrix string }
	}
	getJSON(t, list.Tilesets[0].href("self", "application/json"), &ts)
	item := ts.href("item", "application/vnd.mapbox-vector-tile")
	zmin, zmax := 99, -1
	for _, l := range ts.TileMatrixSetLimits {
		z, _ := strconv.Atoi(l.TileMatrix)
		zmin, zmax = min(zmin, z), max(zmax, z)
	}
	if !strings.Contains(item, "/{tileMatrix}/{tileRow}/{tileCol}") || zmax < 16 {
		t.Fatalf("tileset: item %q, zooms %d to %d", item, zmin, zmax)
	}
	template := strings.NewReplacer("{tileMatrix}", "{z}", "{tileRow}", "{y}", "{tileCol}", "{x}").Replace(item)

	fields := map[string][]string{"buildings": {"gmlid", "height_m", "bl"}, "roofs": {"surface_id", "building_id", "tilt_deg"}}
	arg, _ := json.Marshal(map[string]any{"template": template, "zmin": zmin, "zmax": zmax,
		"collection": "OGCAPI:" + base + "/ogc/collections/buildings", "box": box, "fields": fields})
	cmd := exec.Command(py, filepath.Join("testdata", "qgis", "ogctiles.py"), string(arg))
	cmd.Env = append(cmd.Environ(), "QT_QPA_PLATFORM=offscreen", "XDG_RUNTIME_DIR="+t.TempDir(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("PyQGIS: %v\n%s\n%s", err, out, stderr)
	}
	var res struct {
		QGIS  string
		Tiles struct {
			Valid  bool
			Error  string
			Errors []string
			Layers map[string]map[string][]map[string]any
		}
		GDAL struct {
			Valid    bool
			Error    string
			Name     string
			Features []struct {
				GMLID  string  `json:"gmlid"`
				Height float64 `json:"height_m"`
				Ground float64 `json:"ground_z_m"`
			}
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("PyQGIS answer: %v\n%s", err, out)
	}
	t.Logf("QGIS %s", res.QGIS)
	pack := packBuildings(t, sqlite, data, box)

	t.Run("vector tile layer", func(t *testing.T) {
		tl := res.Tiles
		if !tl.Valid || len(tl.Errors) > 0 {
			t.Fatalf("QGIS vector tile layer on %s: valid %v, %s %v", template, tl.Valid, tl.Error, tl.Errors)
		}
		if len(tl.Layers["buildings"]) == 0 {
			t.Fatalf("QGIS decoded no building tile: %v", tl.Layers)
		}
		dir := t.TempDir()
		seen := map[string]bool{}
		for key, feats := range tl.Layers["buildings"] {
			var z, x, y int
			if _, err := fmt.Sscanf(key, "%d/%d/%d", &z, &x, &y); err != nil {
				t.Fatal(err)
			}
			// GDAL's MVT driver on the same tile, fetched from the template.
			url := strings.NewReplacer("{z}", strconv.Itoa(z), "{y}", strconv.Itoa(y), "{x}", strconv.Itoa(x)).Replace(template)
			p := filepath.Join(dir, fmt.Sprintf("%d-%d-%d.mvt", z, x, y))
			fetchTo(t, url, p)
			for layer, n := range map[string]int{"buildings": len(feats), "roofs": len(tl.Layers["roofs"][key])} {
				info := toolOut(t, ogrinfo, "-ro", "-so", "-oo", fmt.Sprint("Z=", z), "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), p, layer)
				m := regexp.MustCompile(`Feature Count: (\d+)`).FindStringSubmatch(info)
				if m == nil || m[1] != strconv.Itoa(n) {
					t.Errorf("tile %s layer %s: QGIS decodes %d features, GDAL reads %v", key, layer, n, m)
				}
			}
			for _, f := range feats {
				id, _ := f["gmlid"].(string)
				h, _ := f["height_m"].(float64)
				seen[id] = true
				if p, ok := pack[id]; !ok || f["bl"] != "he" || math.Abs(p.height-h) > 1e-6 {
					t.Fatalf("tile %s: QGIS reads %v; the pack has %+v (found %v)", key, f, p, ok)
				}
			}
		}
		for id, p := range pack {
			if p.inBox && !seen[id] {
				t.Errorf("building %s of the box is in no tile QGIS read", id)
			}
		}
		t.Logf("%d building tiles, %d distinct buildings", len(tl.Layers["buildings"]), len(seen))
	})

	t.Run("GDAL OGCAPI driver", func(t *testing.T) {
		g := res.GDAL
		if !g.Valid || g.Name != "buildings" {
			t.Fatalf("QGIS's OGR layer on OGCAPI:…/collections/buildings: valid %v, layer %q, %s", g.Valid, g.Name, g.Error)
		}
		n := 0
		for _, p := range pack {
			if p.inBox {
				n++
			}
		}
		if len(g.Features) != n {
			t.Fatalf("QGIS reads %d buildings in the box, the pack has %d", len(g.Features), n)
		}
		for _, f := range g.Features {
			p, ok := pack[f.GMLID]
			if !ok || !p.inBox || math.Abs(p.height-f.Height) > 1e-9 || math.Abs(p.ground-f.Ground) > 1e-9 {
				t.Errorf("QGIS reads %+v; the pack has %+v", f, p)
			}
		}
	})
}

// packBuilding is one building of the demo LoD2 pack of he.
type packBuilding struct {
	height, ground float64
	inBox          bool // its bbox meets the box
}

// packBuildings reads every building of the demo's he LoD2 pack with
// sqlite3, its height and ground height, and whether its bbox meets box.
func packBuildings(t *testing.T, sqlite, data string, box [4]float64) map[string]packBuilding {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(data, "lod2", "he", "*", "lod2.sqlite"))
	if len(packs) != 1 {
		t.Fatalf("demo LoD2 packs of he: %v", packs)
	}
	q := fmt.Sprintf("SELECT b.gmlid, a.height_m, a.ground_z, r.max_lon >= %[1]g AND r.min_lon <= %[3]g AND r.max_lat >= %[2]g AND r.min_lat <= %[4]g "+
		"FROM building_bbox r JOIN buildings b USING (building_id) JOIN building_attrs a USING (building_id) WHERE a.part = 0", box[0], box[1], box[2], box[3])
	out := map[string]packBuilding{}
	for _, line := range strings.Split(strings.TrimSpace(toolOut(t, sqlite, "-readonly", packs[0], q)), "\n") {
		p := strings.Split(line, "|")
		if len(p) != 4 {
			t.Fatalf("sqlite3: %q", line)
		}
		h, _ := strconv.ParseFloat(p[1], 64)
		g, _ := strconv.ParseFloat(p[2], 64)
		out[p[0]] = packBuilding{height: h, ground: g, inBox: p[3] == "1"}
	}
	return out
}

// fetchTo writes the 200 body of url to path.
func fetchTo(t *testing.T, url, path string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
}
