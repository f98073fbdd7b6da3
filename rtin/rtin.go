// Package rtin builds right-triangulated irregular networks (RTIN) over a
// height grid: the terrain is split into right isosceles triangles,
// recursively halved along their hypotenuse wherever the surface deviates
// from the triangle by more than a tolerance. The result has no cracks
// (every split vertex is shared by both triangles of its diamond) and its
// error against the grid is at most the tolerance at every grid point.
//
// The method follows W. Evans, D. Kirkpatrick and G. Townsend,
// "Right-Triangulated Irregular Networks" (Algorithmica 30, 2001), in the
// per-vertex error form popularised by Mapbox's Martini.
package rtin

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// ErrGrid reports a grid whose size is not 2^k + 1 or whose values do not
// match it.
var ErrGrid = errors.New("rtin: invalid grid")

// Grid is a square height grid of Size x Size values in row-major order
// (row 0 first); Size must be 2^k + 1 with k >= 1.
type Grid struct {
	Size    int
	Heights []float32
}

// Errors holds, per grid vertex, the largest error a mesh makes if that
// vertex is left out; it is computed once per grid and answers any
// tolerance.
type Errors struct {
	size int
	err  []float32
}

// point is a grid vertex (x column, y row). int16 keeps the hierarchy of a
// 4097 grid (about 33M triangles over all levels) in bounded memory.
type point struct{ x, y int16 }

// MaxSize is the largest grid Size accepted.
const MaxSize = 4097

func mid(a, b point) (point, bool) {
	if (a.x+b.x)%2 != 0 || (a.y+b.y)%2 != 0 {
		return point{}, false
	}
	return point{(a.x + b.x) / 2, (a.y + b.y) / 2}, true
}

func (p point) at(n int) int { return int(p.y)*n + int(p.x) }

// triangle has its right angle at c and hypotenuse a-b.
type triangle struct{ a, b, c point }

func roots(n int) [2]triangle {
	t := int16(n - 1)
	return [2]triangle{
		{a: point{0, 0}, b: point{t, t}, c: point{0, t}},
		{a: point{t, t}, b: point{0, 0}, c: point{t, 0}},
	}
}

// children splits a triangle at the midpoint m of its hypotenuse.
func (tr triangle) children(m point) (triangle, triangle) {
	return triangle{a: tr.a, b: tr.c, c: m}, triangle{a: tr.c, b: tr.b, c: m}
}

// ComputeErrors measures the grid. A vertex's error is the largest
// deviation of any grid point from the plane of either triangle of its
// diamond (the two triangles whose hypotenuse it halves), raised to the
// errors of the vertices below it so that a vertex is only ever needed where
// its ancestors are split. Unlike Martini's midpoint-only measure, this
// bounds the error at every grid point, not only at the vertices. The
// hierarchy is processed level by level from the finest up, so both
// triangles of a diamond are in before a coarser triangle reads the vertex.
// Each level is walked down from the roots rather than held in memory (a
// 1025 grid has two million triangles), and the result does not depend on
// the order within a level (a maximum).
func ComputeErrors(g Grid) (*Errors, error) {
	return computeErrors(g, math.Inf(1))
}

// MeshFor returns the mesh ComputeErrors(g).Mesh(maxError) returns, vertex
// for vertex, with less work: the mesh only asks whether a vertex's error
// exceeds maxError, so a triangle whose finer vertices already exceed it
// is not measured, and a measurement stops at the first grid point beyond
// it. On rough surfaces (canopy, buildings) that skips most of the
// hierarchy's coarse levels. Errors are ComputeErrors's.
func MeshFor(g Grid, maxError float64) (Mesh, error) {
	e, err := computeErrors(g, maxError)
	if err != nil {
		return Mesh{}, err
	}
	return e.Mesh(maxError), nil
}

