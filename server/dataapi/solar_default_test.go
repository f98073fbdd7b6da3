package dataapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/server/httpapi"
)

// TestDefaultClimates: one Climate per 0.2° cell, shared by the buildings
// of the cell; a 503 problem naming --irradiance beyond Germany's grid; the
// oldest cell dropped beyond the cache's size.
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
	if !(a.BestWhM2 > 1.1*1121e3 && a.BestTiltDeg > 30 && a.BestTiltDeg < 50 && a.BestAzimuthDeg == 180) {
		t.Errorf("best plane at Potsdam: tilt %g az %g, %.0f Wh/m²", a.BestTiltDeg, a.BestAzimuthDeg, a.BestWhM2)
	}
	if c, _ := d.At(ctx, 48.14, 11.58); c == a {
		t.Fatal("München shares Potsdam's climate")
	}
	_, _ = d.At(ctx, 50.11, 8.68) // a third cell drops Potsdam's
	if c, _ := d.At(ctx, 52.381, 13.064); c == a || len(d.cells) != 2 {
		t.Errorf("cache holds %d cells, Potsdam's kept: %v", len(d.cells), c == a)
	}
	_, err = d.At(ctx, 48.857, 2.352) // Paris
	var f *httpapi.Fault
	if !errors.As(err, &f) || !errors.Is(err, httpapi.ErrNotConfigured) {
		t.Fatalf("Paris: %v, want a 503 problem", err)
	}
	if e := httpapi.ToHTTPError(err); e.Status != http.StatusServiceUnavailable || !strings.Contains(e.Detail, "--irradiance") {
		t.Errorf("Paris: %d %q", e.Status, e.Detail)
	}
}

// BenchmarkDefaultClimateCell is the cost of a cell's first request: the
// synthesized year, its Sky and the best-plane search.
func BenchmarkDefaultClimateCell(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewDefaultClimates(1).At(b.Context(), 52.381, 13.064); err != nil {
			b.Fatal(err)
		}
	}
}
