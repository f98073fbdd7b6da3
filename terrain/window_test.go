package terrain

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

// TestReadWindow: a window over the edge between two 1 km tiles holds each
// pixel's stored value (the value Sample gives at its centre), NaN beyond
// the data; a window too large for MaxEdge is read coarser; a box in
// another zone or off the data is ErrOutside.
func TestReadWindow(t *testing.T) {
	d := makePack(t, t.TempDir(), pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerDGM: {{name: "a", e0: 477000, n0: 5551000, size: 1000, f: smooth}, {name: "b", e0: 478000, n0: 5551000, size: 1000, f: smooth}},
	}, raster.NewCache(64<<20))
	ctx := context.Background()
	ds := []*Dataset{d}
	w, err := ReadWindow(ctx, ds, WindowRequest{Layer: LayerDGM, Zone: geo.Zone32, BBox: [4]float64{477990.2, 5551995.5, 478010.7, 5552004.1}, MaxEdge: 100})
	if err != nil {
		t.Fatal(err)
	}
	if w.Level != 0 || w.Width != 21 || w.Height != 10 || w.GeoTransform != [6]float64{477990, 1, 0, 5552005, 0, -1} {
		t.Fatalf("window %dx%d level %d at %v", w.Width, w.Height, w.Level, w.GeoTransform)
	}
	for j := range w.Height {
		for i := range w.Width {
			e, n := 477990.5+float64(i), 5552004.5-float64(j)
			got := w.Data[j*w.Width+i]
			want, _, err := d.Layer(LayerDGM).Sample(ctx, e, n)
			switch {
			case n > 5552000:
				if !math.IsNaN(float64(got)) || !errors.Is(err, ErrOutside) {
					t.Fatalf("%g %g beyond the data: %g (%v)", e, n, got, err)
				}
			case err != nil || float64(got) != want:
				t.Fatalf("%g %g: window %g, Sample %g (%v)", e, n, got, want, err)
			}
		}
	}
	coarse, err := ReadWindow(ctx, ds, WindowRequest{Layer: LayerDGM, Zone: geo.Zone32, BBox: [4]float64{477000, 5551000, 479000, 5552000}, MaxEdge: 1000})
	if err != nil || coarse.Level != 1 || coarse.Width != 1000 || coarse.Height != 500 || coarse.GeoTransform[1] != 2 {
		t.Fatalf("coarse window %dx%d level %d %v: %v", coarse.Width, coarse.Height, coarse.Level, coarse.GeoTransform, err)
	}
	// Another BL of the zone continuing the grid to the east fills its part
	// of the same window: lines drawn on it continue across the BL edge.
	rp := makePack(t, t.TempDir(), pack.Terrain, "rp", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerDGM: {{name: "c", e0: 479000, n0: 5551000, size: 1000, f: smooth}},
	}, raster.NewCache(64<<20))
	both, err := ReadWindow(ctx, []*Dataset{d, rp}, WindowRequest{Layer: LayerDGM, Zone: geo.Zone32, BBox: [4]float64{478995, 5551500, 479005, 5551501}, MaxEdge: 100})
	if err != nil || both.Width != 10 || both.Height != 1 {
		t.Fatalf("window over two BL: %dx%d, %v", both.Width, both.Height, err)
	}
	for i, v := range both.Data {
		if want := float32(smooth(478995.5+float64(i), 5551500.5)); v != want {
			t.Errorf("column %d over two BL: %g, want %g", i, v, want)
		}
	}
	for _, c := range []WindowRequest{
		{Layer: LayerDGM, Zone: geo.Zone33, BBox: [4]float64{477000, 5551000, 479000, 5552000}, MaxEdge: 100},
		{Layer: LayerDGM, Zone: geo.Zone32, BBox: [4]float64{400000, 5551000, 401000, 5552000}, MaxEdge: 100},
	} {
		if _, err := ReadWindow(ctx, ds, c); !errors.Is(err, ErrOutside) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
