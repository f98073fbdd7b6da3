package terrain

import (
	"context"
	"math"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
)

// TestElevationRowMatchesPoints samples rows crossing the UTM zone
// boundary at 12° E (a zone 32 pack west of it, a zone 33 pack east of it,
// overlapping, with a NoData hole in the first) at several overview levels
// and holds every point to ElevationLevel's answer at the same lon, lat
// within a millimetre.
func TestElevationRowMatchesPoints(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	rough := func(z geo.Zone) func(e, n float64) float64 {
		return func(e, n float64) float64 {
			lon, lat := geo.FromUTM(z, e, n)
			if z == 32 && math.Abs(lon-11.999) < 0.0003 && math.Abs(lat-50.5) < 0.0003 {
				return math.NaN()
			}
			x, y := (lon-12)*71000, (lat-50.5)*111000
			return 300 + 20*math.Sin(x/37)*math.Cos(y/53) + 8*math.Sin((x+y)/11)
		}
	}
	e32, n32 := geo.ToUTM(32, 12, 50.5)
	e33, n33 := geo.ToUTM(33, 12, 50.5)
	a := makePack(t, data, pack.Terrain, "by", "2026-07-20", 25832, map[string][]fixtureTile{LayerDGM: {
		{name: "a", e0: math.Floor(e32) - 400, n0: math.Floor(n32) - 200, size: 500, f: rough(32)}}}, nil)
	b := makePack(t, data, pack.Terrain, "sn", "2026-07-20", 25833, map[string][]fixtureTile{LayerDGM: {
		{name: "b", e0: math.Floor(e33) - 100, n0: math.Floor(n33) - 200, size: 500, f: rough(33)}}}, nil)
	datasets := []*Dataset{a, b}
	for _, tc := range []struct {
		name               string
		lon0, dLonDeg, lat float64
		n, level           int
	}{
		{"z17 pixels across the boundary", 11.9955, 360.0 / (1 << 17) / 256, 50.5, 258, 0},
		{"z15 pixels over the hole", 11.994, 360.0 / (1 << 15) / 256, 50.49995, 258, 0},
		{"z13 pixels, overview", 11.99, 360.0 / (1 << 13) / 256, 50.5001, 100, 1},
		{"short row", 12.0001, 1e-5, 50.5, 3, 0},
		{"long row (anchors on the heap)", 11.997, 360.0 / (1 << 17) / 512, 50.5, 1000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]float64, tc.n)
			if err := ElevationRow(ctx, datasets, tc.lon0, tc.dLonDeg, tc.lat, Bilinear, tc.level, out); err != nil {
				t.Fatal(err)
			}
			valid, none, worst := 0, 0, 0.0
			for i, got := range out {
				lon := tc.lon0 + float64(i)*tc.dLonDeg
				h, err := ElevationLevel(ctx, datasets, lon, tc.lat, Bilinear, tc.level)
				switch {
				case err != nil && math.IsNaN(got):
					none++
				case err != nil || math.IsNaN(got):
					t.Fatalf("point %d (%.7f): row %g, point %v %v", i, lon, got, h.Value, err)
				default:
					valid++
					worst = max(worst, math.Abs(got-h.Value))
				}
			}
			t.Logf("%d with a height (worst difference %.2g m), %d without", valid, worst, none)
			// The interpolated positions are off by a parallel's sagitta
			// between anchors (0.2 mm at z 13): times the relief's slope.
			if worst > 1e-3 || valid == 0 {
				t.Errorf("worst difference %g m over %d points", worst, valid)
			}
		})
	}
	if err := ElevationRow(ctx, nil, 12, 1e-5, 50.5, Bilinear, 0, nil); err != nil {
		t.Error(err)
	}
}
