package tiles3d

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
)

// maxTilesetBytes bounds every tileset file at any size of a BL.
const maxTilesetBytes = 100 << 10

// treeStats is what walkTilesets found.
type treeStats struct {
	files, contents, tiles, depth int
	rootBytes, maxBytes           int64
}

// walkTilesets reads the tileset at path and every external tileset it
// references, as a viewer does, and checks the rules of a hierarchical
// tileset: every file under maxTilesetBytes, a geometric error never above
// its parent's, an external tileset's root with the volume and error of the
// tile that references it, every content file present.
func walkTilesets(t *testing.T, path string) treeStats {
	t.Helper()
	var st treeStats
	type file struct {
		path  string
		ge    float64
		depth int
	}
	queue := []file{{path, -1, 0}}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		raw, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		st.files++
		if st.files == 1 {
			st.rootBytes = int64(len(raw))
		}
		st.maxBytes = max(st.maxBytes, int64(len(raw)))
		if len(raw) >= maxTilesetBytes {
			t.Errorf("%s: %d bytes, want < %d", f.path, len(raw), maxTilesetBytes)
		}
		var doc struct {
			GeometricError float64
			Root           tileJSON
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if f.ge >= 0 && doc.Root.GeometricError != f.ge {
			t.Errorf("%s: root geometricError %v, the referencing tile has %v", f.path, doc.Root.GeometricError, f.ge)
		}
		if doc.Root.Refine == "" {
			t.Errorf("%s: root without refine", f.path)
		}
		var walk func(tl *tileJSON, parentGE float64, depth int)
		walk = func(tl *tileJSON, parentGE float64, depth int) {
			st.tiles++
			st.depth = max(st.depth, depth)
			if tl.GeometricError > parentGE {
				t.Errorf("%s: geometricError %v under %v", f.path, tl.GeometricError, parentGE)
			}
			if tl.Content != nil {
				p := filepath.Join(filepath.Dir(f.path), filepath.FromSlash(tl.Content.URI))
				if strings.HasSuffix(p, ".json") {
					if len(tl.Children) > 0 {
						t.Errorf("%s: a tile references an external tileset and has children", f.path)
					}
					queue = append(queue, file{p, tl.GeometricError, depth})
				} else if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: content %v", f.path, err)
				} else {
					st.contents++
				}
			}
			for _, c := range tl.Children {
				walk(c, tl.GeometricError, depth+1)
			}
		}
		walk(&doc.Root, doc.GeometricError, f.depth)
	}
	return st
}

