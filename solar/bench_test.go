package solar

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/testtool"
)

// BenchmarkIrradiation sums a clear-sky year (hourly, ~4,470 daylight steps)
// for facets of random orientation, with beam visibility and sky view: the
// inner loop of a state's solar build (~10^8 facets x 8,760 h).
func BenchmarkIrradiation(b *testing.B) {
	sky, _ := testSky(b, Perez)
	rng := rand.New(rand.NewPCG(27, 1))
	facets := make([]Facet, 256)
	for i := range facets {
		facets[i] = Facet{TiltDeg: rng.Float64() * 60, AzimuthDeg: rng.Float64() * 360, SkyView: 0.7 + 0.3*rng.Float64()}
	}
	vis := make([]float32, sky.Len())
	for i := range vis {
		vis[i] = float32(rng.IntN(2))
	}
	var r Result
	b.ReportAllocs()
	cpu := testtool.CPUTime()
	for b.Loop() {
		for _, f := range facets {
			_ = sky.Irradiation(f, vis, &r)
		}
	}
	b.ReportMetric(float64(testtool.CPUTime()-cpu)/float64(b.N*len(facets)*sky.Len()), "cpu-ns/step")
	b.ReportMetric(float64(b.N*len(facets))/b.Elapsed().Seconds(), "facets/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(facets)*sky.Len()), "ns/step")
}

// BenchmarkNewSky precomputes one location cell for a year (hourly SPA of
// 8,760 steps, Perez coefficients), done once per cell and year.
func BenchmarkNewSky(b *testing.B) {
	site := Site{LatDeg: 51, LonDeg: 10, ElevationM: 200}
	recs, err := ClearSkyYear{Site: site, SPA: DefaultSPAOptions(), Year: 2025, Step: time.Hour, LinkeByMonth: germanLinke}.Records(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	opt := SkyOptions{Site: site, SPA: DefaultSPAOptions(), StepH: 1, Albedo: 0.2}
	b.Run("own", func(b *testing.B) {
		b.ReportAllocs()
		cpu := testtool.CPUTime()
		for b.Loop() {
			if _, err := NewSky(b.Context(), recs, opt); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(testtool.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
	// Shared: the ephemerides of the series computed once for all cells.
	eph, err := Ephemerides(context.Background(), recs, DefaultDeltaTS)
	if err != nil {
		b.Fatal(err)
	}
	opt.Ephemerides = eph
	b.Run("shared", func(b *testing.B) {
		b.ReportAllocs()
		cpu := testtool.CPUTime()
		for b.Loop() {
			if _, err := NewSky(b.Context(), recs, opt); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(testtool.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkSunPosition is one SPA evaluation.
func BenchmarkSunPosition(b *testing.B) {
	t0 := time.Date(2025, 1, 1, 0, 30, 0, 0, time.UTC)
	site := Site{LatDeg: 51, LonDeg: 10, ElevationM: 200}
	opt := DefaultSPAOptions()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		_ = SunPosition(t0.Add(time.Duration(i)*time.Hour), site, opt)
		i++
	}
}
