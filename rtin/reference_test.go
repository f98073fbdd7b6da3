package rtin

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// referenceErrors is ComputeErrors as first written (every level of the
// hierarchy held in memory, every point of a triangle's bounding box
// tested by its barycentric coordinates): the fast version must give the
// same errors bit for bit, so meshes, tiles and packs stay byte-identical.
func referenceErrors(g Grid) []float32 {
	n := g.Size
	e := make([]float32, n*n)
	r := roots(n)
	levels := [][]triangle{r[:]}
	for {
		next := make([]triangle, 0, 2*len(levels[len(levels)-1]))
		for _, tr := range levels[len(levels)-1] {
			m, ok := mid(tr.a, tr.b)
			if !ok {
				continue
			}
			c1, c2 := tr.children(m)
			next = append(next, c1, c2)
		}
		if len(next) == 0 {
			break
		}
		levels = append(levels, next)
	}
	for l := len(levels) - 1; l >= 0; l-- {
		for _, tr := range levels[l] {
			m, ok := mid(tr.a, tr.b)
			if !ok {
				continue
			}
			me := float32(referenceDeviation(g, tr))
			i := m.at(n)
			e[i] = max(e[i], me)
			c1, c2 := tr.children(m)
			for _, c := range []triangle{c1, c2} {
				if cm, ok := mid(c.a, c.b); ok {
					e[i] = max(e[i], e[cm.at(n)])
				}
			}
		}
	}
	return e
}

func referenceDeviation(g Grid, tr triangle) float64 {
	n := g.Size
	ha, hb, hc := float64(g.Heights[tr.a.at(n)]), float64(g.Heights[tr.b.at(n)]), float64(g.Heights[tr.c.at(n)])
	ax, ay, bx, by, cx, cy := int(tr.a.x), int(tr.a.y), int(tr.b.x), int(tr.b.y), int(tr.c.x), int(tr.c.y)
	det := float64((by-cy)*(ax-cx) + (cx-bx)*(ay-cy))
	worst := 0.0
	for y := min(ay, by, cy); y <= max(ay, by, cy); y++ {
		row := g.Heights[y*n:]
		for x := min(ax, bx, cx); x <= max(ax, bx, cx); x++ {
			l1 := float64((by-cy)*(x-cx)+(cx-bx)*(y-cy)) / det
			l2 := float64((cy-ay)*(x-cx)+(ax-cx)*(y-cy)) / det
			l3 := 1 - l1 - l2
			if l1 < -1e-12 || l2 < -1e-12 || l3 < -1e-12 {
				continue
			}
			worst = math.Max(worst, math.Abs(l1*ha+l2*hb+l3*hc-float64(row[x])))
		}
	}
	return worst
}

// referenceMesh is Errors.Mesh as first written (vertices numbered through
// a map in the order the recursion meets them).
func referenceMesh(e *Errors, maxError float64) Mesh {
	var m Mesh
	index := make(map[point]uint32)
	vertex := func(p point) uint32 {
		if i, ok := index[p]; ok {
			return i
		}
		i := uint32(len(m.Vertices))
		index[p] = i
		m.Vertices = append(m.Vertices, [2]int{int(p.x), int(p.y)})
		return i
	}
	var split func(tr triangle)
	split = func(tr triangle) {
		if mp, ok := mid(tr.a, tr.b); ok && float64(e.err[mp.at(e.size)]) > maxError {
			c1, c2 := tr.children(mp)
			split(c1)
			split(c2)
			return
		}
		a, b := tr.a, tr.b
		if (int(b.x)-int(a.x))*(int(tr.c.y)-int(a.y))-(int(b.y)-int(a.y))*(int(tr.c.x)-int(a.x)) < 0 {
			a, b = b, a
		}
		m.Triangles = append(m.Triangles, vertex(a), vertex(b), vertex(tr.c))
	}
	for _, r := range roots(e.size) {
		split(r)
	}
	return m
}

