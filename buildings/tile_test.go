package buildings_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
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
	data := t.TempDir()
	src := filepath.Join(data, "src")
	os.MkdirAll(src, 0o755)
	site := demo.Sites[2] // be, EPSG:25833
	zone, e0, n0 := site.Origin()
	const length, rot = 10.0, 17.0
	sin, cos := math.Sincos(rot * math.Pi / 180)
	a := demo.Building{ID: "DEBEDM00000001", X: e0 + 100, Y: n0 + 100, Z0: 40, Length: length, Depth: 8, Height: 9, RotDeg: rot, Roof: demo.Flat}
	b := a
	b.ID, b.X, b.Y, b.Height = "DEBEDM00000002", a.X+length*cos, a.Y+length*sin, 14
	f, err := os.Create(filepath.Join(src, "LoD2_33_390_5818_1_BE.gml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.WriteCityGML(f, demo.CityGMLOptions{EPSG: 25833, Version: 2}, []demo.Building{a, b}); err != nil {
		t.Fatal(err)
	}
	f.Close()
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
	defer store.Close()
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
