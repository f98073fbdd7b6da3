package glb

import (
	"math"
	"sort"
)

// eliminateHoles links every hole into the outer ring through a bridge
// (the earcut method: holes from left to right, each joined to the nearest
// visible outer vertex). The outer ring is the first ring of ends.
func (t *earcut) eliminateHoles(proj func(int) (float64, float64), ends []int, outer *node) *node {
	var queue []*node
	for k := 1; k < len(ends); k++ {
		start, end := ends[k-1]/3, ends[k]/3
		if end-start < 3 {
			continue
		}
		list := t.linkedList(proj, start, end, false)
		if list == nil {
			continue
		}
		if list == list.next {
			list.steiner = true
		}
		queue = append(queue, leftmost(list))
	}
	sort.SliceStable(queue, func(i, j int) bool {
		if queue[i].x != queue[j].x {
			return queue[i].x < queue[j].x
		}
		return queue[i].y < queue[j].y
	})
	for _, h := range queue {
		outer = t.eliminateHole(h, outer)
	}
	return outer
}

func (t *earcut) eliminateHole(hole, outer *node) *node {
	bridge := findHoleBridge(hole, outer)
	if bridge == nil {
		return outer
	}
	rev := t.splitPolygon(bridge, hole)
	filterPoints(rev, rev.next)
	return filterPoints(bridge, bridge.next)
}

// findHoleBridge finds an outer vertex visible from the hole's leftmost
// point (David Eberly, "Triangulation by Ear Clipping").
func findHoleBridge(hole, outer *node) *node {
	p := outer
	hx, hy := hole.x, hole.y
	qx := math.Inf(-1)
	var m *node
	for {
		if hy <= p.y && hy >= p.next.y && p.next.y != p.y {
			x := p.x + (hy-p.y)*(p.next.x-p.x)/(p.next.y-p.y)
			if x <= hx && x > qx {
				qx = x
				m = p
				if p.x >= p.next.x {
					m = p.next
				}
				if x == hx {
					return m
				}
			}
		}
		p = p.next
		if p == outer {
			break
		}
	}
	if m == nil {
		return nil
	}
	stop, mx, my := m, m.x, m.y
	tanMin := math.Inf(1)
	p = m
	for {
		ax, cx := qx, hx
		if hy < my {
			ax, cx = hx, qx
		}
		if hx >= p.x && p.x >= mx && hx != p.x && pointInTriangle(ax, hy, mx, my, cx, hy, p.x, p.y) {
			tan := math.Abs(hy-p.y) / (hx - p.x)
			if locallyInside(p, hole) && (tan < tanMin || (tan == tanMin && (p.x > m.x || (p.x == m.x && sectorContainsSector(m, p))))) {
				m, tanMin = p, tan
			}
		}
		p = p.next
		if p == stop {
			break
		}
	}
	return m
}

func sectorContainsSector(m, p *node) bool {
	return area(m.prev, m, p.prev) < 0 && area(p.next, m, m.next) < 0
}

func leftmost(start *node) *node {
	p, l := start, start
	for {
		if p.x < l.x || (p.x == l.x && p.y < l.y) {
			l = p
		}
		p = p.next
		if p == start {
			return l
		}
	}
}

func pointInTriangle(ax, ay, bx, by, cx, cy, px, py float64) bool {
	return (cx-px)*(ay-py) >= (ax-px)*(cy-py) &&
		(ax-px)*(by-py) >= (bx-px)*(ay-py) &&
		(bx-px)*(cy-py) >= (cx-px)*(by-py)
}

func isValidDiagonal(a, b *node) bool {
	return a.next.i != b.i && a.prev.i != b.i && !intersectsPolygon(a, b) &&
		(locallyInside(a, b) && locallyInside(b, a) && middleInside(a, b) &&
			(area(a.prev, a, b.prev) != 0 || area(a, b.prev, b) != 0) ||
			equals(a, b) && area(a.prev, a, a.next) > 0 && area(b.prev, b, b.next) > 0)
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func intersects(p1, q1, p2, q2 *node) bool {
	o1, o2 := sign(area(p1, q1, p2)), sign(area(p1, q1, q2))
	o3, o4 := sign(area(p2, q2, p1)), sign(area(p2, q2, q1))
	return o1 != o2 && o3 != o4 ||
		o1 == 0 && onSegment(p1, p2, q1) || o2 == 0 && onSegment(p1, q2, q1) ||
		o3 == 0 && onSegment(p2, p1, q2) || o4 == 0 && onSegment(p2, q1, q2)
}

func onSegment(p, q, r *node) bool {
	return q.x <= max(p.x, r.x) && q.x >= min(p.x, r.x) && q.y <= max(p.y, r.y) && q.y >= min(p.y, r.y)
}

func intersectsPolygon(a, b *node) bool {
	p := a
	for {
		if p.i != a.i && p.next.i != a.i && p.i != b.i && p.next.i != b.i && intersects(p, p.next, a, b) {
			return true
		}
		p = p.next
		if p == a {
			return false
		}
	}
}

func locallyInside(a, b *node) bool {
	if area(a.prev, a, a.next) < 0 {
		return area(a, b, a.next) >= 0 && area(a, a.prev, b) >= 0
	}
	return area(a, b, a.prev) < 0 || area(a, a.next, b) < 0
}

func middleInside(a, b *node) bool {
	p, inside := a, false
	px, py := (a.x+b.x)/2, (a.y+b.y)/2
	for {
		if (p.y > py) != (p.next.y > py) && p.next.y != p.y && px < (p.next.x-p.x)*(py-p.y)/(p.next.y-p.y)+p.x {
			inside = !inside
		}
		p = p.next
		if p == a {
			return inside
		}
	}
}

// splitPolygon links a and b with a bridge, splitting the ring in two (or
// joining a hole into the outer ring); it returns the copy of b.
func (t *earcut) splitPolygon(a, b *node) *node {
	a2, b2 := t.newNode(a.i, a.x, a.y), t.newNode(b.i, b.x, b.y)
	an, bp := a.next, b.prev
	a.next, b.prev = b, a
	a2.next, an.prev = an, a2
	b2.next, a2.prev = a2, b2
	bp.next, b2.prev = b2, bp
	return b2
}
