package lod2store

import (
	"math"

	"github.com/svc-geodata/svc/geo"
)

// queryArea is a WGS84 bbox projected into a pack's CRS: its outline as a
// densified ring (lon/lat lines are curves in UTM), the ring's envelope for
// the index, and a rectangle inside the ring for a cheap accept.
type queryArea struct {
	// ring is closed; edges[i] is the envelope of ring[i]-ring[i+1]. Both
	// have a fixed size, held in the value: a search allocates nothing
	// for its query area.
	ring  [4*edgeSteps + 1][2]float64
	edges [4 * edgeSteps]box
	env   box
	inner box
}

const edgeSteps = 16

func newQueryArea(b geo.BBox, z geo.Zone) *queryArea {
	q := new(queryArea)
	q.init(b, z)
	return q
}

// init sets q to bbox b projected into zone z.
func (q *queryArea) init(b geo.BBox, z geo.Zone) {
	q.env = emptyBox()
	corners := [4][2]float64{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}}
	inner := box{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}
	n := 0
	for e := range 4 {
		a, c := corners[e], corners[(e+1)%4]
		for i := 0; i <= edgeSteps; i++ { // both corners bound the inner rectangle
			t := float64(i) / edgeSteps
			x, y := geo.ToUTM(z, a[0]+t*(c[0]-a[0]), a[1]+t*(c[1]-a[1]))
			if i < edgeSteps {
				q.ring[n] = [2]float64{x, y}
				n++
			}
			q.env.extend(box{x, y, x, y})
			switch e { // edges: 0 south, 1 east, 2 north, 3 west
			case 0:
				inner.minY = math.Max(inner.minY, y)
			case 1:
				inner.maxX = math.Min(inner.maxX, x)
			case 2:
				inner.maxY = math.Min(inner.maxY, y)
			case 3:
				inner.minX = math.Max(inner.minX, x)
			}
		}
	}
	q.ring[n] = q.ring[0]
	q.inner = inner
	for i := 0; i+1 < len(q.ring); i++ {
		a, c := q.ring[i], q.ring[i+1]
		q.edges[i] = box{math.Min(a[0], c[0]), math.Min(a[1], c[1]), math.Max(a[0], c[0]), math.Max(a[1], c[1])}
	}
}

// meets reports whether the footprint of a record's surface intersects
// the query area: a vertex of one inside the other, or two edges crossing.
// Rings of all polygons are taken together under the even-odd rule, which is
// exact for the non-overlapping polygons of one surface and its holes.
func (q *queryArea) meets(p parsed) bool {
	fp := emptyBox()
	p.eachRing(func(xy []byte, n int) bool {
		for i := range n {
			x, y := xyAt(xy, i)
			fp.extend(box{x, y, x, y})
		}
		return false
	})
	if !fp.intersects(q.env) {
		return false
	}
	if fp.minX >= q.inner.minX && fp.maxX <= q.inner.maxX && fp.minY >= q.inner.minY && fp.maxY <= q.inner.maxY {
		return true
	}
	// Only the query edges whose envelope meets the footprint's can cross
	// it (a crossing point lies in both envelopes): a footprint near one
	// side of a 1 km box meets one or two of the 64 edges, not all.
	var near [8]int
	nearIdx := near[:0]
	for i := range q.edges {
		if e := &q.edges[i]; e.intersects(fp) {
			nearIdx = append(nearIdx, i)
		}
	}
	if p.eachRing(func(xy []byte, n int) bool {
		if n == 0 {
			return false
		}
		for i := 0; i+1 < n; i++ {
			x, y := xyAt(xy, i)
			x2, y2 := xyAt(xy, i+1)
			for _, k := range nearIdx {
				if segmentsIntersect(x, y, x2, y2, q.ring[k][0], q.ring[k][1], q.ring[k+1][0], q.ring[k+1][1]) {
					return true
				}
			}
		}
		// No query edge touches this ring: it lies wholly inside the query
		// area or wholly outside, as its first vertex does.
		x, y := xyAt(xy, 0)
		return pointInRing(x, y, q.ring[:])
	}) {
		return true
	}
	// The query outline may lie wholly inside the surface's footprint.
	qx, qy := q.ring[0][0], q.ring[0][1]
	in := false
	p.eachRing(func(xy []byte, n int) bool {
		for i, j := 0, n-1; i < n; j, i = i, i+1 {
			xi, yi := xyAt(xy, i)
			xj, yj := xyAt(xy, j)
			if (yi > qy) != (yj > qy) && qx < (xj-xi)*(qy-yi)/(yj-yi)+xi {
				in = !in
			}
		}
		return false
	})
	return in
}

// pointInRing is the even-odd rule for a closed ring.
func pointInRing(x, y float64, ring [][2]float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		xi, yi, xj, yj := ring[i][0], ring[i][1], ring[j][0], ring[j][1]
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

func orient(ax, ay, bx, by, cx, cy float64) float64 { return (bx-ax)*(cy-ay) - (by-ay)*(cx-ax) }

func segmentsIntersect(ax, ay, bx, by, cx, cy, dx, dy float64) bool {
	d1, d2 := orient(cx, cy, dx, dy, ax, ay), orient(cx, cy, dx, dy, bx, by)
	d3, d4 := orient(ax, ay, bx, by, cx, cy), orient(ax, ay, bx, by, dx, dy)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	on := func(px, py, qx, qy, rx, ry float64) bool {
		return math.Min(px, qx) <= rx && rx <= math.Max(px, qx) && math.Min(py, qy) <= ry && ry <= math.Max(py, qy)
	}
	return d1 == 0 && on(cx, cy, dx, dy, ax, ay) || d2 == 0 && on(cx, cy, dx, dy, bx, by) ||
		d3 == 0 && on(ax, ay, bx, by, cx, cy) || d4 == 0 && on(ax, ay, bx, by, dx, dy)
}
