package geo

import (
	"errors"
	"math"
	"testing"
)

// utmLine returns lon/lat points of UTM32N positions, so the expected
// distances along them are exact.
func utmLine(en ...[2]float64) []LonLat {
	pts := make([]LonLat, len(en))
	for i, p := range en {
		pts[i].Lon, pts[i].Lat = FromUTM(Zone32, p[0], p[1])
	}
	return pts
}

func TestInterpolate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		en     [][2]float64 // polyline in UTM32N metres
		n      int
		wantEN [][2]float64 // expected sample positions in UTM32N metres
		wantD  []float64
	}{
		{"straight 3-4-5", [][2]float64{{500000, 5600000}, {503000, 5604000}}, 6,
			[][2]float64{{500000, 5600000}, {500600, 5600800}, {501200, 5601600}, {501800, 5602400}, {502400, 5603200}, {503000, 5604000}},
			[]float64{0, 1000, 2000, 3000, 4000, 5000}},
		{"L shape through corner", [][2]float64{{400000, 5500000}, {403000, 5500000}, {403000, 5504000}}, 8,
			[][2]float64{{400000, 5500000}, {401000, 5500000}, {402000, 5500000}, {403000, 5500000}, {403000, 5501000}, {403000, 5502000}, {403000, 5503000}, {403000, 5504000}},
			[]float64{0, 1000, 2000, 3000, 4000, 5000, 6000, 7000}},
		{"two samples", [][2]float64{{450000, 5400000}, {450000, 5410000}, {460000, 5410000}}, 2,
			[][2]float64{{450000, 5400000}, {460000, 5410000}},
			[]float64{0, 20000}},
		{"duplicate vertex", [][2]float64{{500000, 5600000}, {501000, 5600000}, {501000, 5600000}, {502000, 5600000}}, 5,
			[][2]float64{{500000, 5600000}, {500500, 5600000}, {501000, 5600000}, {501500, 5600000}, {502000, 5600000}},
			[]float64{0, 500, 1000, 1500, 2000}},
		{"zero length", [][2]float64{{500000, 5600000}, {500000, 5600000}}, 3,
			[][2]float64{{500000, 5600000}, {500000, 5600000}, {500000, 5600000}},
			[]float64{0, 0, 0}},
		{"back and forth", [][2]float64{{500000, 5600000}, {502000, 5600000}, {500000, 5600000}}, 5,
			[][2]float64{{500000, 5600000}, {501000, 5600000}, {502000, 5600000}, {501000, 5600000}, {500000, 5600000}},
			[]float64{0, 1000, 2000, 3000, 4000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pts := utmLine(tt.en...)
			got, err := Interpolate(pts, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n {
				t.Fatalf("%d samples, want %d", len(got), tt.n)
			}
			if got[0].LonLat != pts[0] || got[len(got)-1].LonLat != pts[len(pts)-1] {
				t.Errorf("ends %v, %v are not the input ends %v, %v", got[0].LonLat, got[len(got)-1].LonLat, pts[0], pts[len(pts)-1])
			}
			for i, s := range got {
				e, n := ToUTM(Zone32, s.Lon, s.Lat)
				if math.Hypot(e-tt.wantEN[i][0], n-tt.wantEN[i][1]) > 1e-6 {
					t.Errorf("sample %d at %.6f, %.6f; want %v", i, e, n, tt.wantEN[i])
				}
				if math.Abs(s.DistanceM-tt.wantD[i]) > 1e-6 {
					t.Errorf("sample %d distance %.9f, want %v", i, s.DistanceM, tt.wantD[i])
				}
			}
		})
	}
}

// TestInterpolateEastUsesUTM32 checks that a line in the east (Berlin) is
// measured in UTM32N, not in its own zone 33N: there the two differ by about
// 0.2 % (scale factor), about 20 m on this 10 km line.
func TestInterpolateEastUsesUTM32(t *testing.T) {
	t.Parallel()
	pts := []LonLat{{13.30, 52.50}, {13.45, 52.45}}
	got, err := Interpolate(pts, 11)
	if err != nil {
		t.Fatal(err)
	}
	e0, n0 := ToUTM(Zone32, pts[0].Lon, pts[0].Lat)
	e1, n1 := ToUTM(Zone32, pts[1].Lon, pts[1].Lat)
	want32 := math.Hypot(e1-e0, n1-n0)
	e0, n0 = ToUTM(Zone33, pts[0].Lon, pts[0].Lat)
	e1, n1 = ToUTM(Zone33, pts[1].Lon, pts[1].Lat)
	want33 := math.Hypot(e1-e0, n1-n0)
	total := got[len(got)-1].DistanceM
	if math.Abs(total-want32) > 1e-6 {
		t.Errorf("total %.6f m, want UTM32N length %.6f m", total, want32)
	}
	if math.Abs(want32-want33) < 10 {
		t.Fatalf("test line too short to tell zones apart: %.3f vs %.3f", want32, want33)
	}
	for i := 1; i < len(got); i++ {
		if d := got[i].DistanceM - got[i-1].DistanceM; math.Abs(d-want32/10) > 1e-6 {
			t.Errorf("step %d is %.6f m, want %.6f", i, d, want32/10)
		}
	}
}

func TestInterpolateErrors(t *testing.T) {
	t.Parallel()
	two := []LonLat{{9, 50}, {9.1, 50}}
	tests := []struct {
		name string
		pts  []LonLat
		n    int
	}{
		{"no points", nil, 10},
		{"one point", []LonLat{{9, 50}}, 10},
		{"one sample", two, 1},
		{"zero samples", two, 0},
		{"too many samples", two, MaxSamples + 1},
		{"NaN point", []LonLat{{9, 50}, {math.NaN(), 50}}, 10},
		{"unprojectable", []LonLat{{9, 50}, {99, 0}}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Interpolate(tt.pts, tt.n)
			if !errors.Is(err, ErrInterpolate) || got != nil {
				t.Errorf("Interpolate = %v, %v; want ErrInterpolate", got, err)
			}
		})
	}
}

func BenchmarkInterpolate(b *testing.B) {
	pts := []LonLat{{8.6, 50.1}, {8.9, 50.3}, {9.4, 50.2}, {13.4, 52.5}}
	const n = 2000
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Interpolate(pts, n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "samples/s")
}
