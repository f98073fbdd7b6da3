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

// plane is exactly reproduced by bilinear and cubic interpolation, so any
// point's expected value is known; a NoData hole sits at 477100-477103 E,
// 5551500-5551503 N.
func plane(e, n float64) float64 {
	if e >= 477100 && e < 477103 && n >= 5551500 && n < 5551503 {
		return math.NaN()
	}
	return 100 + 0.01*(e-477000) - 0.02*(n-5551000)
}

func interpPack(t *testing.T) *Dataset {
	t.Helper()
	return makePack(t, t.TempDir(), pack.Terrain, "he", "2026-07-20", 25832, map[string][]fixtureTile{
		LayerDGM: {{name: "a", e0: 477000, n0: 5551000, size: 1000, f: plane}, {name: "b", e0: 478000, n0: 5551000, size: 1000, f: plane}},
	}, raster.NewCache(0))
}

func TestSampleInterp(t *testing.T) {
	d := interpPack(t)
	l := d.layers[LayerDGM]
	ctx := context.Background()
	cases := []struct {
		name   string
		x, y   float64
		m      Interpolation
		want   float64 // NaN: ErrNoData
		within float64
	}{
		{"nearest is the pixel value", 477500.3, 5551500.8, Nearest, plane(477500.5, 5551500.5), 2e-5},     // float32 storage
		{"bilinear inside a tile", 477500.3, 5551500.8, Bilinear, plane(477500.3, 5551500.8), 2e-5},        // float32 storage
		{"cubic inside a tile", 477500.3, 5551500.8, Cubic, plane(477500.3, 5551500.8), 2e-5},              // float32 storage
		{"bilinear across the tile edge", 477999.9, 5551500.2, Bilinear, plane(477999.9, 5551500.2), 2e-5}, // float32 storage
		{"cubic across the tile edge", 478000.7, 5551500.2, Cubic, plane(478000.7, 5551500.2), 2e-5},       // float32 storage
		{"nearest pixel NoData", 477101.5, 5551501.5, Bilinear, math.NaN(), 0},
		{"cubic nearest pixel NoData", 477101.5, 5551501.5, Cubic, math.NaN(), 0},
		// Next to the hole: bilinear renormalises over its valid pixels,
		// and a plane's weighted mean of valid pixels is not the plane, so
		// only the bounds are certain; cubic falls back to that bilinear.
		{"bilinear beside NoData", 477103.2, 5551501.5, Bilinear, math.Inf(1), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, _, err := l.SampleInterp(ctx, c.x, c.y, c.m)
			switch {
			case math.IsNaN(c.want):
				if !errors.Is(err, ErrNoData) {
					t.Fatalf("got %v, %v; want ErrNoData", v, err)
				}
			case err != nil:
				t.Fatal(err)
			case math.IsInf(c.want, 1):
				lo, hi := plane(477103.5, 5551502.5), plane(477103.5, 5551500.5)
				if v < lo || v > hi {
					t.Fatalf("got %v, want between the valid neighbours %v and %v", v, lo, hi)
				}
				cv, _, err := l.SampleInterp(ctx, c.x, c.y, Cubic)
				if err != nil || cv != v {
					t.Fatalf("cubic beside NoData = %v, %v; want the bilinear %v", cv, err, v)
				}
			case math.Abs(v-c.want) > c.within:
				t.Fatalf("got %.9f, want %.9f", v, c.want)
			}
		})
	}
}

func TestParseInterpolation(t *testing.T) {
	for s, want := range map[string]Interpolation{"": Nearest, "nearest": Nearest, "bilinear": Bilinear, "cubic": Cubic} {
		if m, ok := ParseInterpolation(s); !ok || m != want {
			t.Errorf("%q: %v %v", s, m, ok)
		}
	}
	for _, s := range []string{"Cubic", "linear", "lanczos", " nearest"} {
		if _, ok := ParseInterpolation(s); ok {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestElevationBatch checks input order, per-point reasons and that the
// parallel path answers as point-by-point calls do.
func TestElevationBatch(t *testing.T) {
	d := interpPack(t)
	ds := []*Dataset{d}
	ctx := context.Background()
	var pts []geo.LonLat
	for i := range 3000 {
		e, n := 477000+float64(i%2000)+0.25, 5551000+float64(i%997)+0.5
		var p geo.LonLat
		p.Lon, p.Lat = geo.FromUTM(geo.Zone32, e, n)
		pts = append(pts, p)
	}
	hole, out := pts[0], pts[0]
	hole.Lon, hole.Lat = geo.FromUTM(geo.Zone32, 477101.5, 5551501.5)
	out.Lon, out.Lat = 13.4, 52.5
	pts[17], pts[2500] = hole, out
	for _, m := range []Interpolation{Nearest, Bilinear, Cubic} {
		res, err := ElevationBatch(ctx, ds, pts, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != len(pts) {
			t.Fatalf("%d results for %d points", len(res), len(pts))
		}
		for i, p := range pts {
			h, err := ElevationWith(ctx, ds, p.Lon, p.Lat, m)
			r := res[i]
			switch {
			case i == 17:
				if r.OK || r.Reason != ReasonNoData {
					t.Fatalf("%s point %d: %+v, want nodata", m, i, r)
				}
			case i == 2500:
				if r.OK || r.Reason != ReasonOutside {
					t.Fatalf("%s point %d: %+v, want outside", m, i, r)
				}
			case err != nil || !r.OK || r.Value != h.Value || r.TileID != h.TileID:
				t.Fatalf("%s point %d: batch %+v, single %+v %v", m, i, r, h, err)
			}
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ElevationBatch(cctx, ds, pts, Nearest); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled batch: %v", err)
	}
}
