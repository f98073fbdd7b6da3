package roofsolar

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
)

// TestLoadClimate: the climate names its file and that file's SHA-256 (what
// a store is matched against), and its best plane faces roughly south
// (the small Potsdam sample holds a few days of records).
func TestLoadClimate(t *testing.T) {
	t.Parallel()
	p := filepath.Join("..", "solar", "climate", "testdata", "tmy_potsdam.csv")
	c, err := LoadClimate(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	sum := sha256.Sum256(raw)
	if c.File != "tmy_potsdam.csv" || c.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("file %q sha256 %s", c.File, c.SHA256)
	}
	if c.BestAzimuthDeg < 150 || c.BestAzimuthDeg > 210 || c.BestTiltDeg < 10 || c.BestTiltDeg > 70 || c.BestWhM2 <= 0 {
		t.Errorf("best plane tilt %g azimuth %g, %g Wh/m²", c.BestTiltDeg, c.BestAzimuthDeg, c.BestWhM2)
	}
	if _, err := LoadClimate(context.Background(), filepath.Join(t.TempDir(), "none.csv")); err == nil {
		t.Error("a missing file loaded")
	}
}

// TestStoreRoundTrip: a roof written to a store row and read back keeps
// its values to the whole Wh/m², its plane areas and its shading; a row
// with another facet count is ErrMismatch.
func TestStoreRoundTrip(t *testing.T) {
	t.Parallel()
	az := 180.0
	facets := []lod2store.Facet{{TiltDeg: 30, AzimuthDeg: &az, AreaM2: 50}, {TiltDeg: 2, AreaM2: 20}}
	r := Roof{Shading: ShadingWithoutTrees, Facets: []FacetValue{
		{PlaneAreaM2: PlaneAreaM2(facets[0]), UnshadedWhM2: 1_100_000.4, AnnualWhM2: 1_050_000.6, Loss: &Loss{Terrain: 1000.2, Buildings: 48_999.6}},
		{PlaneAreaM2: PlaneAreaM2(facets[1]), UnshadedWhM2: 950_000, AnnualWhM2: 950_000},
	}}
	r.Facets[0].MonthlyWhM2[5] = 150_000.49
	b := &lod2store.RoofBuilding{BuildingID: 4, GMLID: "DEHE0004", Facets: facets, SurfaceIDs: []int64{10, 11}, Parts: []int{0, 0}}
	row := ToStore(b, r, ShadingWithoutTrees)
	if row.Shading != "" || row.Facets[0].AnnualWhM2 != 1_050_001 || row.Facets[0].Loss.Buildings != 49_000 || row.Facets[1].Loss != nil || row.Facets[1].SurfaceID != 11 {
		t.Fatalf("row %+v", row)
	}
	back, err := FromStore(row, facets, ShadingWithoutTrees)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range back.Facets {
		w := r.Facets[i]
		if math.Abs(f.AnnualWhM2-w.AnnualWhM2) > 0.5 || math.Abs(f.UnshadedWhM2-w.UnshadedWhM2) > 0.5 || f.PlaneAreaM2 != w.PlaneAreaM2 ||
			math.Abs(f.MonthlyWhM2[5]-w.MonthlyWhM2[5]) > 0.5 || (f.Loss == nil) != (w.Loss == nil) {
			t.Errorf("facet %d: %+v, want %+v", i, f, w)
		}
	}
	if back.Shading != ShadingWithoutTrees || math.Abs(back.Facets[0].PlaneAreaM2-50/math.Cos(math.Pi/6)) > 1e-9 {
		t.Errorf("shading %q plane %g", back.Shading, back.Facets[0].PlaneAreaM2)
	}
	if _, err := FromStore(row, facets[:1], ShadingWithoutTrees); !errors.Is(err, ErrMismatch) {
		t.Errorf("a row of 2 facets for a roof of 1: %v", err)
	}
	if ToStore(b, Roof{Shading: NoFacets}, ShadingWithoutTrees).Shading != NoFacets {
		t.Error("a building's own shading is not kept")
	}
}

// TestClass: the thresholds of docs/solar.md section 10.
func TestClass(t *testing.T) {
	t.Parallel()
	for share, want := range map[float64]string{1: "very_good", 0.9: "very_good", 0.899: "good", 0.8: "good", 0.75: "fair", 0.699: "poor", 0: "poor"} {
		if got := Class(share); got != want {
			t.Errorf("Class(%g) = %s, want %s", share, got, want)
		}
	}
}
