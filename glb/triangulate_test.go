package glb

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// rings flattens rings of (x, y, z) points into flat and ends.
func rings(rs ...[][3]float64) ([]float64, []int) {
	var flat []float64
	var ends []int
	for _, r := range rs {
		for _, p := range r {
			flat = append(flat, p[0], p[1], p[2])
		}
		ends = append(ends, len(flat))
	}
	return flat, ends
}

func ringArea(flat []float64) float64 {
	n := Newell(flat)
	return math.Sqrt(n[0]*n[0]+n[1]*n[1]+n[2]*n[2]) / 2
}

// polygonArea is the exterior's area minus the holes'.
func polygonArea(flat []float64, ends []int) float64 {
	a, start := 0.0, 0
	for i, e := range ends {
		r := ringArea(flat[start:e])
		if i == 0 {
			a += r
		} else {
			a -= r
		}
		start = e
	}
	return a
}

// triArea sums the triangle areas and reports whether every triangle
// faces along normal (counter-clockwise seen from it).
func triArea(flat []float64, tri []uint32, normal [3]float64) (float64, bool) {
	sum, ok := 0.0, true
	for t := 0; t+2 < len(tri); t += 3 {
		p := func(k int) [3]float64 { i := 3 * tri[t+k]; return [3]float64{flat[i], flat[i+1], flat[i+2]} }
		a, b, c := p(0), p(1), p(2)
		u := [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
		v := [3]float64{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
		n := [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		sum += l / 2
		if n[0]*normal[0]+n[1]*normal[1]+n[2]*normal[2] < -1e-9*l {
			ok = false
		}
	}
	return sum, ok
}

func TestTriangulate(t *testing.T) {
	const e0, n0 = 477000.0, 5553000.0 // UTM magnitudes
	tests := []struct {
		name      string
		rings     [][][3]float64
		triangles int
	}{
		{"square", [][][3]float64{{{e0, n0, 100}, {e0 + 10, n0, 100}, {e0 + 10, n0 + 10, 100}, {e0, n0 + 10, 100}}}, 2},
		{"closed square", [][][3]float64{{{e0, n0, 100}, {e0 + 10, n0, 100}, {e0 + 10, n0 + 10, 100}, {e0, n0 + 10, 100}, {e0, n0, 100}}}, 2},
		{"clockwise square (faces down)", [][][3]float64{{{e0, n0, 100}, {e0, n0 + 10, 100}, {e0 + 10, n0 + 10, 100}, {e0 + 10, n0, 100}}}, 2},
		{"L shape", [][][3]float64{{{0, 0, 0}, {10, 0, 0}, {10, 4, 0}, {4, 4, 0}, {4, 10, 0}, {0, 10, 0}}}, 4},
		{"vertical wall", [][][3]float64{{{e0, n0, 100}, {e0 + 8, n0 + 6, 100}, {e0 + 8, n0 + 6, 110}, {e0, n0, 110}}}, 2},
		{"gable wall (pentagon)", [][][3]float64{{{0, 0, 0}, {0, 10, 0}, {0, 10, 5}, {0, 5, 8}, {0, 0, 5}}}, 3},
		{"sloped roof", [][][3]float64{{{e0, n0, 105}, {e0 + 10, n0, 105}, {e0 + 10, n0 + 5, 108}, {e0, n0 + 5, 108}}}, 2},
		{"square with hole", [][][3]float64{
			{{0, 0, 0}, {10, 0, 0}, {10, 10, 0}, {0, 10, 0}},
			{{3, 3, 0}, {3, 6, 0}, {6, 6, 0}, {6, 3, 0}}}, 8},
		{"collinear points", [][][3]float64{{{0, 0, 0}, {5, 0, 0}, {10, 0, 0}, {10, 10, 0}, {0, 10, 0}}}, 3},
		{"degenerate line", [][][3]float64{{{0, 0, 0}, {5, 0, 0}, {10, 0, 0}}}, 0},
		{"two points", [][][3]float64{{{0, 0, 0}, {5, 0, 0}}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flat, ends := rings(tc.rings...)
			tri, err := Triangulate(flat, ends, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(tri) / 3; got != tc.triangles {
				t.Errorf("%d triangles, want %d", got, tc.triangles)
			}
			want := polygonArea(flat, ends)
			got, ok := triArea(flat, tri, Newell(flat[:ends[0]]))
			if math.Abs(got-want) > 1e-6*math.Max(1, want) {
				t.Errorf("area %g, want %g", got, want)
			}
			if !ok {
				t.Error("a triangle faces against the exterior ring's normal")
			}
		})
	}
}

func TestTriangulateErrors(t *testing.T) {
	tests := []struct {
		name string
		flat []float64
		ends []int
	}{
		{"NaN", []float64{0, 0, 0, 1, 0, math.NaN(), 1, 1, 0}, []int{9}},
		{"Inf", []float64{0, 0, 0, 1, 0, math.Inf(1), 1, 1, 0}, []int{9}},
		{"end beyond flat", []float64{0, 0, 0}, []int{6}},
		{"end not a point", []float64{0, 0, 0, 1, 1, 1}, []int{4}},
		{"ends decreasing", []float64{0, 0, 0, 1, 1, 1, 2, 2, 2}, []int{6, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Triangulate(tc.flat, tc.ends, nil); err == nil {
				t.Error("no error")
			}
		})
	}
}

// randomPolygon returns a star-shaped (hence simple) polygon of n points
// around the origin, tilted into a random plane, with an optional hole
// inside its inner radius.
func randomPolygon(rng *rand.Rand, n int, hole bool) ([]float64, []int) {
	rMin := 5.0
	if hole {
		n = max(n, 8) // gaps under 90 degrees keep every edge 3.8 m from the hole
	}
	var outer, in [][3]float64
	for i := range n {
		a := 2 * math.Pi * (float64(i) + 0.8*rng.Float64()) / float64(n)
		r := rMin + rng.Float64()*20
		outer = append(outer, [3]float64{r * math.Cos(a), r * math.Sin(a), 0})
	}
	if hole {
		k := 3 + rng.IntN(5)
		for i := range k { // clockwise
			a := -2 * math.Pi * float64(i) / float64(k)
			in = append(in, [3]float64{2 * math.Cos(a), 2 * math.Sin(a), 0})
		}
	}
	tilt, turn := rng.Float64()*math.Pi, rng.Float64()*2*math.Pi
	st, ct := math.Sincos(tilt)
	sz, cz := math.Sincos(turn)
	place := func(r [][3]float64) {
		for i, p := range r {
			y, z := p[1]*ct-p[2]*st, p[1]*st+p[2]*ct
			x, y2 := p[0]*cz-y*sz, p[0]*sz+y*cz
			r[i] = [3]float64{477000 + x, 5553000 + y2, 120 + z}
		}
	}
	place(outer)
	if hole {
		place(in)
		return rings(outer, in)
	}
	return rings(outer)
}

func TestTriangulateRandomArea(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		flat, ends := randomPolygon(rng, 3+rng.IntN(40), i%2 == 1)
		tri, err := Triangulate(flat, ends, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := polygonArea(flat, ends)
		got, ok := triArea(flat, tri, Newell(flat[:ends[0]]))
		if math.Abs(got-want) > 1e-6*want || !ok {
			t.Fatalf("polygon %d: area %g, want %g, facing ok %v", i, got, want, ok)
		}
	}
}

// FuzzTriangulate feeds arbitrary coordinates (never panics, indices in
// range) and random star polygons from a seed (area preserved).
func FuzzTriangulate(f *testing.F) {
	f.Add([]byte{}, uint64(1), uint8(5))
	f.Add(make([]byte, 8*3*5), uint64(7), uint8(40))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64, n uint8) {
		var flat []float64
		for i := 0; i+8 <= len(raw) && len(flat) < 3*200; i += 8 {
			flat = append(flat, float64(int64(binary.LittleEndian.Uint64(raw[i:]))%1000)/7)
		}
		flat = flat[:len(flat)/3*3]
		ends := []int{len(flat) / 3 / 2 * 3, len(flat)}
		if seed%2 == 0 {
			ends = []int{len(flat)}
		}
		tri, err := Triangulate(flat, ends, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range tri {
			if int(i) >= len(flat)/3 {
				t.Fatalf("index %d of %d points", i, len(flat)/3)
			}
		}
		rng := rand.New(rand.NewPCG(seed, 3))
		pf, pe := randomPolygon(rng, 3+int(n%60), seed%3 == 0)
		tri, err = Triangulate(pf, pe, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := polygonArea(pf, pe)
		if got, _ := triArea(pf, tri, Newell(pf[:pe[0]])); math.Abs(got-want) > 1e-6*want {
			t.Fatalf("area %g, want %g", got, want)
		}
	})
}

func BenchmarkTriangulate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	type poly struct {
		flat []float64
		ends []int
	}
	var ps []poly
	for i := range 1000 {
		f, e := randomPolygon(rng, 4+i%12, i%10 == 0)
		ps = append(ps, poly{f, e})
	}
	var dst []uint32
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range ps {
			dst, _ = Triangulate(p.flat, p.ends, dst[:0])
		}
	}
	b.ReportMetric(float64(b.N*len(ps))/b.Elapsed().Seconds(), "polygons/s")
}
