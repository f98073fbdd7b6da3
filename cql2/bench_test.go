package cql2

import (
	"math"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/twpayne/go-geom"
)

// reportCPU adds the process CPU time per operation (user + system), the
// figure to compare on a machine shared with other jobs.
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(int64(testtool.CPUTime())-start)/float64(b.N), "cpu-ns/op")
}

const benchFilter = "function IN ('Wohnhaus', 'Garage') AND height BETWEEN 10 AND 30 AND " +
	"CASEI(name) LIKE '%straße%' AND S_INTERSECTS(geometry, POLYGON((0 0, 30 0, 30 30, 0 30, 0 0)))"

func BenchmarkParseText(b *testing.B) {
	b.ReportAllocs()
	start := int64(testtool.CPUTime())
	for b.Loop() {
		if _, err := ParseText(benchFilter); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(len(benchFilter)*b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
}

func BenchmarkParseJSON(b *testing.B) {
	e, err := ParseText(benchFilter)
	if err != nil {
		b.Fatal(err)
	}
	js := e.JSON()
	b.ReportAllocs()
	start := int64(testtool.CPUTime())
	for b.Loop() {
		if _, err := ParseJSON(js); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// circle returns a closed ring of n vertices around (cx, cy).
func circle(cx, cy, r float64, n int) *geom.Polygon {
	var flat []float64
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i%n) / float64(n)
		flat = append(flat, cx+r*math.Cos(a), cy+r*math.Sin(a))
	}
	return geom.NewPolygonFlat(geom.XY, flat, []int{len(flat)})
}

// BenchmarkMatchSpatial: S_INTERSECTS and S_WITHIN of a 40-vertex footprint
// with a 20-vertex query polygon that crosses it (the worst case: the
// envelopes overlap and the full sampled DE-9IM runs).
func BenchmarkMatchSpatial(b *testing.B) {
	for _, name := range []string{"S_INTERSECTS", "S_WITHIN"} {
		b.Run(name, func(b *testing.B) {
			e, err := ParseText(name + "(geometry, " + (&Expr{Kind: KindGeometry, Geom: circle(8, 0, 10, 20)}).Text() + ")")
			if err != nil {
				b.Fatal(err)
			}
			f := Feature{Geometry: circle(0, 0, 10, 40)}
			b.ReportAllocs()
			start := int64(testtool.CPUTime())
			for b.Loop() {
				if _, err := e.Match(f); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

func BenchmarkMatchAttributes(b *testing.B) {
	e, err := ParseText("function IN ('Wohnhaus', 'Garage') AND height BETWEEN 10 AND 30 AND CASEI(name) LIKE '%straße%'")
	if err != nil {
		b.Fatal(err)
	}
	f := fixture()[0].feature()
	b.ReportAllocs()
	start := int64(testtool.CPUTime())
	for b.Loop() {
		if _, err := e.Match(f); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkMatchWithinDistrict: S_WITHIN of a 10-vertex footprint inside a
// 200-vertex query polygon (a district), the case of a filter over many
// buildings: the cost per building after the envelope prefilter.
func BenchmarkMatchWithinDistrict(b *testing.B) {
	e, err := ParseText("S_WITHIN(geometry, " + (&Expr{Kind: KindGeometry, Geom: circle(0, 0, 1000, 200)}).Text() + ")")
	if err != nil {
		b.Fatal(err)
	}
	f := Feature{Geometry: circle(300, 200, 10, 10)}
	b.ReportAllocs()
	start := int64(testtool.CPUTime())
	for b.Loop() {
		ok, err := e.Match(f)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
	reportCPU(b, start)
}
