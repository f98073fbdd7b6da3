package cmd

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/solar/climate/germany"
)

// TestSolarRouteDefaultClimate: `svc serve` without --irradiance answers the
// solar route from the built-in default climate of Germany (before it, the
// route answered 503): the answer names the input (format, CM SAF source,
// period 2006-2025, the grid point next to the building), how its hours are
// made and whom the data credit; a flat roof facet receives the table's
// annual horizontal irradiation of the cell, and the building's south-facing
// facets more than its north-facing ones; /v1/attribution credits it.
func TestSolarRouteDefaultClimate(t *testing.T) {
	data, ids := nrwSample(t)
	base := serveData(t, data)
	type answer struct {
		solarAnswer
		Climate struct {
			File, Format, Source, Method, Attribution string
			FirstYear                                 int     `json:"first_year"`
			LastYear                                  int     `json:"last_year"`
			LatDeg                                    float64 `json:"latitude"`
			LonDeg                                    float64 `json:"longitude"`
		} `json:"climate"`
	}
	var roof struct {
		Features []struct {
			Geometry struct{ Coordinates [][][3]float64 }
		}
	}
	flat, south, north := 0, 0.0, math.Inf(1)
	start := time.Now()
	n := 0
	for _, id := range ids {
		if n >= 40 && flat > 0 && south > 0 && !math.IsInf(north, 1) {
			break // enough: the tile's buildings all lie in one cell
		}
		n++
		var a answer
		getStatusJSON(t, base+"/v1/buildings/"+id+"/solar", 200, &a)
		c := a.Climate
		if c.File != "" || c.Format != "cmsaf-monthly-means" || !strings.Contains(c.Source, "CM SAF") || c.FirstYear != 2006 || c.LastYear != 2025 ||
			!strings.Contains(c.Method, "Erbs") || !strings.Contains(c.Attribution, "EUMETSAT") || !strings.Contains(c.Attribution, "CC BY 4.0") {
			t.Fatalf("%s: climate %+v", id, c)
		}
		if len(a.Facets) == 0 {
			continue
		}
		getStatusJSON(t, base+"/v1/buildings/"+id+"/roof", 200, &roof)
		p := roof.Features[0].Geometry.Coordinates[0][0]
		if math.Abs(c.LatDeg-p[1]) > 0.1+1e-9 || math.Abs(c.LonDeg-p[0]) > 0.1+1e-9 {
			t.Fatalf("%s at %.4f N %.4f E: climate of the grid point %g N %g E", id, p[1], p[0], c.LatDeg, c.LonDeg)
		}
		cell, err := germany.CellAt(c.LatDeg, c.LonDeg)
		if err != nil {
			t.Fatal(err)
		}
		mo, _ := germany.MonthlyAt(cell)
		var table float64
		for m, v := range mo {
			a := time.Date(germany.Year, time.Month(m+1), 1, 0, 0, 0, 0, time.UTC)
			table += v * a.AddDate(0, 1, 0).Sub(a).Hours() / 1000
		}
		for _, f := range a.Facets {
			switch {
			case f.TiltDeg < 1:
				flat++
				if math.Abs(f.Unshaded-table) > 0.01*table {
					t.Errorf("%s facet %d (flat): %.1f kWh/m², the cell's table %.1f", id, f.Index, f.Unshaded, table)
				}
			case f.TiltDeg > 15 && f.AzimuthDeg != nil && math.Abs(*f.AzimuthDeg-180) < 45:
				south = max(south, f.Unshaded)
			case f.TiltDeg > 15 && f.AzimuthDeg != nil && (*f.AzimuthDeg < 45 || *f.AzimuthDeg > 315):
				north = min(north, f.Unshaded)
			}
		}
	}
	t.Logf("%d buildings in %v (the cell prepared once); %d flat facets at the table's value, south-facing up to %.1f kWh/m², north-facing down to %.1f",
		n, time.Since(start).Round(time.Millisecond), flat, south, north)
	if flat == 0 || south == 0 || !(south > north) {
		t.Errorf("flat facets %d, south %.1f, north %.1f", flat, south, north)
	}
	// /v1/attribution credits the default climate while it is in use.
	var attr struct {
		Attribution []struct{ Product, License, Attribution string }
	}
	getStatusJSON(t, base+"/v1/attribution", 200, &attr)
	found := false
	for _, e := range attr.Attribution {
		if e.Product == "solar-climate" {
			found = e.License == "CC BY 4.0" && strings.Contains(e.Attribution, "EUMETSAT") && strings.Contains(e.Attribution, "clidamonger")
		}
	}
	if !found {
		t.Errorf("/v1/attribution does not credit the default climate: %+v", attr.Attribution)
	}
}
