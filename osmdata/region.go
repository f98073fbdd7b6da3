package osmdata

import (
	"math"
	"slices"

	"github.com/svc-geodata/svc/geo"
)

// region is the area an extract covers, in projected metres: closed rings
// oriented with the region on their right (outer rings clockwise, holes
// counter-clockwise), so walking a ring forward from where a coastline
// chain leaves the region (the sea on the chain's right) runs along the sea.
type region struct {
	rings                  [][][2]float64
	cum                    [][]float64 // arc length at each vertex of each ring
	minX, minY, maxX, maxY float64
	// grid of edges (ring, index of the edge's first vertex) per cell.
	nx, ny  int
	cw, ch  float64
	cells   [][][2]int32
	stamp   []int32 // per edge, the query that last looked at it
	edgeOff []int   // first edge number of each ring
	query   int32
}

// densifyDeg is the longest WGS84 edge a boundary keeps before projection
// (about 1 km): a straight edge in lon/lat is a curve in UTM.
const densifyDeg = 0.01

// regionOf projects WGS84 rings (each closed; hole[i] for holes) into zone
// z, densified, and cuts them to clip (nil: no cut). It returns nil when
// nothing is left.
func regionOf(rings [][][2]float64, hole []bool, z geo.Zone, clip *Box) *region {
	var out [][][2]float64
	for i, r := range rings {
		var pts [][2]float64
		for j := 1; j < len(r); j++ {
			a, b := r[j-1], r[j]
			n := max(1, int(math.Ceil(math.Max(math.Abs(b[0]-a[0]), math.Abs(b[1]-a[1]))/densifyDeg)))
			for k := range n {
				t := float64(k) / float64(n)
				x, y := geo.ToUTM(z, a[0]+t*(b[0]-a[0]), a[1]+t*(b[1]-a[1]))
				pts = append(pts, [2]float64{x, y})
			}
		}
		if len(pts) < 3 {
			continue
		}
		pts = append(pts, pts[0])
		if clip != nil {
			if pts = clip.Ring(pts); pts == nil {
				continue
			}
		}
		// Outer rings clockwise (negative area with y north), holes
		// counter-clockwise.
		if (signedArea(pts) > 0) != hole[i] {
			slices.Reverse(pts)
		}
		out = append(out, pts)
	}
	if len(out) == 0 {
		return nil
	}
	return newRegion(out)
}

// boxRing is a box as a clockwise ring.
func boxRing(b Box) [][2]float64 {
	return [][2]float64{{b.MinX, b.MaxY}, {b.MaxX, b.MaxY}, {b.MaxX, b.MinY}, {b.MinX, b.MinY}, {b.MinX, b.MaxY}}
}

func newRegion(rings [][][2]float64) *region {
	r := &region{rings: rings, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	edges := 0
	for _, ring := range rings {
		c := make([]float64, len(ring))
		for j := 1; j < len(ring); j++ {
			c[j] = c[j-1] + math.Hypot(ring[j][0]-ring[j-1][0], ring[j][1]-ring[j-1][1])
		}
		r.cum = append(r.cum, c)
		r.edgeOff = append(r.edgeOff, edges)
		edges += len(ring) - 1
		for _, p := range ring {
			r.minX, r.maxX = math.Min(r.minX, p[0]), math.Max(r.maxX, p[0])
			r.minY, r.maxY = math.Min(r.minY, p[1]), math.Max(r.maxY, p[1])
		}
	}
	n := min(256, max(1, int(math.Sqrt(float64(edges)))))
	r.nx, r.ny = n, n
	r.cw, r.ch = math.Max((r.maxX-r.minX)/float64(n), 1e-9), math.Max((r.maxY-r.minY)/float64(n), 1e-9)
	r.cells = make([][][2]int32, n*n)
	r.stamp = make([]int32, edges)
	for k, ring := range rings {
		for j := 1; j < len(ring); j++ {
			x0, y0, x1, y1 := r.cellRange(ring[j-1], ring[j])
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					r.cells[y*n+x] = append(r.cells[y*n+x], [2]int32{int32(k), int32(j - 1)})
				}
			}
		}
	}
	return r
}

// cellRange is the range of grid cells the box of segment pq covers.
func (r *region) cellRange(p, q [2]float64) (x0, y0, x1, y1 int) {
	cell := func(v, lo, size float64, n int) int {
		return min(n-1, max(0, int((v-lo)/size)))
	}
	x0, x1 = cell(math.Min(p[0], q[0]), r.minX, r.cw, r.nx), cell(math.Max(p[0], q[0]), r.minX, r.cw, r.nx)
	y0, y1 = cell(math.Min(p[1], q[1]), r.minY, r.ch, r.ny), cell(math.Max(p[1], q[1]), r.minY, r.ch, r.ny)
	return
}

// contains is the even-odd rule over all rings.
func (r *region) contains(p [2]float64) bool {
	if p[0] < r.minX || p[0] > r.maxX || p[1] < r.minY || p[1] > r.maxY {
		return false
	}
	in := false
	for _, ring := range r.rings {
		if pointInRing(p, ring) {
			in = !in
		}
	}
	return in
}

