package draco

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPositionIDsMatchesMap: the open-addressing table gives the ids a Go
// map keyed by the [3]float32 position gives (the first implementation):
// duplicates, +0 and -0, NaN, lattice positions and a subset of kept
// vertices.
func TestPositionIDsMatchesMap(t *testing.T) {
	t.Parallel()
	reference := func(pos []float32, kept []int) []int32 {
		first := map[[3]float32]int32{}
		ids := make([]int32, len(kept))
		for i, v := range kept {
			k := [3]float32{pos[3*v], pos[3*v+1], pos[3*v+2]}
			if id, ok := first[k]; ok {
				ids[i] = id
				continue
			}
			first[k] = int32(i)
			ids[i] = int32(i)
		}
		return ids
	}
	rng := rand.New(rand.NewPCG(1, 2))
	nan, negZero := float32(math.NaN()), float32(math.Copysign(0, -1))
	for _, tc := range []struct {
		name string
		n    int
		val  func(i, j int) float32
	}{
		{"lattice", 100 * 100, func(i, j int) float32 { return [3]float32{float32(i % 100), float32(i / 100), 1}[j] }},
		{"few values", 5000, func(i, j int) float32 { return float32(rng.IntN(4)) }},
		{"signed zeros", 64, func(i, j int) float32 { return [2]float32{0, negZero}[rng.IntN(2)] }},
		{"NaN", 64, func(i, j int) float32 { return [3]float32{nan, 1, 0}[rng.IntN(3)] }},
		{"random", 20000, func(i, j int) float32 { return float32(rng.NormFloat64()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos := make([]float32, 3*tc.n)
			for i := range tc.n {
				for j := range 3 {
					pos[3*i+j] = tc.val(i, j)
				}
			}
			all := make([]int, tc.n)
			var some []int
			for i := range all {
				all[i] = i
				if i%3 != 1 {
					some = append(some, i)
				}
			}
			for _, kept := range [][]int{all, some} {
				if got, want := positionIDs(pos, kept), reference(pos, kept); !slices.Equal(got, want) {
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("vertex %d: id %d, the map gives %d", i, got[i], want[i])
						}
					}
				}
			}
		})
	}
}

// BenchmarkPositionIDs: the vertices of a plantcover tile (a 1025 lattice
// of about 1 m, heights in centimetres), about 650,000 of them.
func BenchmarkPositionIDs(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	var pos []float32
	var kept []int
	for r := 0; r < 1025; r++ {
		for c := 0; c < 1025; c++ {
			if (r*1025+c)%8 < 5 {
				kept = append(kept, len(pos)/3)
			}
			pos = append(pos, float32(-500+float64(c)*1000/1024), float32(math.Round(100*(80+rng.Float64()*30))/100), float32(-500+float64(r)*1000/1024))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = positionIDs(pos, kept)
	}
	b.ReportMetric(float64(b.N*len(kept))/b.Elapsed().Seconds(), "vertices/s")
}
