package tiles3d_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/tiles3d"
)

// coverExtract is OSM XML over the test DGM tile (477-478 km E, 5551-5552 km
// N): a forest with a hole, a road with width=9, a bridge and a tunnel, a
// coastline across the north of the tile (land on the left, so the sea is
// north of it), and a track that leaves the tile.
func coverExtract() string {
	var b strings.Builder
	id := 0
	node := func(e, n float64) int {
		id++
		lon, lat := geo.FromUTM(geo.Zone32, e, n)
		fmt.Fprintf(&b, `<node id="%d" version="1" lat="%.8f" lon="%.8f"/>`+"\n", id, lat, lon)
		return id
	}
	way := func(wid int, nodes []int, tags ...string) {
		fmt.Fprintf(&b, `<way id="%d" version="1">`, wid)
		for _, n := range nodes {
			fmt.Fprintf(&b, `<nd ref="%d"/>`, n)
		}
		for i := 0; i+1 < len(tags); i += 2 {
			fmt.Fprintf(&b, `<tag k="%s" v="%s"/>`, tags[i], tags[i+1])
		}
		b.WriteString("</way>\n")
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<osm version=\"0.6\">\n")
	f := []int{node(tileE+100, tileN+100), node(tileE+450, tileN+120), node(tileE+430, tileN+480), node(tileE+90, tileN+450)}
	way(1, append(f, f[0]), "landuse", "forest", "name", "Stadtwald")
	hole := []int{node(tileE+200, tileN+200), node(tileE+260, tileN+200), node(tileE+260, tileN+260), node(tileE+200, tileN+260)}
	way(2, append(hole, hole[0]))
	way(3, []int{node(tileE+50, tileN+600), node(tileE+950, tileN+620)}, "highway", "primary", "width", "9", "name", "Bundesstraße")
	way(4, []int{node(tileE+600, tileN+300), node(tileE+700, tileN+300)}, "highway", "secondary", "bridge", "yes", "layer", "1")
	way(5, []int{node(tileE+600, tileN+700), node(tileE+700, tileN+700)}, "railway", "rail", "tunnel", "yes")
	way(6, []int{node(tileE+800, tileN+100), node(tileE+1400, tileN+100)}, "highway", "track")
	way(7, []int{node(tileE+1200, tileN+900), node(tileE-200, tileN+900)}, "natural", "coastline")
	b.WriteString(`<relation id="10" version="1"><member type="way" ref="1" role="outer"/><member type="way" ref="2" role="inner"/>` +
		`<tag k="type" v="multipolygon"/><tag k="landuse" v="forest"/><tag k="name" v="Stadtwald"/></relation>` + "\n")
	b.WriteString("</osm>\n")
	return b.String()
}

