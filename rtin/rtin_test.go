package rtin

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// terrain is a rough synthetic relief: smooth hills plus noise.
func terrain(n int, seed uint64) Grid {
	rng := rand.New(rand.NewPCG(seed, 3))
	g := Grid{Size: n, Heights: make([]float32, n*n)}
	for y := range n {
		for x := range n {
			fx, fy := float64(x), float64(y)
			g.Heights[y*n+x] = float32(100 + 20*math.Sin(fx/17)*math.Cos(fy/23) + 5*math.Sin((fx+fy)/5) + rng.Float64())
		}
	}
	return g
}

// meshHeight interpolates the mesh at every grid point: each triangle's
// plane is evaluated at the grid points it covers (barycentric).
func meshHeights(t *testing.T, g Grid, m Mesh) []float64 {
	t.Helper()
	n := g.Size
	out := make([]float64, n*n)
	for i := range out {
		out[i] = math.NaN()
	}
	h := func(v [2]int) float64 { return float64(g.Heights[v[1]*n+v[0]]) }
	for i := 0; i < len(m.Triangles); i += 3 {
		a, b, c := m.Vertices[m.Triangles[i]], m.Vertices[m.Triangles[i+1]], m.Vertices[m.Triangles[i+2]]
		minX, maxX := min(a[0], b[0], c[0]), max(a[0], b[0], c[0])
		minY, maxY := min(a[1], b[1], c[1]), max(a[1], b[1], c[1])
		det := float64((b[1]-c[1])*(a[0]-c[0]) + (c[0]-b[0])*(a[1]-c[1]))
		if det == 0 {
			t.Fatalf("degenerate triangle %v %v %v", a, b, c)
		}
		for y := minY; y <= maxY; y++ {
			for x := minX; x <= maxX; x++ {
				l1 := float64((b[1]-c[1])*(x-c[0])+(c[0]-b[0])*(y-c[1])) / det
				l2 := float64((c[1]-a[1])*(x-c[0])+(a[0]-c[0])*(y-c[1])) / det
				l3 := 1 - l1 - l2
				if l1 < -1e-9 || l2 < -1e-9 || l3 < -1e-9 {
					continue
				}
				out[y*n+x] = l1*h(a) + l2*h(b) + l3*h(c)
			}
		}
	}
	return out
}

func TestMeshErrorWithinTolerance(t *testing.T) {
	t.Parallel()
	g := terrain(129, 1)
	e, err := ComputeErrors(g)
	if err != nil {
		t.Fatal(err)
	}
	prev := math.MaxInt
	for _, tol := range []float64{0, 0.1, 0.5, 2, 10, 1000} {
		m := e.Mesh(tol)
		hs := meshHeights(t, g, m)
		worst := 0.0
		for i, v := range hs {
			if math.IsNaN(v) {
				t.Fatalf("tol %g: grid point %d not covered", tol, i)
			}
			worst = math.Max(worst, math.Abs(v-float64(g.Heights[i])))
		}
		if worst > tol+1e-4 {
			t.Errorf("tol %g: max error %g", tol, worst)
		}
		if n := len(m.Triangles) / 3; n > prev {
			t.Errorf("tol %g: %d triangles, more than a finer tolerance's %d", tol, n, prev)
		} else {
			prev = n
		}
		t.Logf("tolerance %5g m: %6d triangles, %6d vertices, max error %.4f", tol, len(m.Triangles)/3, len(m.Vertices), worst)
	}
}

// TestMeshIsWatertight checks that every interior edge is shared by exactly
// two triangles (no T-junctions, hence no cracks) and the triangles tile the
// square exactly (area sum).
func TestMeshIsWatertight(t *testing.T) {
	t.Parallel()
	g := terrain(65, 2)
	e, _ := ComputeErrors(g)
	m := e.Mesh(0.8)
	edges := map[[2]uint32]int{}
	area := 0.0
	for i := 0; i < len(m.Triangles); i += 3 {
		tri := m.Triangles[i : i+3]
		for k := range 3 {
			a, b := tri[k], tri[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			edges[[2]uint32{a, b}]++
		}
		p, q, r := m.Vertices[tri[0]], m.Vertices[tri[1]], m.Vertices[tri[2]]
		cross := (q[0]-p[0])*(r[1]-p[1]) - (r[0]-p[0])*(q[1]-p[1])
		if cross <= 0 {
			t.Fatalf("triangle %v %v %v is not counter-clockwise in grid coordinates", p, q, r)
		}
		area += float64(cross) / 2
	}
	n := g.Size - 1
	if area != float64(n*n) {
		t.Errorf("triangles cover %g, square is %d", area, n*n)
	}
	for e, c := range edges {
		a, b := m.Vertices[e[0]], m.Vertices[e[1]]
		border := (a[0] == b[0] && (a[0] == 0 || a[0] == n)) || (a[1] == b[1] && (a[1] == 0 || a[1] == n))
		if (border && c != 1) || (!border && c != 2) {
			t.Fatalf("edge %v-%v used %d times (border %v)", a, b, c, border)
		}
	}
}

func TestFlatGridIsTwoTriangles(t *testing.T) {
	t.Parallel()
	g := Grid{Size: 33, Heights: make([]float32, 33*33)}
	e, _ := ComputeErrors(g)
	if m := e.Mesh(0); len(m.Triangles) != 6 || len(m.Vertices) != 4 {
		t.Errorf("flat grid: %d triangles, %d vertices", len(m.Triangles)/3, len(m.Vertices))
	}
}

func TestComputeErrorsRejects(t *testing.T) {
	t.Parallel()
	for _, g := range []Grid{{Size: 4, Heights: make([]float32, 16)}, {Size: 5, Heights: make([]float32, 24)},
		{Size: 1, Heights: make([]float32, 1)}, {Size: 3, Heights: []float32{0, 0, 0, 0, float32(math.NaN()), 0, 0, 0, 0}}} {
		if _, err := ComputeErrors(g); !errors.Is(err, ErrGrid) {
			t.Errorf("size %d: %v", g.Size, err)
		}
	}
}

func BenchmarkRTIN513(b *testing.B) {
	g := terrain(513, 1)
	b.ReportAllocs()
	for b.Loop() {
		e, err := ComputeErrors(g)
		if err != nil {
			b.Fatal(err)
		}
		_ = e.Mesh(0.5)
	}
}
