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
func ComputeErrors(g Grid) (*Errors, error) {
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
			me := float32(deviation(g, tr))
			i := m.at(n)
			e.err[i] = max(e.err[i], me)
			c1, c2 := tr.children(m)
			for _, c := range []triangle{c1, c2} {
				if cm, ok := mid(c.a, c.b); ok {
					e.err[i] = max(e.err[i], e.err[cm.at(n)])
				}
			}
		}
	}
	return e, nil
}

// deviation is the largest |plane - height| over the grid points inside tr.
func deviation(g Grid, tr triangle) float64 {
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
// most maxError (same unit as the heights).
func (e *Errors) Mesh(maxError float64) Mesh {
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