// computeErrors is ComputeErrors with errors above limit left inexact: a
// vertex's error is exact where it is at most limit and above limit where
// the exact one is (float32 rounding included), which is all Mesh(limit)
// reads. An infinite limit gives the exact errors.
func computeErrors(g Grid, limit float64) (*Errors, error) {
	n := g.Size
	if n < 3 || n > MaxSize || (n-1)&(n-2) != 0 || len(g.Heights) != n*n {
		return nil, fmt.Errorf("%w: size %d with %d heights (want 2^k+1 squared)", ErrGrid, n, len(g.Heights))
	}
	for _, h := range g.Heights {
		if math.IsNaN(float64(h)) || math.IsInf(float64(h), 0) {
			return nil, fmt.Errorf("%w: non-finite height", ErrGrid)
		}
	}
	e := &Errors{size: n, err: make([]float32, n*n)}
	measure := func(tr triangle, m point) {
		i := m.at(n)
		c1, c2 := tr.children(m)
		for _, c := range [2]triangle{c1, c2} {
			if cm, ok := mid(c.a, c.b); ok {
				e.err[i] = max(e.err[i], e.err[cm.at(n)])
			}
		}
		if float64(e.err[i]) > limit {
			return // above the limit whatever tr's own deviation
		}
		e.err[i] = max(e.err[i], float32(deviation(g, tr, limit)))
	}
	// Levels 0 .. 2k-1 of a 2^k+1 grid have midpoints; level 2k's unit
	// triangles do not.
	for l := 2*bits.Len(uint(n-1)) - 3; l >= 0; l-- {
		for _, r := range roots(n) {
			eachAt(r, l, measure)
		}
	}
	return e, nil
}

// eachAt calls fn with every triangle l levels below tr (in the order the
// hierarchy splits them) and its hypotenuse midpoint; triangles without a
// midpoint are skipped.
func eachAt(tr triangle, l int, fn func(triangle, point)) {
	m, ok := mid(tr.a, tr.b)
	if !ok {
		return
	}
	if l == 0 {
		fn(tr, m)
		return
	}
	c1, c2 := tr.children(m)
	eachAt(c1, l-1, fn)
	eachAt(c2, l-1, fn)
}

// deviation is the largest |plane - height| over the grid points inside tr
// (edges included), or a value above limit once one point's deviation
// rounds to a float32 above it. The points inside are found per row with integer
// arithmetic (the barycentric numerators n1, n2, n3 all of det's sign);
// the plane is evaluated at each by its barycentric coordinates. The
// determinant of an RTIN triangle is a power of two (legs 2^j along the
// axes, or along the diagonals with a hypotenuse of 2^j), so the division
// by it is a multiplication by its exact inverse; the products with the
// float32 heights are exact too, which keeps the result the same with or
// without fused multiply-adds.
func deviation(g Grid, tr triangle, limit float64) float64 {
	n := g.Size
	ha, hb, hc := float64(g.Heights[tr.a.at(n)]), float64(g.Heights[tr.b.at(n)]), float64(g.Heights[tr.c.at(n)])
	ax, ay, bx, by, cx, cy := int(tr.a.x), int(tr.a.y), int(tr.b.x), int(tr.b.y), int(tr.c.x), int(tr.c.y)
	d := (by-cy)*(ax-cx) + (cx-bx)*(ay-cy)
	s := 1
	if d < 0 {
		s = -1
	}
	if ad := s * d; ad == 0 || ad&(ad-1) != 0 {
		return deviationDiv(g, tr) // not an RTIN triangle
	}
	inv := 1 / float64(d)
	// n1 = a1*x + b1*y + c1, n2 likewise, n3 = d - n1 - n2.
	a1, b1 := by-cy, cx-bx
	c1 := -a1*cx - b1*cy
	a2, b2 := cy-ay, ax-cx
	c2 := -a2*cx - b2*cy
	a3, b3, c3 := -a1-a2, -b1-b2, d-c1-c2
	minX, maxX := min(ax, bx, cx), max(ax, bx, cx)
	worst := 0.0
	for y := min(ay, by, cy); y <= max(ay, by, cy); y++ {
		lo, hi := minX, maxX
		lo, hi = clip(lo, hi, s*a1, s*(b1*y+c1))
		lo, hi = clip(lo, hi, s*a2, s*(b2*y+c2))
		lo, hi = clip(lo, hi, s*a3, s*(b3*y+c3))
		if lo > hi {
			continue
		}
		row := g.Heights[y*n+lo : y*n+hi+1]
		n1, n2 := a1*lo+b1*y+c1, a2*lo+b2*y+c2
		for _, h := range row {
			l1 := float64(n1) * inv
			l2 := float64(n2) * inv
			l3 := 1 - l1 - l2
			if v := math.Abs(l1*ha + l2*hb + l3*hc - float64(h)); v > worst {
				if worst = v; float64(float32(v)) > limit {
					return worst
				}
			}
			n1 += a1
			n2 += a2
		}
	}
	return worst
}

