package cql2

import (
	"math"
	"sort"

	"github.com/twpayne/go-geom"
)

// The spatial predicates are planar (x, y; z ignored) and follow the DE-9IM
// definitions of OGC 06-103r4 (Simple Features) for valid geometries. The
// intersection matrix is estimated from sample points rather than computed
// from a full topology graph: every vertex, every intersection of the two
// geometries' segments (the "nodes"), the midpoint of every piece between
// nodes, and beside each boundary piece of a polygon a point just inside and
// one just outside it.
// Each sample is located in both geometries (interior, boundary, exterior).
// Points closer than tol to a segment count as on it; tol is 1e-12 of the
// coordinates' magnitude (6 micrometres at UTM northings), and the inside
// points sit max(1e-7 of the piece, 100 tol) away from it, so two parts of
// the geometries closer than that are not told apart.

type pt struct{ x, y float64 }

// shape is a geometry broken into its points, lines and polygons (rings).
type shape struct {
	points                 []pt
	lines                  [][]pt
	polys                  [][][]pt
	dim                    int
	minX, minY, maxX, maxY float64
}

const (
	locE = 0 // exterior
	locB = 1 // boundary
	locI = 2 // interior
)

func newShape(g geom.T) *shape {
	s := &shape{dim: -1, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	s.add(g)
	return s
}

func bboxShape(b []float64) *shape {
	w, so, e, n := b[0], b[1], b[2], b[3]
	if len(b) == 6 {
		w, so, e, n = b[0], b[1], b[3], b[4]
	}
	ring := []float64{w, so, e, so, e, n, w, n, w, so}
	return newShape(geom.NewPolygonFlat(geom.XY, ring, []int{len(ring)}))
}

func coordsOf(flat []float64, stride int) []pt {
	out := make([]pt, 0, len(flat)/stride)
	for i := 0; i+1 < len(flat); i += stride {
		out = append(out, pt{flat[i], flat[i+1]})
	}
	return out
}

func (s *shape) grow(ps []pt, dim int) {
	for _, p := range ps {
		s.minX, s.minY = math.Min(s.minX, p.x), math.Min(s.minY, p.y)
		s.maxX, s.maxY = math.Max(s.maxX, p.x), math.Max(s.maxY, p.y)
	}
	s.dim = max(s.dim, dim)
}

func (s *shape) add(g geom.T) {
	switch g := g.(type) {
	case *geom.Point:
		ps := coordsOf(g.FlatCoords(), g.Stride())
		s.points = append(s.points, ps...)
		s.grow(ps, 0)
	case *geom.MultiPoint:
		ps := coordsOf(g.FlatCoords(), g.Stride())
		s.points = append(s.points, ps...)
		s.grow(ps, 0)
	case *geom.LineString:
		ps := coordsOf(g.FlatCoords(), g.Stride())
		s.lines = append(s.lines, ps)
		s.grow(ps, 1)
	case *geom.MultiLineString:
		for i := 0; i < g.NumLineStrings(); i++ {
			s.add(g.LineString(i))
		}
	case *geom.Polygon:
		var rings [][]pt
		for i := 0; i < g.NumLinearRings(); i++ {
			r := g.LinearRing(i)
			ps := coordsOf(r.FlatCoords(), r.Stride())
			rings = append(rings, ps)
			s.grow(ps, 2)
		}
		if len(rings) > 0 {
			s.polys = append(s.polys, rings)
		}
	case *geom.MultiPolygon:
		for i := 0; i < g.NumPolygons(); i++ {
			s.add(g.Polygon(i))
		}
	case *geom.GeometryCollection:
		for _, p := range g.Geoms() {
			s.add(p)
		}
	}
}

// segments calls f for every segment of the shape's lines and rings.
func (s *shape) segments(f func(a, b pt)) {
	for _, l := range s.lines {
		for i := 1; i < len(l); i++ {
			f(l[i-1], l[i])
		}
	}
	for _, poly := range s.polys {
		for _, r := range poly {
			for i := 1; i < len(r); i++ {
				f(r[i-1], r[i])
			}
		}
	}
}

func cross(a, b, c pt) float64 { return (b.x-a.x)*(c.y-a.y) - (b.y-a.y)*(c.x-a.x) }

// onSegment reports whether p is within tol of the segment ab.
func onSegment(p, a, b pt, tol float64) bool {
	if p.x < math.Min(a.x, b.x)-tol || p.x > math.Max(a.x, b.x)+tol ||
		p.y < math.Min(a.y, b.y)-tol || p.y > math.Max(a.y, b.y)+tol {
		return false
	}
	dx, dy := b.x-a.x, b.y-a.y
	l2 := dx*dx + dy*dy
	if l2 == 0 {
		return math.Hypot(p.x-a.x, p.y-a.y) <= tol
	}
	t := math.Max(0, math.Min(1, ((p.x-a.x)*dx+(p.y-a.y)*dy)/l2))
	return math.Hypot(p.x-(a.x+t*dx), p.y-(a.y+t*dy)) <= tol
}

// locate returns where p lies in the shape: polygons first, then lines, then points.
func (s *shape) locate(p pt, tol float64) int {
	if p.x < s.minX-tol || p.x > s.maxX+tol || p.y < s.minY-tol || p.y > s.maxY+tol {
		return locE
	}
	loc := locE
	for _, poly := range s.polys {
		switch locatePolygon(p, poly, tol) {
		case locI:
			return locI
		case locB:
			loc = locB
		}
	}
	if loc != locE {
		return loc
	}
	ends := 0
	onLine := false
	for _, l := range s.lines {
		closed := len(l) > 1 && l[0] == l[len(l)-1]
		for i := 1; i < len(l); i++ {
			if onSegment(p, l[i-1], l[i], tol) {
				onLine = true
			}
		}
		if !closed && len(l) > 1 {
			for _, e := range []pt{l[0], l[len(l)-1]} {
				if math.Hypot(p.x-e.x, p.y-e.y) <= tol {
					ends++
				}
			}
		}
	}
	if onLine {
		if ends%2 == 1 { // the mod-2 rule of OGC 06-103r4 6.1.6.2
			return locB
		}
		return locI
	}
	for _, q := range s.points {
		if math.Hypot(p.x-q.x, p.y-q.y) <= tol {
			return locI
		}
	}
	return locE
}

func locatePolygon(p pt, rings [][]pt, tol float64) int {
	inside := false
	for ri, r := range rings {
		in := false
		for i := 1; i < len(r); i++ {
			a, b := r[i-1], r[i]
			if onSegment(p, a, b, tol) {
				return locB
			}
			if (a.y > p.y) != (b.y > p.y) && p.x < (b.x-a.x)*(p.y-a.y)/(b.y-a.y)+a.x {
				in = !in
			}
		}
		if ri == 0 {
			inside = in
		} else if in {
			return locE // in a hole
		}
	}
	if inside {
		return locI
	}
	return locE
}

// matrix is the estimated DE-9IM matrix of (A, B): cell[locA][locB], and the
// dimension of the interiors' intersection.
type matrix struct {
	cell   [3][3]bool
	iiDim  int
	dA, dB int
}

func relate(a, b *shape) matrix {
	m := matrix{iiDim: -1, dA: a.dim, dB: b.dim}
	tol := tolerance(a, b)
	samples(a, b, tol, func(p pt, la, dim int) {
		lb := b.locate(p, tol)
		m.mark(la, lb, dim)
	})
	samples(b, a, tol, func(p pt, lb, dim int) {
		la := a.locate(p, tol)
		m.mark(la, lb, dim)
	})
	return m
}

func (m *matrix) mark(la, lb, dim int) {
	m.cell[la][lb] = true
	if la == locI && lb == locI {
		m.iiDim = max(m.iiDim, min(dim, m.dA, m.dB))
	}
}

// samples calls emit with the sample points of a (against b), their
// location in a and the dimension of the part of a they stand for.
func samples(a, b *shape, tol float64, emit func(p pt, loc, dim int)) {
	for _, p := range a.points {
		emit(p, locI, 0)
	}
	// interiorLeft tells, for the ring being sampled, on which side of its
	// pieces the polygon's interior lies (valid polygons: left of a
	// counter-clockwise shell, right of a counter-clockwise hole).
	interiorLeft := false
	piece := func(p, q pt, boundary bool) {
		ts := []float64{0, 1}
		b.segments(func(c, d pt) { ts = append(ts, nodes(p, q, c, d, tol)...) })
		for _, x := range b.points {
			if onSegment(x, p, q, tol) {
				ts = append(ts, param(p, q, x))
			}
		}
		sort.Float64s(ts)
		for i, t := range ts {
			n := lerp(p, q, t)
			if boundary {
				emit(n, locB, 0)
			} else {
				emit(n, a.locate(n, tol), 0)
			}
			if i == 0 || t-ts[i-1] <= 0 {
				continue
			}
			s, e := lerp(p, q, ts[i-1]), n
			mid := pt{(s.x + e.x) / 2, (s.y + e.y) / 2}
			if boundary {
				emit(mid, locB, 1)
				off := math.Max(math.Hypot(e.x-s.x, e.y-s.y)*1e-7, 100*tol)
				l := math.Hypot(q.x-p.x, q.y-p.y)
				nx, ny := -(q.y-p.y)/l*off, (q.x-p.x)/l*off
				// both sides: the inside one stands for the interior, the
				// outside one for the exterior (a hole of a inside b's interior)
				left, right := locI, locE
				if !interiorLeft {
					left, right = locE, locI
				}
				emit(pt{mid.x + nx, mid.y + ny}, left, 2)
				emit(pt{mid.x - nx, mid.y - ny}, right, 2)
			} else {
				emit(mid, a.locate(mid, tol), 1)
			}
		}
	}
	for _, l := range a.lines {
		for i := 1; i < len(l); i++ {
			if l[i-1] != l[i] {
				piece(l[i-1], l[i], false)
			}
		}
	}
	for _, poly := range a.polys {
		for ri, r := range poly {
			interiorLeft = (ri == 0) == (signedArea(r) > 0)
			for i := 1; i < len(r); i++ {
				if r[i-1] != r[i] {
					piece(r[i-1], r[i], true)
				}
			}
		}
	}
}

// signedArea is positive for a counter-clockwise ring.
func signedArea(r []pt) float64 {
	a := 0.0
	for i := 1; i < len(r); i++ {
		a += r[i-1].x*r[i].y - r[i].x*r[i-1].y
	}
	return a / 2
}

func lerp(p, q pt, t float64) pt {
	switch t {
	case 0:
		return p
	case 1:
		return q
	}
	return pt{p.x + (q.x-p.x)*t, p.y + (q.y-p.y)*t}
}

func param(p, q, x pt) float64 {
	dx, dy := q.x-p.x, q.y-p.y
	t := ((x.x-p.x)*dx + (x.y-p.y)*dy) / (dx*dx + dy*dy)
	return math.Max(0, math.Min(1, t))
}

// nodes returns the parameters along pq where the segment cd meets it: the
// crossing point, or for overlapping collinear segments the ends of the overlap.
func nodes(p, q, c, d pt, tol float64) []float64 {
	if math.Max(p.x, q.x)+tol < math.Min(c.x, d.x) || math.Max(c.x, d.x)+tol < math.Min(p.x, q.x) ||
		math.Max(p.y, q.y)+tol < math.Min(c.y, d.y) || math.Max(c.y, d.y)+tol < math.Min(p.y, q.y) {
		return nil
	}
	var ts []float64
	for _, x := range []pt{c, d} {
		if onSegment(x, p, q, tol) {
			ts = append(ts, param(p, q, x))
		}
	}
	for _, x := range []pt{p, q} {
		if onSegment(x, c, d, tol) {
			ts = append(ts, param(p, q, x))
		}
	}
	d1, d2 := cross(c, d, p), cross(c, d, q)
	d3, d4 := cross(p, q, c), cross(p, q, d)
	if (d1 > 0) != (d2 > 0) && d1 != 0 && d2 != 0 && (d3 > 0) != (d4 > 0) && d3 != 0 && d4 != 0 {
		ts = append(ts, d1/(d1-d2))
	}
	return ts
}

// Spatial evaluates the spatial predicate op (s_intersects, s_within, ...)
// on two planar geometries a and b.
func spatial(name string, a, b *shape) bool {
	if a.dim < 0 || b.dim < 0 {
		return name == "s_disjoint"
	}
	if a.maxX < b.minX || b.maxX < a.minX || a.maxY < b.minY || b.maxY < a.minY {
		return name == "s_disjoint" // the envelopes are apart
	}
	if name == "s_intersects" || name == "s_disjoint" {
		return intersects(a, b) == (name == "s_intersects")
	}
	m := relate(a, b)
	c := m.cell
	inter := c[locI][locI] || c[locI][locB] || c[locB][locI] || c[locB][locB]
	switch name {
	case "s_intersects":
		return inter
	case "s_disjoint":
		return !inter
	case "s_within":
		return c[locI][locI] && !c[locI][locE] && !c[locB][locE]
	case "s_contains":
		return c[locI][locI] && !c[locE][locI] && !c[locE][locB]
	case "s_equals":
		return c[locI][locI] && !c[locI][locE] && !c[locB][locE] && !c[locE][locI] && !c[locE][locB]
	case "s_touches":
		return !c[locI][locI] && inter && !(m.dA == 0 && m.dB == 0)
	case "s_overlaps":
		return m.dA == m.dB && c[locI][locI] && c[locI][locE] && c[locE][locI] && (m.dA != 1 || m.iiDim == 1)
	case "s_crosses":
		switch {
		case m.dA < m.dB:
			return c[locI][locI] && c[locI][locE]
		case m.dA > m.dB:
			return c[locI][locI] && c[locE][locI]
		case m.dA == 1:
			return m.iiDim == 0
		}
	}
	return false
}

// intersects is the fast path of S_INTERSECTS and S_DISJOINT: two shapes
// meet when two of their segments meet, or else when one holds a
// representative point of a part of the other (a part that crosses no
// segment lies wholly inside or outside).
func intersects(a, b *shape) bool {
	tol := tolerance(a, b)
	hit := false
	a.segments(func(p, q pt) {
		if hit {
			return
		}
		b.segments(func(c, d pt) {
			if !hit && len(nodes(p, q, c, d, tol)) > 0 {
				hit = true
			}
		})
	})
	if hit {
		return true
	}
	for _, pair := range [2][2]*shape{{a, b}, {b, a}} {
		for _, p := range pair[0].representatives() {
			if pair[1].locate(p, tol) != locE {
				return true
			}
		}
	}
	return false
}

// representatives returns every point and one vertex of every line and ring.
func (s *shape) representatives() []pt {
	out := append([]pt(nil), s.points...)
	for _, l := range s.lines {
		out = append(out, l[0])
	}
	for _, poly := range s.polys {
		for _, r := range poly {
			out = append(out, r[0])
		}
	}
	return out
}

// tolerance is the distance under which a point counts as on a segment.
func tolerance(a, b *shape) float64 {
	scale := 1.0
	for _, v := range []float64{a.minX, a.minY, a.maxX, a.maxY, b.minX, b.minY, b.maxX, b.maxY} {
		if !math.IsInf(v, 0) {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	return scale * 1e-12
}
