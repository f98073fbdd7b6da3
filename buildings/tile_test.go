package buildings_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
)

// TestTouchingBuildingsStayTouching imports two flat-roofed buildings that
// share a wall (rotated 17° in UTM, so the wall follows no grid) and
// checks at every zoom from 12 to 18 that both are in the tile of the wall
// and that their polygons still share the wall's two ends: rounding to the
// tile grid is the only simplification, so no gap opens between them.
func TestTouchingBuildingsStayTouching(t *testing.T) {
	ctx := context.Background()
	site := demo.Sites[2] // be, EPSG:25833
	zone, e0, n0 := site.Origin()
	const length, rot = 10.0, 17.0
	sin, cos := math.Sincos(rot * math.Pi / 180)
	a := demo.Building{ID: "DEBEDM00000001", X: e0 + 100, Y: n0 + 100, Z0: 40, Length: length, Depth: 8, Height: 9, RotDeg: rot, Roof: demo.Flat}
	b := a
	b.ID, b.X, b.Y, b.Height = "DEBEDM00000002", a.X+length*cos, a.Y+length*sin, 14
	store := importBE(t, t.TempDir(), []demo.Building{a, b}, "")
	tiler := buildings.NewTiler([]lod2store.Source{{BL: "be", Pack: "lod2/be/2026-01-01", LoD2: store}})
	// The wall's ends in WGS84.
	var ends [2][2]float64
	for i, v := range []float64{-4, 4} {
		x, y := a.X+length/2*cos-v*sin, a.Y+length/2*sin+v*cos
		ends[i][0], ends[i][1] = geo.FromUTM(zone, x, y)
	}
	midLon, midLat := (ends[0][0]+ends[1][0])/2, (ends[0][1]+ends[1][1])/2
	for z := buildings.TileMinZoom; z <= buildings.TileMaxZoom; z++ {
		n := math.Exp2(float64(z))
		x := int((midLon + 180) / 360 * n)
		y := int((1 - math.Asinh(math.Tan(midLat*math.Pi/180))/math.Pi) / 2 * n)
		data, err := tiler.Tile(ctx, z, x, y)
		if err != nil {
			t.Fatal(err)
		}
		layers, err := mvt.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(layers) == 0 || len(layers[0].Features) != 2 {
			t.Fatalf("z%d: tile %d/%d/%d: %+v", z, z, x, y, layers)
		}
		p := mvt.NewProjector(mvt.TileID{Z: z, X: x, Y: y}, mvt.Extent)
		fs := layers[0].Features
		for _, end := range ends {
			ex, ey := p.Project(end[0], end[1])
			want := mvt.Pt{X: int32(math.Round(ex)), Y: int32(math.Round(ey))}
			for _, ft := range fs {
				if !hasVertex(ft.Parts, want) {
					t.Errorf("z%d: building %v lacks the wall's end %v (projected %.2f, %.2f): %v", z, ft.Props["gmlid"], want, ex, ey, ft.Parts)
				}
			}
		}
		if h := fs[0].Props["height_m"]; h != 9.0 && h != 14.0 {
			t.Errorf("z%d: height_m %v", z, h)
		}
	}
}