// containsFast is contains by casting a ray east through the grid: only
// the edges in the cells of p's row from p's column on are tested.
func (r *region) containsFast(p [2]float64) bool {
	if p[0] < r.minX || p[0] > r.maxX || p[1] < r.minY || p[1] > r.maxY {
		return false
	}
	x0, y, _, _ := r.cellRange(p, p)
	r.query++
	in := false
	for x := x0; x < r.nx; x++ {
		for _, e := range r.cells[y*r.nx+x] {
			id := r.edgeOff[e[0]] + int(e[1])
			if r.stamp[id] == r.query {
				continue
			}
			r.stamp[id] = r.query
			a, b := r.rings[e[0]][e[1]], r.rings[e[0]][e[1]+1]
			if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
				in = !in
			}
		}
	}
	return in
}

// crossings are the parameters t in [0, 1] where segment pq meets the
// boundary, sorted.
func (r *region) crossings(p, q [2]float64) []float64 {
	if math.Max(p[0], q[0]) < r.minX || math.Min(p[0], q[0]) > r.maxX || math.Max(p[1], q[1]) < r.minY || math.Min(p[1], q[1]) > r.maxY {
		return nil
	}
	r.query++
	var ts []float64
	x0, y0, x1, y1 := r.cellRange(p, q)
	dx, dy := q[0]-p[0], q[1]-p[1]
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, e := range r.cells[y*r.nx+x] {
				id := r.edgeOff[e[0]] + int(e[1])
				if r.stamp[id] == r.query {
					continue
				}
				r.stamp[id] = r.query
				a, b := r.rings[e[0]][e[1]], r.rings[e[0]][e[1]+1]
				ex, ey := b[0]-a[0], b[1]-a[1]
				den := dx*ey - dy*ex
				if den == 0 {
					continue // parallel: a line along the boundary has no side to change
				}
				ax, ay := a[0]-p[0], a[1]-p[1]
				t := (ax*ey - ay*ex) / den
				u := (ax*dy - ay*dx) / den
				if t >= 0 && t <= 1 && u >= 0 && u <= 1 {
					ts = append(ts, t)
				}
			}
		}
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// clipLine cuts a polyline into its pieces inside the region. Where the
// line meets the boundary the piece ends exactly on it; the side of each
// stretch between two meeting points is decided by a point-in-region test
// at its middle, so lines starting, ending or touching on the boundary
// keep the right side.
func (r *region) clipLine(l [][2]float64) [][][2]float64 {
	var out [][][2]float64
	var cur [][2]float64
	flush := func() {
		if len(cur) >= 2 {
			out = append(out, cur)
		}
		cur = nil
	}
	at := func(p, q [2]float64, t float64) [2]float64 {
		switch t {
		case 0:
			return p
		case 1:
			return q
		}
		return [2]float64{p[0] + t*(q[0]-p[0]), p[1] + t*(q[1]-p[1])}
	}
	inside, known := false, false
	for i := 1; i < len(l); i++ {
		p, q := l[i-1], l[i]
		if p == q {
			continue
		}
		ts := r.crossings(p, q)
		if len(ts) == 0 && !known {
			inside, known = r.contains(at(p, q, 0.5)), true
		}
		if len(ts) == 0 {
			if inside {
				if len(cur) == 0 {
					cur = [][2]float64{p}
				}
				cur = append(cur, q)
			}
			continue
		}
		cuts := append(append([]float64{0}, ts...), 1)
		for k := 1; k < len(cuts); k++ {
			t0, t1 := cuts[k-1], cuts[k]
			if t1 <= t0 {
				continue
			}
			inside, known = r.contains(at(p, q, (t0+t1)/2)), true
			if !inside {
				flush()
				continue
			}
			a := at(p, q, t0)
			if len(cur) == 0 || cur[len(cur)-1] != a {
				flush()
				cur = [][2]float64{a}
			}
			cur = append(cur, at(p, q, t1))
		}
	}
	flush()
	return out
}

// nearest is the boundary point nearest to p: its ring, arc position
// along the ring, the point and its distance.
func (r *region) nearest(p [2]float64) (ring int, pos float64, at [2]float64, d float64) {
	d = math.Inf(1)
	for k, rg := range r.rings {
		for j := 1; j < len(rg); j++ {
			a, b := rg[j-1], rg[j]
			ex, ey := b[0]-a[0], b[1]-a[1]
			l2 := ex*ex + ey*ey
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((p[0]-a[0])*ex+(p[1]-a[1])*ey)/l2))
			}
			c := [2]float64{a[0] + t*ex, a[1] + t*ey}
			if dd := math.Hypot(p[0]-c[0], p[1]-c[1]); dd < d {
				ring, at, d = k, c, dd
				pos = r.cum[k][j-1] + t*math.Sqrt(l2)
			}
		}
	}
	return ring, pos, at, d
}

// area is the region's area in square metres.
func (r *region) area() float64 {
	a := 0.0
	for _, rg := range r.rings {
		a -= signedArea(rg) // outer rings clockwise: negative
	}
	return a
}
