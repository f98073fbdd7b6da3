package glb

import (
	"fmt"
	"math"
)

// Triangulate appends to dst the triangles of one planar polygon with holes
// and returns the extended slice. flat holds x, y, z triples; ends are the
// end offsets into flat of the rings (exterior first, then holes), closed
// or not. The polygon is projected onto the coordinate plane most parallel
// to its best-fit plane (Newell normal of the exterior ring) and cut by ear
// clipping with hole bridging (the earcut algorithm), which copes with
// concave, self-touching and near-degenerate rings. Triangles index the
// points of flat (offset/3) and wind counter-clockwise seen from the side the
// exterior ring's normal points to. A polygon without area gives no
// triangles. Errors wrap ErrGeometry for non-finite coordinates or
// malformed ends.
func Triangulate(flat []float64, ends []int, dst []uint32) ([]uint32, error) {
	if len(ends) == 0 {
		return dst, nil
	}
	prev := 0
	for _, e := range ends {
		if e < prev || e > len(flat) || e%3 != 0 {
			return dst, fmt.Errorf("%w: ring end %d", ErrGeometry, e)
		}
		prev = e
	}
	for _, v := range flat[:prev] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return dst, fmt.Errorf("%w: non-finite coordinate", ErrGeometry)
		}
	}
	n := Newell(flat[:ends[0]])
	u, v, sign := planeAxes(n)
	t := earcut{}
	t.nodes = make([]node, 0, 3*prev/3+8)
	ox, oy := 0.0, 0.0
	if ends[0] >= 3 {
		ox, oy = flat[u], flat[v]
	}
	proj := func(i int) (float64, float64) { return flat[3*i+u] - ox, sign * (flat[3*i+v] - oy) }
	outer := t.linkedList(proj, 0, ends[0]/3, true)
	if outer == nil || outer.next == outer.prev {
		return dst, nil
	}
	if len(ends) > 1 {
		outer = t.eliminateHoles(proj, ends, outer)
		if outer == nil {
			return dst, nil
		}
	}
	t.out = dst
	t.budget = 64 * (prev/3 + 8) * (prev/3 + 8)
	t.earcutLinked(outer, 0)
	return t.out, nil
}

// Newell returns the (unnormalised) Newell normal of the ring in flat (x, y,
// z triples): its direction follows the right-hand rule over the ring's
// winding, its length is twice the area. It is zero for a degenerate ring.
func Newell(flat []float64) [3]float64 {
	var n [3]float64
	k := len(flat) / 3
	if k < 3 {
		return n
	}
	x0, y0, z0 := flat[0], flat[1], flat[2] // relative coordinates keep precision at UTM magnitudes
	for i := range k {
		j := (i + 1) % k
		ax, ay, az := flat[3*i]-x0, flat[3*i+1]-y0, flat[3*i+2]-z0
		bx, by, bz := flat[3*j]-x0, flat[3*j+1]-y0, flat[3*j+2]-z0
		n[0] += (ay - by) * (az + bz)
		n[1] += (az - bz) * (ax + bx)
		n[2] += (ax - bx) * (ay + by)
	}
	return n
}

// planeAxes picks the two coordinate axes of the projection plane for normal
// n and the sign that keeps the exterior ring counter-clockwise.
func planeAxes(n [3]float64) (u, v int, sign float64) {
	ax, ay, az := math.Abs(n[0]), math.Abs(n[1]), math.Abs(n[2])
	switch {
	case az >= ax && az >= ay: // drop z: (x, y)
		return 0, 1, sgn(n[2])
	case ax >= ay: // drop x: (y, z)
		return 1, 2, sgn(n[0])
	default: // drop y: (z, x)
		return 2, 0, sgn(n[1])
	}
}