// deviationDiv is deviation for any triangle: every point of its bounding
// box tested by its barycentric coordinates.
func deviationDiv(g Grid, tr triangle) float64 {
	n := g.Size
	ha, hb, hc := float64(g.Heights[tr.a.at(n)]), float64(g.Heights[tr.b.at(n)]), float64(g.Heights[tr.c.at(n)])
	ax, ay, bx, by, cx, cy := int(tr.a.x), int(tr.a.y), int(tr.b.x), int(tr.b.y), int(tr.c.x), int(tr.c.y)
	det := float64((by-cy)*(ax-cx) + (cx-bx)*(ay-cy))
	if det == 0 {
		return 0
	}
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

// clip narrows [lo, hi] to the x with a*x + c >= 0.
func clip(lo, hi, a, c int) (int, int) {
	switch {
	case a > 0: // x >= -c/a
		lo = max(lo, -floorDiv(c, a))
	case a < 0: // x <= c/-a
		hi = min(hi, floorDiv(c, -a))
	case c < 0:
		return lo, lo - 1
	}
	return lo, hi
}

// floorDiv is floor(p/q) for q > 0.
func floorDiv(p, q int) int {
	r := p / q
	if p%q != 0 && p < 0 {
		r--
	}
	return r
}

// Mesh is a triangulation of grid vertices: Vertices holds x, y grid
// coordinates (column, row) of each used vertex, Triangles three vertex
// indexes per triangle, all counter-clockwise in (column, row) coordinates,
// that is clockwise seen from above when rows run southward; callers flip
// as their frame needs.
type Mesh struct {
	Vertices  [][2]int
	Triangles []uint32
}

// Mesh returns the coarsest RTIN whose error at every grid point is at
// most maxError (same unit as the heights). Its slices are allocated at
// their final size: a first pass counts the triangles T, and a
// triangulation of the square has 1 + (T + B)/2 vertices, B <= 4(size-1)
// of them on its border.
func (e *Errors) Mesh(maxError float64) Mesh {
	splits := func(tr triangle) (point, bool) {
		mp, ok := mid(tr.a, tr.b)
		return mp, ok && float64(e.err[mp.at(e.size)]) > maxError
	}
	var count func(tr triangle) int
	count = func(tr triangle) int {
		if mp, ok := splits(tr); ok {
			c1, c2 := tr.children(mp)
			return count(c1) + count(c2)
		}
		return 1
	}
	nt := 0
	for _, r := range roots(e.size) {
		nt += count(r)
	}
	m := Mesh{Vertices: make([][2]int, 0, 1+(nt+4*(e.size-1))/2), Triangles: make([]uint32, 0, 3*nt)}
	// index holds 1 + the vertex number of each grid point, 0 while unused.
	index := make([]uint32, e.size*e.size)
	vertex := func(p point) uint32 {
		k := p.at(e.size)
		if i := index[k]; i > 0 {
			return i - 1
		}
		i := uint32(len(m.Vertices))
		index[k] = i + 1
		m.Vertices = append(m.Vertices, [2]int{int(p.x), int(p.y)})
		return i
	}
	var split func(tr triangle)
	split = func(tr triangle) {
		if mp, ok := splits(tr); ok {
			c1, c2 := tr.children(mp)
			split(c1)
			split(c2)
			return
		}
		// The hierarchy alternates orientation between levels; emit every
		// triangle counter-clockwise in (column, row) coordinates.
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
