package tiles3d_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/tiles3d"
)

// vegPx is the edge of the test CDSM tile (1 m pixels); its north-west
// corner is the DGM tile's (tileE, tileN+tilePx).
const vegPx = 256

// knownTree is a tree of the synthetic CDSM: its top at the centre of
// pixel (c, r), a paraboloid crown of height h and radius rad.
type knownTree struct {
	c, r   int
	h, rad float64
}

var knownTrees = func() []knownTree {
	var out []knownTree
	for i := range 9 {
		out = append(out, knownTree{c: 40 + 60*(i%3), r: 40 + 50*(i/3), h: 8 + 2*float64(i), rad: 3 + float64(i%4)})
	}
	return out
}()

// cdsmValue is the synthetic canopy height at pixel (c, r): the known
// trees, a shrub patch (2.2 m to 2.7 m, too low for a tree) and NoData.
func cdsmValue(c, r int) float32 {
	for _, k := range knownTrees {
		d := math.Hypot(float64(c-k.c), float64(r-k.r))
		if d < k.rad {
			return float32(k.h * (1 - 0.3*(d/k.rad)*(d/k.rad)))
		}
	}
	if r >= 200 && r < 230 && c >= 20 && c < 120 {
		return float32(2.2 + 0.5*math.Sin(float64(c)/7))
	}
	return nodataV
}

// vegPack imports the synthetic CDSM (and, with dgm, the relief DGM first)
// for a BL and snapshot and returns the pack directory.
func vegPack(t testing.TB, bl, snapshot string, dgm bool) string {
	t.Helper()
	data, src := t.TempDir(), t.TempDir()
	// The synthetic tiles lie in Frankfurt (he); other BLs reuse them, so
	// the importer's state check is overridden.
	c := importer.Common{DataDir: data, BL: bl, Snapshot: snapshot, LicenseID: "dl-de-by-2.0", Force: bl != "he"}
	if dgm {
		p := writeGrid(t, src, "dgm1.tif", tilePx, tileN, relief)
		if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, []string{p}); err != nil {
			t.Fatal(err)
		}
	}
	p := writeGrid(t, src, "cdsm_1.tif", vegPx, tileN+tilePx-vegPx, cdsmValue)
	m, err := importer.Vegetation(context.Background(), c, importer.VegetationOptions{CDSM: []string{p}, ToleranceM: tolerance})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Vegetation.Themes); n != 3 {
		t.Fatalf("themes %+v", m.Vegetation.Themes)
	}
	return filepath.Join(data, "veg", bl, snapshot)
}

// writeGrid writes a px x px COG of f with its south-west corner at
// (tileE, south) and returns its path.
func writeGrid(t testing.TB, dir, name string, px int, south float64, f func(c, r int) float32) string {
	t.Helper()
	nd := nodataV
	g := raster.Grid{Width: px, Height: px, Data: make([]float32, px*px), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{tileE, 1, 0, south + float64(px), 0, -1}}
	for r := range px {
		for c := range px {
			g.Data[r*px+c] = f(c, r)
		}
	}
	var buf bytes.Buffer
	if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dgmPack imports the DGM at path into data as he 2026-07-20.
func dgmPack(t testing.TB, data, path string) {
	t.Helper()
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, []string{path}); err != nil {
		t.Fatal(err)
	}
}