// importBE writes the buildings as CityGML of Berlin (EPSG:25833), without
// the ground surfaces of building noGround, imports them and opens the
// pack's LoD2 file.
func importBE(t *testing.T, data string, bs []demo.Building, noGround string) *lod2store.LoD2 {
	t.Helper()
	ctx := context.Background()
	src := filepath.Join(data, "src")
	os.MkdirAll(src, 0o755)
	var gml bytes.Buffer
	if err := demo.WriteCityGML(&gml, demo.CityGMLOptions{EPSG: 25833, Version: 2}, bs); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(gml.String(), "\n") {
		if noGround == "" || !strings.Contains(line, `<bldg:GroundSurface gml:id="`+noGround+`_`) {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "LoD2_33_390_5818_1_BE.gml"), []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: "be", Snapshot: "2026-01-01", LicenseID: "dl-de-zero-2.0",
		SourceURL: "file:///src"}, []string{src}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(data, "lod2", "be", "*", "*.sqlite"))
	if len(files) != 1 {
		t.Fatalf("pack files %v", files)
	}
	store, err := lod2store.OpenLoD2(ctx, files[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// TestRoofOnlyBuildingFootprint: a building without ground surface is in
// the tile as its roof projected (its two gable facets), covering the same
// rectangle as its walls, beside a building with ground surface.
func TestRoofOnlyBuildingFootprint(t *testing.T) {
	ctx := context.Background()
	site := demo.Sites[2]
	zone, e0, n0 := site.Origin()
	a := demo.Building{ID: "DEBEDM00000011", X: e0 + 200, Y: n0 + 200, Z0: 40, Length: 12, Depth: 8, Height: 6, PitchDeg: 35, RotDeg: 0, Roof: demo.Gable}
	b := a
	b.ID, b.X = "DEBEDM00000012", a.X+30
	store := importBE(t, t.TempDir(), []demo.Building{a, b}, b.ID)
	tiler := buildings.NewTiler([]lod2store.Source{{BL: "be", Pack: "lod2/be/2026-01-01", LoD2: store}})
	lon, lat := geo.FromUTM(zone, b.X, b.Y)
	const z = 18
	n := math.Exp2(z)
	x, y := int((lon+180)/360*n), int((1-math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi)/2*n)
	data, err := tiler.Tile(ctx, z, x, y)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := mvt.Decode(data)
	if err != nil || len(layers) != 2 {
		t.Fatalf("%v %+v", err, layers)
	}
	var roofOnly *mvt.Feature
	for i, f := range layers[0].Features {
		if f.Props["gmlid"] == b.ID {
			roofOnly = &layers[0].Features[i]
		}
	}
	if roofOnly == nil {
		t.Fatalf("the building without ground surface is not in the tile: %+v", layers[0].Features)
	}
	if len(roofOnly.Parts) != 2 || mvt.Area(roofOnly.Parts[0]) <= 0 || mvt.Area(roofOnly.Parts[1]) <= 0 {
		t.Fatalf("roof-only footprint: %v", roofOnly.Parts)
	}
	// Its extent is the walls' rectangle, within a tile unit.
	p := mvt.NewProjector(mvt.TileID{Z: z, X: x, Y: y}, mvt.Extent)
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{-6, -4}, {6, -4}, {6, 4}, {-6, 4}} {
		lo, la := geo.FromUTM(zone, b.X+c[0], b.Y+c[1])
		px, py := p.Project(lo, la)
		minX, minY, maxX, maxY = math.Min(minX, px), math.Min(minY, py), math.Max(maxX, px), math.Max(maxY, py)
	}
	var gx0, gy0, gx1, gy1 float64 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, ring := range roofOnly.Parts {
		for _, q := range ring {
			gx0, gy0 = math.Min(gx0, float64(q.X)), math.Min(gy0, float64(q.Y))
			gx1, gy1 = math.Max(gx1, float64(q.X)), math.Max(gy1, float64(q.Y))
		}
	}
	if math.Abs(gx0-minX) > 1 || math.Abs(gy0-minY) > 1 || math.Abs(gx1-maxX) > 1 || math.Abs(gy1-maxY) > 1 {
		t.Errorf("roof-only footprint spans (%g %g)-(%g %g), the walls (%.1f %.1f)-(%.1f %.1f)", gx0, gy0, gx1, gy1, minX, minY, maxX, maxY)
	}
	if h, ok := roofOnly.Props["height_m"].(float64); !ok || h <= 6 {
		t.Errorf("height_m %v", roofOnly.Props["height_m"])
	}
}

func hasVertex(parts [][]mvt.Pt, p mvt.Pt) bool {
	for _, ring := range parts {
		for _, q := range ring {
			if q == p {
				return true
			}
		}
	}
	return false
}