// TestOSMCover imports the extract over the test DGM (with its terrain
// mesh and a CDSM), builds the cover and checks: four themes, every
// tileset clean in the 3D Tiles validator and every GLB in the Khronos
// validator, and every land-cover vertex between 0 and 0.5 m above the
// terrain mesh (the decoded Draco tile of svc build terrain-mesh, an
// independent path), transport too apart from the bridge deck.
func TestOSMCover(t *testing.T) {
	meshDir, _ := buildMesh(t)
	data := filepath.Dir(filepath.Dir(filepath.Dir(meshDir)))
	src := t.TempDir()
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	cdsm := writeGrid(t, src, "cdsm_1.tif", vegPx, tileN+tilePx-vegPx, cdsmValue)
	if _, err := importer.Vegetation(context.Background(), c, importer.VegetationOptions{CDSM: []string{cdsm}, ToleranceM: tolerance}); err != nil {
		t.Fatal(err)
	}
	osmFile := filepath.Join(src, "he.osm")
	os.WriteFile(osmFile, []byte(coverExtract()), 0o644)
	c.LicenseID = "odbl-1.0"
	if _, err := importer.OSM(context.Background(), c, osmFile); err != nil {
		t.Fatal(err)
	}
	m, err := tiles3d.BuildOSMCover(context.Background(), tiles3d.OSMCoverOptions{DataDir: data, BL: "he", StepM: 5})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, th := range m.OSMCover.Themes {
		names = append(names, th.Name)
		if th.TileCount == 0 {
			t.Errorf("theme %s has no tile", th.Name)
		}
	}
	if strings.Join(names, ",") != "surface,transport,canopy,sea" || m.LicenseID != "odbl-1.0" || !strings.Contains(m.Attribution, "OpenStreetMap") {
		t.Fatalf("themes %v, licence %s, attribution %q", names, m.LicenseID, m.Attribution)
	}
	dir := filepath.Join(data, "osm-cover", "he", "2026-07-20")

	t.Run("validators", func(t *testing.T) {
		validator := testtool.TilesValidator(t)
		for _, th := range names {
			out, err := exec.Command(validator, filepath.Join(dir, th, "tileset.json")).CombinedOutput()
			if err != nil || !strings.Contains(string(out), ": 0 errors") {
				t.Errorf("%s: %v\n%s", th, err, tail(string(out), 2000))
			}
		}
		glbs, _ := filepath.Glob(filepath.Join(dir, "*", "tiles", "*.glb"))
		if len(glbs) < 3 {
			t.Fatalf("%d GLB tiles", len(glbs))
		}
		for _, g := range glbs {
			b, _ := os.ReadFile(g)
			validate(t, b)
		}
	})

	t.Run("on the terrain mesh", func(t *testing.T) {
		b3dm, err := os.ReadFile(filepath.Join(meshDir, "tiles", "dgm1_32_477_5551.b3dm"))
		if err != nil {
			t.Fatal(err)
		}
		pos, idx := decodeDraco(t, checkB3DM(t, b3dm))
		ground := newTriLookup(pos, idx)
		for _, th := range []string{"surface", "transport"} {
			vs := coverPositions(t, filepath.Join(dir, th, "tiles", "dgm1_32_477_5551.glb"))
			worstLo, worstHi, off := math.Inf(1), math.Inf(-1), 0
			for _, v := range vs {
				x, h, y := float64(v[0]), float64(v[1]), -float64(v[2])
				g, ok := ground.at(x, y)
				if !ok {
					continue // on the tile's very edge
				}
				d := h - g
				// The bridge (600-700 m E, 300 m N, local -100..200, -200)
				// stands at deck height, not on the ground.
				if th == "transport" && x > 90 && x < 210 && y > -210 && y < -190 {
					continue
				}
				worstLo, worstHi = math.Min(worstLo, d), math.Max(worstHi, d)
				if d < -0.005 || d > 0.5 {
					off++
				}
			}
			t.Logf("%s: %d vertices, height above the terrain mesh %.3f to %.3f m", th, len(vs), worstLo, worstHi)
			if off > 0 {
				t.Errorf("%s: %d vertices not within 0 to 0.5 m above the terrain mesh (%.3f to %.3f)", th, off, worstLo, worstHi)
			}
		}
	})

	t.Run("features", func(t *testing.T) {
		doc := glbJSONOf(t, filepath.Join(dir, "surface", "tiles", "dgm1_32_477_5551.glb"))
		for _, want := range []string{`"EXT_mesh_features"`, `"EXT_structural_metadata"`, `"osm_id"`, "OpenStreetMap contributors"} {
			if !strings.Contains(doc, want) {
				t.Errorf("surface GLB lacks %s", want)
			}
		}
		ts, _ := os.ReadFile(filepath.Join(dir, "transport", "tileset.json"))
		var tj struct {
			Asset struct {
				Version string `json:"version"`
				Extras  map[string]any
			} `json:"asset"`
		}
		if err := json.Unmarshal(ts, &tj); err != nil || tj.Asset.Version != "1.1" || tj.Asset.Extras["height_model"] == nil {
			t.Errorf("transport tileset asset %+v %v", tj.Asset, err)
		}
	})
}

// triLookup finds the terrain mesh triangle under a point (local x east,
// y north) by brute force over a coarse bucket grid.
type triLookup struct {
	pos    []float64
	idx    []int
	bucket map[[2]int][]int
}

func newTriLookup(pos []float64, idx []int) *triLookup {
	l := &triLookup{pos: pos, idx: idx, bucket: map[[2]int][]int{}}
	for t := 0; t < len(idx); t += 3 {
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for k := range 3 {
			x, y := pos[3*idx[t+k]], -pos[3*idx[t+k]+2]
			minX, maxX = math.Min(minX, x), math.Max(maxX, x)
			minY, maxY = math.Min(minY, y), math.Max(maxY, y)
		}
		for bx := int(math.Floor(minX / 20)); bx <= int(math.Floor(maxX/20)); bx++ {
			for by := int(math.Floor(minY / 20)); by <= int(math.Floor(maxY/20)); by++ {
				l.bucket[[2]int{bx, by}] = append(l.bucket[[2]int{bx, by}], t)
			}
		}
	}
	return l
}

func (l *triLookup) at(x, y float64) (float64, bool) {
	for _, t := range l.bucket[[2]int{int(math.Floor(x / 20)), int(math.Floor(y / 20))}] {
		var px, py, ph [3]float64
		for k := range 3 {
			i := l.idx[t+k]
			px[k], ph[k], py[k] = l.pos[3*i], l.pos[3*i+1], -l.pos[3*i+2]
		}
		det := (py[1]-py[2])*(px[0]-px[2]) + (px[2]-px[1])*(py[0]-py[2])
		if det == 0 {
			continue
		}
		a := ((py[1]-py[2])*(x-px[2]) + (px[2]-px[1])*(y-py[2])) / det
		b := ((py[2]-py[0])*(x-px[2]) + (px[0]-px[2])*(y-py[2])) / det
		c := 1 - a - b
		if a >= -1e-6 && b >= -1e-6 && c >= -1e-6 {
			return a*ph[0] + b*ph[1] + c*ph[2], true
		}
	}
	return 0, false
}

// coverPositions reads the POSITION accessor of a (non-Draco) GLB.
func coverPositions(t *testing.T, path string) [][3]float32 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d gltf.Document
	if err := gltf.NewDecoder(bytes.NewReader(raw)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	var out [][3]float32
	for _, m := range d.Meshes {
		for _, p := range m.Primitives {
			pos, err := modeler.ReadPosition(&d, d.Accessors[p.Attributes[gltf.POSITION]], nil)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pos...)
		}
	}
	return out
}

func glbJSONOf(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return glbJSON(t, raw)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