// TestDetectTrees finds every known tree top of the synthetic CDSM at its
// pixel, with its height and a crown radius near the true one, and no
// tree in the shrub patch.
func TestDetectTrees(t *testing.T) {
	t.Parallel()
	nd := nodataV
	g := raster.Grid{Width: vegPx, Height: vegPx, Data: make([]float32, vegPx*vegPx), Nodata: &nd,
		GeoTransform: [6]float64{tileE, 1, 0, tileN + tilePx, 0, -1}}
	for r := range vegPx {
		for c := range vegPx {
			g.Data[r*vegPx+c] = cdsmValue(c, r)
		}
	}
	got := tiles3d.DetectTrees(g, tiles3d.TreeOptions{})
	if len(got) != len(knownTrees) {
		t.Fatalf("%d trees, want %d: %+v", len(got), len(knownTrees), got)
	}
	for _, k := range knownTrees {
		t.Run(fmt.Sprintf("tree_%d_%d", k.c, k.r), func(t *testing.T) {
			x, y := tileE+float64(k.c)+0.5, tileN+tilePx-float64(k.r)-0.5
			for _, tr := range got {
				if tr.X == x && tr.Y == y {
					if math.Abs(tr.HeightM-k.h) > 1e-4 || math.Abs(tr.CrownRadiusM-k.rad) > 1 {
						t.Errorf("tree %+v, want height %g radius %g", tr, k.h, k.rad)
					}
					return
				}
			}
			t.Errorf("no tree at %.1f, %.1f", x, y)
		})
	}
	for _, tc := range []struct {
		name string
		g    raster.Grid
	}{{"empty", raster.Grid{}}, {"all nodata", raster.Grid{Width: 2, Height: 1, Data: []float32{-9999, -9999}, Nodata: &nd,
		GeoTransform: [6]float64{0, 1, 0, 0, 0, -1}}}} {
		if n := len(tiles3d.DetectTrees(tc.g, tiles3d.TreeOptions{})); n != 0 {
			t.Errorf("%s: %d trees", tc.name, n)
		}
	}
}

// TestHardenedPlantcover checks the recipe table of SPEC 2.10.
func TestHardenedPlantcover(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bl, snapshot string
		want         bool
	}{{"he", "2026-07-20", true}, {"be", "2026-07-20", true}, {"ni", "2027-01-01", true}, {"he", "2026-07-16", false},
		{"ni", "2021-05-01", false}, {"nrw", "2026-07-20", false}, {"sh", "2030-01-01", false}} {
		if got := tiles3d.HardenedPlantcover(tc.bl, tc.snapshot); got != tc.want {
			t.Errorf("%s %s: %v, want %v", tc.bl, tc.snapshot, got, tc.want)
		}
	}
}

// tilesetDoc is the part of a tileset.json the tests read.
type tilesetDoc struct {
	Asset          map[string]any
	GeometricError float64
	Root           struct {
		Refine         string
		GeometricError float64
		BoundingVolume struct{ Region []float64 }
		Children       []struct {
			Transform      []float64
			BoundingVolume struct{ Region []float64 }
			GeometricError *float64
			Content        struct{ URI string }
		}
	}
}

// readTheme reads a theme's tileset and checks its shape: version, one
// child with a transform, a region inside the root's around the test tile,
// and content that exists; it returns the content bytes.
func readTheme(t *testing.T, dir, theme, version string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, theme, "tileset.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ts tilesetDoc
	if err := json.Unmarshal(raw, &ts); err != nil {
		t.Fatal(err)
	}
	if ts.Asset["version"] != version || ts.GeometricError <= 0 || ts.Root.Refine != "REPLACE" || len(ts.Root.Children) != 1 {
		t.Fatalf("%s tileset %s", theme, raw)
	}
	ch := ts.Root.Children[0]
	reg, root := ch.BoundingVolume.Region, ts.Root.BoundingVolume.Region
	deg := 180 / math.Pi
	if len(ch.Transform) != 16 || len(reg) != 6 || len(root) != 6 || ch.GeometricError == nil || *ch.GeometricError != 0 ||
		reg[0] < root[0] || reg[2] > root[2] || reg[0]*deg > 8.69 || reg[2]*deg < 8.68 || reg[1]*deg > 50.12 || reg[3]*deg < 50.11 || reg[5] <= reg[4] {
		t.Fatalf("%s tile %+v (root %v)", theme, ch, root)
	}
	b, err := os.ReadFile(filepath.Join(dir, theme, filepath.FromSlash(ch.Content.URI)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// glbJSON returns the JSON chunk of a GLB.
func glbJSON(t *testing.T, b []byte) string {
	t.Helper()
	if len(b) < 20 || string(b[:4]) != "glTF" {
		t.Fatalf("not a GLB: % x", b[:min(len(b), 12)])
	}
	return string(b[20 : 20+binary.LittleEndian.Uint32(b[12:])])
}
