package mvt

import "math"

// Lines are the parts of a line feature: Pts one part after another, Ends
// where each part ends (exclusive index into Pts). Every part has at least
// two points and no point repeated in a row.
type Lines struct {
	Pts  []Pt
	Ends []int
}

// Reset empties l, keeping its memory.
func (l *Lines) Reset() { l.Pts, l.Ends = l.Pts[:0], l.Ends[:0] }

// AppendLine appends one polyline to dst: xy holds x, y pairs in tile
// units (y down). Every vertex is rounded to the tile grid first (so the
// vertices two neighbouring tiles both hold land on the same grid point
// in both), repeated points are dropped, and the line is clipped to the
// tile grown by the buffer: a line that leaves the box and comes back
// becomes several parts, each ending where it crosses the box side (the
// crossing rounded to the grid). A line with NaN coordinates or of fewer
// than two distinct points adds nothing.
func (c *Clipper) AppendLine(dst *Lines, xy []float64) {
	c.a = c.a[:0]
	for k := 0; k+1 < len(xy); k += 2 {
		x, y := xy[k], xy[k+1]
		if math.IsNaN(x) || math.IsNaN(y) {
			return
		}
		p := ipt{int64(math.Round(clampF(x))), int64(math.Round(clampF(y)))}
		if n := len(c.a); n == 0 || c.a[n-1] != p {
			c.a = append(c.a, p)
		}
	}
	if len(c.a) < 2 {
		return
	}
	start := len(dst.Pts)
	end := func() {
		if len(dst.Pts)-start >= 2 {
			dst.Ends = append(dst.Ends, len(dst.Pts))
		} else {
			dst.Pts = dst.Pts[:start]
		}
		start = len(dst.Pts)
	}
	push := func(p ipt) {
		q := Pt{int32(p.x), int32(p.y)}
		if n := len(dst.Pts); n > start && dst.Pts[n-1] == q {
			return
		}
		dst.Pts = append(dst.Pts, q)
	}
	for i := 1; i < len(c.a); i++ {
		a, b := c.a[i-1], c.a[i]
		ca, cb, ok := c.clipSegment(a, b)
		if !ok {
			end()
			continue
		}
		if ca != a || len(dst.Pts) == start {
			end()
			push(ca)
		}
		push(cb)
		if cb != b {
			end()
		}
	}
	end()
}

// clipSegment is Liang-Barsky: the part of a-b inside the box, its ends
// rounded to the grid, or ok false when none is.
func (c *Clipper) clipSegment(a, b ipt) (ipt, ipt, bool) {
	lo, hi := float64(c.lo), float64(c.hi)
	ax, ay := float64(a.x), float64(a.y)
	dx, dy := float64(b.x-a.x), float64(b.y-a.y)
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{{-dx, ax - lo}, {dx, hi - ax}, {-dy, ay - lo}, {dy, hi - ay}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return a, b, false
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = max(t0, r)
		} else {
			t1 = min(t1, r)
		}
	}
	if t0 > t1 {
		return a, b, false
	}
	at := func(t float64) ipt {
		return ipt{int64(math.Round(ax + t*dx)), int64(math.Round(ay + t*dy))}
	}
	ca, cb := a, b
	if t0 > 0 {
		ca = at(t0)
	}
	if t1 < 1 {
		cb = at(t1)
	}
	return ca, cb, true
}

// AddLineString adds a line feature (4.3.4.3): one LineTo run per part of
// g, a MultiLineString when there are several. A feature whose g is empty
// is not added. id 0 means no id.
func (l *Layer) AddLineString(id uint64, g Lines, props []Prop) {
	if len(g.Ends) == 0 {
		return
	}
	l.geom = l.geom[:0]
	var cx, cy int32
	start := 0
	for _, end := range g.Ends {
		part := g.Pts[start:end]
		start = end
		l.geom = append(l.geom, command(1, 1), zigzag(part[0].X-cx), zigzag(part[0].Y-cy))
		cx, cy = part[0].X, part[0].Y
		l.geom = append(l.geom, command(2, len(part)-1))
		for _, p := range part[1:] {
			l.geom = append(l.geom, zigzag(p.X-cx), zigzag(p.Y-cy))
			cx, cy = p.X, p.Y
		}
	}
	l.add(id, LineString, props)
}
