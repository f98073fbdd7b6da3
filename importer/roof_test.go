package importer_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/lod2store"
)

// importBuildings writes buildings as CityGML, imports them as BL "he"
// (EPSG:25832) and opens the result.
func importBuildings(t *testing.T, epsg int, bl string, bs []demo.Building) *lod2store.LoD2 {
	t.Helper()
	var buf bytes.Buffer
	if err := demo.WriteCityGML(&buf, demo.CityGMLOptions{EPSG: epsg, Version: 2}, bs); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "in.gml")
	os.WriteFile(src, buf.Bytes(), 0o644)
	data := t.TempDir()
	if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: bl, Snapshot: "2026-07-20", LicenseID: "cc-by-4.0"}, []string{src}); err != nil {
		t.Fatal(err)
	}
	s, err := lod2store.OpenLoD2(context.Background(), filepath.Join(data, "lod2", bl, "2026-07-20", importer.LoD2File))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// convergenceDeg is the meridian convergence by the closed spherical
// formula gamma = atan(tan(lon - lon0) * sin(lat)), an independent check of
// the numeric correction in store.
func convergenceDeg(z geo.Zone, e, n float64) float64 {
	lon, lat := geo.FromUTM(z, e, n)
	lon0 := float64(z.CentralMeridian())
	return math.Atan(math.Tan((lon-lon0)*math.Pi/180)*math.Sin(lat*math.Pi/180)) * 180 / math.Pi
}

func TestRoofFacetsAnalytic(t *testing.T) {
	t.Parallel()
	// Frankfurt, west of the zone 32 central meridian: convergence about -0.25 degrees.
	const e, n = 477000.0, 5551000.0
	bs := []demo.Building{
		{ID: "DEHEGABLE0", X: e, Y: n, Z0: 100, Length: 12, Depth: 8, Height: 6, PitchDeg: 35, RotDeg: 0, Roof: demo.Gable},
		{ID: "DEHEGABLE90", X: e + 40, Y: n, Z0: 100, Length: 12, Depth: 8, Height: 6, PitchDeg: 45, RotDeg: 90, Roof: demo.Gable},
		{ID: "DEHESHED30", X: e + 80, Y: n, Z0: 100, Length: 10, Depth: 6, Height: 4, PitchDeg: 20, RotDeg: 30, Roof: demo.Shed},
		{ID: "DEHEFLAT", X: e + 120, Y: n, Z0: 100, Length: 10, Depth: 10, Height: 9, Roof: demo.Flat},
	}
	s := importBuildings(t, 25832, "he", bs)
	gamma := convergenceDeg(geo.Zone32, e, n)
	for _, tc := range []struct {
		id    string
		tilt  []float64
		azGrd []float64 // grid azimuth of the outward normal; NaN = null
		area  []float64
	}{
		{"DEHEGABLE0", []float64{35, 35}, []float64{180, 0}, []float64{48, 48}},
		{"DEHEGABLE90", []float64{45, 45}, []float64{90, 270}, []float64{48, 48}},
		{"DEHESHED30", []float64{20}, []float64{150}, []float64{60}},
		{"DEHEFLAT", []float64{0}, []float64{math.NaN()}, []float64{100}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			facets, err := s.Roof(context.Background(), tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if len(facets) != len(tc.tilt) {
				t.Fatalf("%d facets, want %d", len(facets), len(tc.tilt))
			}
			for i, f := range facets {
				if math.Abs(f.TiltDeg-tc.tilt[i]) > 0.5 {
					t.Errorf("facet %d tilt %.3f, want %.1f", i, f.TiltDeg, tc.tilt[i])
				}
				if math.Abs(f.AreaM2-tc.area[i]) > 0.01 {
					t.Errorf("facet %d area %.4f, want %.2f", i, f.AreaM2, tc.area[i])
				}
				if math.IsNaN(tc.azGrd[i]) {
					if f.AzimuthDeg != nil {
						t.Errorf("facet %d azimuth %v, want null", i, *f.AzimuthDeg)
					}
					continue
				}
				want := math.Mod(tc.azGrd[i]-gamma+360, 360)
				if f.AzimuthDeg == nil {
					t.Fatalf("facet %d azimuth null", i)
				}
				d := math.Abs(*f.AzimuthDeg - want)
				if d > 180 {
					d = 360 - d
				}
				if d > 0.5 {
					t.Errorf("facet %d azimuth %.3f, want %.3f (grid %.0f, convergence %.3f)", i, *f.AzimuthDeg, want, tc.azGrd[i], gamma)
				}
			}
		})
	}
	if math.Abs(gamma) < 0.1 {
		t.Fatalf("test site has convergence %.3f; pick one where the correction matters", gamma)
	}
}

func TestBuildingLookup(t *testing.T) {
	t.Parallel()
	part := &demo.Building{ID: "DEBEPART_BP1", X: 391010, Y: 5820000, Z0: 40, Length: 4, Depth: 4, Height: 3}
	s := importBuildings(t, 25833, "be", []demo.Building{
		{ID: "DEBEPART", X: 391000, Y: 5820000, Z0: 40, Length: 12, Depth: 8, Height: 6, Part: part},
		{ID: "6f9619ff-8b86-4011-b42d-00c04fc964ff", X: 391100, Y: 5820000, Z0: 40, Length: 10, Depth: 8, Height: 6},
	})
	for _, id := range []string{"DEBEPART", "DEBEPART_BP1", "6f9619ff-8b86-4011-b42d-00c04fc964ff"} {
		b, err := s.Building(context.Background(), id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if !bytes.HasPrefix(b.Coords, []byte("[[[[13.")) {
			t.Errorf("%s: coordinates %.40s", id, b.Coords)
		}
	}
	whole, _ := s.Building(context.Background(), "DEBEPART")
	viaPart, _ := s.Building(context.Background(), "DEBEPART_BP1")
	if whole.BuildingID != viaPart.BuildingID || !bytes.Equal(whole.Coords, viaPart.Coords) {
		t.Error("part id does not resolve to the whole building")
	}
	// 6 faces of the main shell + 6 of the part, each one polygon.
	if got := bytes.Count(whole.Coords, []byte("]]],[[[")) + 1; got != 12 {
		t.Errorf("aggregated %d polygons, want 12", got)
	}
	if _, err := s.Building(context.Background(), "DEBENOTHERE"); err == nil {
		t.Error("unknown id found")
	}
}