func sgn(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

type node struct {
	i          int
	x, y       float64
	prev, next *node
	steiner    bool
}

// earcut holds the state of one triangulation: a node arena and the output.
type earcut struct {
	nodes  []node
	out    []uint32
	budget int // guards against non-termination on pathological input
}

func (t *earcut) newNode(i int, x, y float64) *node {
	if len(t.nodes) < cap(t.nodes) {
		t.nodes = append(t.nodes, node{i: i, x: x, y: y})
		return &t.nodes[len(t.nodes)-1]
	}
	return &node{i: i, x: x, y: y}
}

func (t *earcut) insertNode(i int, x, y float64, last *node) *node {
	p := t.newNode(i, x, y)
	if last == nil {
		p.prev, p.next = p, p
	} else {
		p.next = last.next
		p.prev = last
		last.next.prev = p
		last.next = p
	}
	return p
}

func removeNode(p *node) {
	p.next.prev = p.prev
	p.prev.next = p.next
}

// linkedList builds a circular list of points [start, end) in the wanted
// orientation (ccw true: counter-clockwise).
func (t *earcut) linkedList(proj func(int) (float64, float64), start, end int, ccw bool) *node {
	var last *node
	if ccw == (signedArea(proj, start, end) > 0) {
		for i := start; i < end; i++ {
			x, y := proj(i)
			last = t.insertNode(i, x, y, last)
		}
	} else {
		for i := end - 1; i >= start; i-- {
			x, y := proj(i)
			last = t.insertNode(i, x, y, last)
		}
	}
	if last != nil && equals(last, last.next) {
		removeNode(last)
		last = last.next
	}
	return last
}

// signedArea is twice the area of a ring, positive when counter-clockwise.
func signedArea(proj func(int) (float64, float64), start, end int) float64 {
	sum := 0.0
	for i, j := start, end-1; i < end; j, i = i, i+1 {
		xi, yi := proj(i)
		xj, yj := proj(j)
		sum += (xj - xi) * (yi + yj)
	}
	return sum
}

// area is twice the signed area of the triangle, negative when p, q, r turn
// left (counter-clockwise).
func area(p, q, r *node) float64 { return (q.y-p.y)*(r.x-q.x) - (q.x-p.x)*(r.y-q.y) }

func equals(a, b *node) bool { return a.x == b.x && a.y == b.y }

// filterPoints removes duplicate and collinear points between start and end.
func filterPoints(start, end *node) *node {
	if start == nil {
		return nil
	}
	if end == nil {
		end = start
	}
	p := start
	for {
		again := false
		if !p.steiner && (equals(p, p.next) || area(p.prev, p, p.next) == 0) {
			removeNode(p)
			p = p.prev
			end = p
			if p == p.next {
				break
			}
			again = true
		} else {
			p = p.next
		}
		if !again && p == end {
			break
		}
	}
	return end
}

func (t *earcut) emit(a, b, c *node) {
	t.out = append(t.out, uint32(a.i), uint32(b.i), uint32(c.i))
}

// earcutLinked clips ears; when stuck it filters points (pass 1), cures
// local self-intersections (pass 2) and finally splits the polygon.
func (t *earcut) earcutLinked(ear *node, pass int) {
	if ear == nil {
		return
	}
	stop := ear
	for ear.prev != ear.next {
		if t.budget--; t.budget < 0 {
			return
		}
		prev, next := ear.prev, ear.next
		if isEar(ear) {
			t.emit(prev, ear, next)
			removeNode(ear)
			ear = next.next
			stop = next.next
			continue
		}
		ear = next
		if ear == stop {
			switch pass {
			case 0:
				t.earcutLinked(filterPoints(ear, nil), 1)
			case 1:
				ear = t.cureLocalIntersections(filterPoints(ear, nil))
				t.earcutLinked(ear, 2)
			case 2:
				t.splitEarcut(ear)
			}
			return
		}
	}
}

func isEar(ear *node) bool {
	a, b, c := ear.prev, ear, ear.next
	if area(a, b, c) >= 0 {
		return false // reflex
	}
	x0, x1 := min(a.x, b.x, c.x), max(a.x, b.x, c.x)
	y0, y1 := min(a.y, b.y, c.y), max(a.y, b.y, c.y)
	for p := c.next; p != a; p = p.next {
		if p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1 &&
			!(p.x == a.x && p.y == a.y) && pointInTriangle(a.x, a.y, b.x, b.y, c.x, c.y, p.x, p.y) &&
			area(p.prev, p, p.next) >= 0 {
			return false
		}
	}
	return true
}

func (t *earcut) cureLocalIntersections(start *node) *node {
	p := start
	for {
		a, b := p.prev, p.next.next
		if !equals(a, b) && intersects(a, p, p.next, b) && locallyInside(a, b) && locallyInside(b, a) {
			t.emit(a, p, b)
			removeNode(p)
			removeNode(p.next)
			p, start = b, b
		}
		p = p.next
		if p == start {
			break
		}
	}
	return filterPoints(p, nil)
}

func (t *earcut) splitEarcut(start *node) {
	a := start
	for {
		for b := a.next.next; b != a.prev; b = b.next {
			if a.i != b.i && isValidDiagonal(a, b) {
				c := t.splitPolygon(a, b)
				a = filterPoints(a, a.next)
				c = filterPoints(c, c.next)
				t.earcutLinked(a, 0)
				t.earcutLinked(c, 0)
				return
			}
		}
		a = a.next
		if a == start {
			return
		}
	}
}
