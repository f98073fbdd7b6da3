package lod2store

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// BenchmarkSearch1km2 searches random 1 km2 boxes (limit 100) in a pack at
// urban density: 2,500 buildings and 15,000 surfaces per km2 over 4 km2.
// The search walks the packed index only as far as the page needs, so its
// cost does not grow with the size of the pack.
func BenchmarkSearch1km2(b *testing.B) {
	const e0, n0, size = 476000.0, 5550000.0, 2000.0
	s, _ := writeTown(b, 25832, e0, n0, size, 10000, 1)
	rng := rand.New(rand.NewPCG(9, 9))
	boxes := make([]geo.BBox, 64)
	for i := range boxes {
		x, y := e0+rng.Float64()*(size-1000), n0+rng.Float64()*(size-1000)
		lon0, lat0 := geo.FromUTM(geo.Zone32, x, y)
		lon1, lat1 := geo.FromUTM(geo.Zone32, x+1000, y+1000)
		boxes[i] = geo.BBox{MinLon: lon0, MinLat: lat0, MaxLon: lon1, MaxLat: lat1}
	}
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		hits, err := s.Search(ctx, boxes[i%len(boxes)], 0, 100)
		if err != nil || len(hits) != 100 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "searches/s")
}

// BenchmarkSearchFederated runs the same search over five BL packs, four of
// which lie outside the box.
func BenchmarkSearchFederated(b *testing.B) {
	var srcs []Source
	for i, code := range []string{"bb", "be", "he", "nrw", "sh"} {
		s, _ := writeTown(b, 25832, 476000+float64(i)*20000, 5550000, 1000, 2500, uint64(i))
		srcs = append(srcs, Source{BL: code, LoD2: s})
	}
	lon0, lat0 := geo.FromUTM(geo.Zone32, 476000+2*20000, 5550000)
	lon1, lat1 := geo.FromUTM(geo.Zone32, 477000+2*20000, 5551000)
	box := geo.BBox{MinLon: lon0, MinLat: lat0, MaxLon: lon1, MaxLat: lat1}
	b.ReportAllocs()
	for b.Loop() {
		hits, _, _, err := Search(context.Background(), srcs, box, Position{}, 100)
		if err != nil || len(hits) != 100 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
}

// BenchmarkBuildingGeometry reads the geometry of 50 buildings spread over
// a pack of 10,000 (what a tileset leaf reads), per call.
func BenchmarkBuildingGeometry(b *testing.B) {
	s, _ := writeTown(b, 25832, 476000, 5550000, 2000, 10000, 1)
	rng := rand.New(rand.NewPCG(5, 5))
	sets := make([][]int64, 64)
	for i := range sets {
		seen := map[int64]bool{}
		for len(seen) < 50 {
			seen[1+rng.Int64N(10000)] = true
		}
		for id := range seen {
			sets[i] = append(sets[i], id)
		}
		slices.Sort(sets[i])
	}
	ctx := context.Background()
	b.ReportAllocs()
	i, n := 0, 0
	cpu := testtool.CPUTime()
	for b.Loop() {
		if err := s.BuildingGeometry(ctx, sets[i%len(sets)], func(*Building3D) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64((testtool.CPUTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	if n != 50*i {
		b.Fatalf("%d buildings read in %d calls", n, i)
	}
}