// TestBuildStateSize builds the tileset of a synthetic state (20,000
// buildings in towns over 200 x 170 km, at most 4 per tile: as many leaves
// and as deep a quadtree as 11 million buildings at 1,000 per tile) and
// reads it as a viewer would: tileset.json and every tileset file it leads
// to stay under 100 KB, and every leaf is reachable.
func TestBuildStateSize(t *testing.T) {
	data := t.TempDir()
	ctx := context.Background()
	if _, err := fixture.StateLoD2(ctx, data, "nrw", 20000, 1); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	m, err := Build(ctx, Options{DataDir: data, BL: "nrw", MaxPerTile: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := walkTilesets(t, filepath.Join(data, "buildings", "nrw", "2026-07-20", TilesetFile))
	t.Logf("%d buildings, %d leaves in %v: tileset.json %d bytes, %d tileset files (largest %d bytes), %d tiles, depth %d",
		m.Tileset.BuildingCount, m.Tileset.TileCount, time.Since(start).Round(time.Millisecond), st.rootBytes, st.files, st.maxBytes, st.tiles, st.depth)
	if st.contents != int(m.Tileset.TileCount) || st.contents < 4000 {
		t.Errorf("%d content tiles reachable, the manifest has %d", st.contents, m.Tileset.TileCount)
	}
	if st.files < 2 {
		t.Errorf("one tileset file for %d leaves", st.contents)
	}
}

// TestHierarchyValidates runs the 3D Tiles validator on a building tileset
// deep enough to have external tilesets (it follows them).
func TestHierarchyValidates(t *testing.T) {
	validator := testtool.TilesValidator(t)
	data := t.TempDir()
	ctx := context.Background()
	if _, err := fixture.StateLoD2(ctx, data, "nrw", 300, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, Options{DataDir: data, BL: "nrw", MaxPerTile: 1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "buildings", "nrw", "2026-07-20", TilesetFile)
	if st := walkTilesets(t, path); st.files < 3 {
		t.Fatalf("%d tileset files, want external tilesets", st.files)
	}
	out, err := exec.Command(validator, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": 0 errors") || !strings.Contains(string(out), `"numWarnings": 0`) {
		t.Errorf("validator: %v\n%s", err, string(out[max(0, len(out)-3000):]))
	}
}

// stateTiles makes the content tiles of a 1 km tiling of the synthetic
// state (34,000 tiles over 200 x 170 km), as the terrain mesh, vegetation
// and OSM cover builders do per DGM or CDSM tile, with an empty content
// file each under dir/tiles.
func stateTiles(t *testing.T, dir, ext string) []*tileJSON {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "tiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out []*tileJSON
	for i := range 200 {
		for j := range 170 {
			x0, y0 := fixture.StateE0+float64(i)*1000, fixture.StateN0+float64(j)*1000
			region := regionOf(geo.Zone32, x0, y0, x0+1000, y0+1000, 40, 90)
			uri := fmt.Sprintf("tiles/%d_%d.%s", i, j, ext)
			if err := os.WriteFile(filepath.Join(dir, uri), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			out = append(out, &tileJSON{Transform: gridFrame(geo.Zone32, x0+500, y0+500).matrix(),
				BoundingVolume: map[string]any{"region": region[:]}, Content: &contentJSON{URI: uri}})
		}
	}
	return out
}

// TestGroupedStateSize writes the tilesets of the terrain mesh, a
// vegetation theme and an OSM cover theme of a whole state (34,000 tiles
// of 1 km) and reads them as a viewer would: every tileset file under
// 100 KB, every tile reachable, and a first view of the whole state from
// straight above requesting fewer than 50 files (firstViewRequests, the
// refinement rule of CesiumJS).
func TestGroupedStateSize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ext   string
		write func(path string, tiles []*tileJSON) error
	}{
		{"terrain-mesh", "b3dm", func(p string, tiles []*tileJSON) error {
			_, err := writeTerrainTileset(p, tiles, "GCG2016", "test")
			return err
		}},
		{"plantcover", "b3dm", func(p string, tiles []*tileJSON) error {
			return writeFlatTileset(p, tiles, assetOf("1.0", "test", "GCG2016", "test"))
		}},
		{"osm-cover surface", "glb", func(p string, tiles []*tileJSON) error {
			return writeCoverTileset(p, tiles, "GCG2016", "test", "surface")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tiles := stateTiles(t, dir, tc.ext)
			path := filepath.Join(dir, TilesetFile)
			if err := tc.write(path, tiles); err != nil {
				t.Fatal(err)
			}
			st := walkTilesets(t, path)
			req := firstViewRequests(t, path)
			t.Logf("%d tiles: tileset.json %d bytes, %d tileset files (largest %d bytes), depth %d; first view of the state: %d requests",
				len(tiles), st.rootBytes, st.files, st.maxBytes, st.depth, req)
			if st.contents != len(tiles) {
				t.Errorf("%d of %d content tiles reachable", st.contents, len(tiles))
			}
			if req >= 50 {
				t.Errorf("first view of the whole state: %d requests, want < 50", req)
			}
		})
	}
}

// firstViewRequests counts the files CesiumJS requests for the first view
// of the tileset at path from straight above its centre at 1.5 times its
// larger extent (where Camera.setView of the state's rectangle puts it on
// a 1280 x 800 view): tileset.json and the content (tiles and external
// tilesets) of every tile whose parent refines, by CesiumJS's rule: refine
// while the geometric error spans more than 16 px, geometricError x 800 /
// (distance x 2 tan(fovy / 2)), fovy 39.7° (60° across 1280 px). Every
// tile counts as visible, so this is an upper bound.
func firstViewRequests(t *testing.T, path string) int {
	t.Helper()
	var doc struct{ Root tileJSON }
	raw, _ := os.ReadFile(path)
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	rr := doc.Root.BoundingVolume["region"].([]any)
	r := make([]float64, 6)
	for i := range r {
		r[i] = rr[i].(float64)
	}
	const earthR = 6371000
	lonC, latC := (r[0]+r[2])/2, (r[1]+r[3])/2
	camH := 1.5 * regionEdgeM(r)
	denom := 2 * math.Tan(39.7/2*math.Pi/180)
	sse := func(ge float64, reg []any) float64 {
		w, s, e, n, top := reg[0].(float64), reg[1].(float64), reg[2].(float64), reg[3].(float64), reg[5].(float64)
		dx := math.Max(0, math.Max(w-lonC, lonC-e)) * math.Cos(latC) * earthR
		dy := math.Max(0, math.Max(s-latC, latC-n)) * earthR
		d := math.Max(math.Sqrt(dx*dx+dy*dy+(camH-top)*(camH-top)), 1)
		return ge * 800 / (d * denom)
	}
	requests := 1
	var visit func(file string, tl map[string]any)
	visit = func(file string, tl map[string]any) {
		if c, ok := tl["content"].(map[string]any); ok {
			requests++
			uri := c["uri"].(string)
			if strings.HasSuffix(uri, ".json") {
				p := filepath.Join(filepath.Dir(file), filepath.FromSlash(uri))
				raw, _ := os.ReadFile(p)
				var sub map[string]any
				if err := json.Unmarshal(raw, &sub); err != nil {
					t.Fatal(err)
				}
				visit(p, sub["root"].(map[string]any))
				return
			}
		}
		if sse(tl["geometricError"].(float64), tl["boundingVolume"].(map[string]any)["region"].([]any)) <= 16 {
			return
		}
		kids, _ := tl["children"].([]any)
		for _, k := range kids {
			visit(file, k.(map[string]any))
		}
	}
	var root map[string]any
	json.Unmarshal(raw, &root)
	visit(path, root["root"].(map[string]any))
	return requests
}
