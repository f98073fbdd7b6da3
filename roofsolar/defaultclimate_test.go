package roofsolar

import (
	"context"
	"errors"
	"testing"

	"github.com/svc-geodata/svc/solar/climate/germany"
)

// TestDefaultClimates: one Climate per 0.2° cell, shared by the buildings
// of the cell, named by the default climate's identity; germany.ErrOutside
// beyond Germany's grid; the oldest cell dropped beyond the cache's size.
func TestDefaultClimates(t *testing.T) {
	ctx := context.Background()
	d := NewDefaultClimates(2)
	a, err := d.At(ctx, 52.381, 13.064) // Potsdam: cell 52.4 N 13.0 E
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.At(ctx, 52.45, 12.95) // same cell
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a.Series.Site.LatDeg != 52.4 || a.Series.Site.LonDeg != 13.0 || a.Attribution == "" || a.Method == "" || a.File != "" {
		t.Fatalf("same cell: %p %p, site %+v, file %q", a, b, a.Series.Site, a.File)
	}
	if a.SHA256 != DefaultSHA256() || len(a.SHA256) != 64 {
		t.Errorf("identity %q, want DefaultSHA256 %q", a.SHA256, DefaultSHA256())
	}
	if !(a.BestWhM2 > 1.1*1121e3 && a.BestTiltDeg > 30 && a.BestTiltDeg < 50 && a.BestAzimuthDeg == 180) {
		t.Errorf("best plane at Potsdam: tilt %g az %g, %.0f Wh/m²", a.BestTiltDeg, a.BestAzimuthDeg, a.BestWhM2)
	}
	c, _ := d.At(ctx, 48.14, 11.58)
	if c == a {
		t.Fatal("München shares Potsdam's climate")
	}
	if c.SHA256 != a.SHA256 {
		t.Error("two cells of the default climate have different identities")
	}
	_, _ = d.At(ctx, 50.11, 8.68) // a third cell drops Potsdam's
	if c, _ := d.At(ctx, 52.381, 13.064); c == a || d.Cells() != 2 {
		t.Errorf("cache holds %d cells, Potsdam's kept: %v", d.Cells(), c == a)
	}
	if _, err = d.At(ctx, 48.857, 2.352); !errors.Is(err, germany.ErrOutside) { // Paris
		t.Fatalf("Paris: %v, want germany.ErrOutside", err)
	}
}

// BenchmarkDefaultClimateCell is the cost of a cell's first use: the
// synthesized year, its Sky and the best-plane search.
func BenchmarkDefaultClimateCell(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewDefaultClimates(1).At(b.Context(), 52.381, 13.064); err != nil {
			b.Fatal(err)
		}
	}
}