// canopy is a plantcover-like surface: ground relief with crowns of
// random height and radius standing on it and bare patches between them,
// quantized to centimetres like a CDSM (many equal heights and exact
// planes, where rounding decides ties).
func canopy(n int, seed uint64) Grid {
	rng := rand.New(rand.NewPCG(seed, 7))
	g := terrain(n, seed)
	for range n * n / 40 {
		cx, cy, r, h := rng.Float64()*float64(n), rng.Float64()*float64(n), 1+rng.Float64()*5, 2+rng.Float64()*30
		for y := max(0, int(cy-r)); y < min(n, int(cy+r)+1); y++ {
			for x := max(0, int(cx-r)); x < min(n, int(cx+r)+1); x++ {
				if d := math.Hypot(float64(x)-cx, float64(y)-cy); d < r {
					g.Heights[y*n+x] += float32(math.Round(100*h*(1-0.3*d*d/(r*r))) / 100)
				}
			}
		}
	}
	return g
}

// TestComputeErrorsMatchesReference: the errors and the meshes at several
// tolerances (Mesh and MeshFor) equal the first implementation's bit for bit, on relief,
// canopy, flat and stepped grids of every size class.
func TestComputeErrorsMatchesReference(t *testing.T) {
	t.Parallel()
	step := func(n int) Grid {
		g := Grid{Size: n, Heights: make([]float32, n*n)}
		for i := range g.Heights {
			g.Heights[i] = float32((i%n)/7) * 0.5
		}
		return g
	}
	cases := []struct {
		name string
		g    Grid
	}{
		{"smallest", terrain(3, 1)}, {"relief5", terrain(5, 2)}, {"relief65", terrain(65, 3)},
		{"canopy129", canopy(129, 4)}, {"canopy257", canopy(257, 5)}, {"relief257", terrain(257, 6)},
		{"flat33", Grid{Size: 33, Heights: make([]float32, 33*33)}}, {"steps129", step(129)},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			name string
			g    Grid
		}{"canopy513", canopy(513, 8)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, err := ComputeErrors(c.g)
			if err != nil {
				t.Fatal(err)
			}
			want := referenceErrors(c.g)
			for i := range want {
				if math.Float32bits(e.err[i]) != math.Float32bits(want[i]) {
					t.Fatalf("error of vertex (%d, %d) = %v, reference %v", i%c.g.Size, i/c.g.Size, e.err[i], want[i])
				}
			}
			for _, tol := range []float64{-1, 0, 0.1, 0.5, 2, 1000} {
				ref := referenceMesh(&Errors{size: c.g.Size, err: want}, tol)
				fast, err := MeshFor(c.g, tol)
				if err != nil {
					t.Fatal(err)
				}
				for name, got := range map[string]Mesh{"Mesh": e.Mesh(tol), "MeshFor": fast} {
					if !slices.Equal(got.Triangles, ref.Triangles) || !slices.Equal(got.Vertices, ref.Vertices) {
						t.Fatalf("tolerance %g: %s gives %d triangles, %d vertices, unlike the reference's %d, %d",
							tol, name, len(got.Triangles)/3, len(got.Vertices), len(ref.Triangles)/3, len(ref.Vertices))
					}
				}
			}
		})
	}
}

// BenchmarkMesh1025 meshes a 1 km canopy tile of 1 m pixels at 0.5 m, as
// the plantcover does: the first implementation (reference), ComputeErrors
// then Mesh, and MeshFor.
func BenchmarkMesh1025(b *testing.B) {
	g := canopy(1025, 1)
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		cpu := testtool.CPUTime()
		for b.Loop() {
			_ = referenceMesh(&Errors{size: g.Size, err: referenceErrors(g)}, 0.5)
		}
		b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("ComputeErrors+Mesh", func(b *testing.B) {
		b.ReportAllocs()
		cpu := testtool.CPUTime()
		for b.Loop() {
			e, err := ComputeErrors(g)
			if err != nil {
				b.Fatal(err)
			}
			_ = e.Mesh(0.5)
		}
		b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("MeshFor", func(b *testing.B) {
		b.ReportAllocs()
		cpu := testtool.CPUTime()
		for b.Loop() {
			if _, err := MeshFor(g, 0.5); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
}
