package mvt

import (
	"math"
	"slices"
)

// Pt is a point in tile units (0 to extent from the west and the north).
type Pt struct{ X, Y int32 }

// Rings are the rings of a polygon feature: Pts one ring after another,
// Ends where each ring ends (exclusive index into Pts). Rings are open
// (the first point is not repeated) and wound as 4.3.4.4 requires.
type Rings struct {
	Pts  []Pt
	Ends []int
}

// Reset empties r, keeping its memory.
func (r *Rings) Reset() { r.Pts, r.Ends = r.Pts[:0], r.Ends[:0] }

// Clipper turns polygons given in tile units into feature rings: every
// vertex is rounded to the tile grid (the only simplification: a vertex
// two neighbouring polygons share lands on the same grid point in both,
// so they stay touching), the rings are clipped to the tile grown by a
// buffer, repeated points are dropped, rings without area are dropped,
// and the winding is set. It keeps scratch memory; one Clipper is not
// safe for concurrent use.
type Clipper struct {
	lo, hi int64
	a, b   []ipt
}

type ipt struct{ x, y int64 }

// NewClipper returns a clipper to the square from -buffer to
// extent+buffer.
func NewClipper(extent, buffer int) *Clipper {
	return &Clipper{lo: int64(-buffer), hi: int64(extent + buffer)}
}

// AppendPolygon appends one polygon to dst: xy holds x, y pairs in tile
// units (y down), ends the end of each ring in xy (in float64s, exclusive);
// the first ring is the exterior, the others holes. Rings may be closed
// (last point equal to the first) or open, wound either way. A polygon
// whose exterior has no area after rounding and clipping adds nothing;
// a hole without area is left out.
func (c *Clipper) AppendPolygon(dst *Rings, xy []float64, ends []int) {
	start := 0
	for i, end := range ends {
		ring := xy[start:end]
		start = end
		added := c.appendRing(dst, ring, i == 0)
		if i == 0 && !added {
			return
		}
	}
}

// AppendRoundedPolygon is AppendPolygon for vertices already rounded to
// the tile grid (math.Round of the tile units): xy holds x, y pairs, ends
// the end of each ring in xy (in int64s, exclusive). The result is the
// one AppendPolygon gives for the unrounded vertices.
func (c *Clipper) AppendRoundedPolygon(dst *Rings, xy []int64, ends []int) {
	start := 0
	for i, end := range ends {
		ring := xy[start:end]
		start = end
		c.a = c.a[:0]
		for k := 0; k+1 < len(ring); k += 2 {
			p := ipt{clampI(ring[k]), clampI(ring[k+1])}
			if n := len(c.a); n == 0 || c.a[n-1] != p {
				c.a = append(c.a, p)
			}
		}
		if !c.finishRing(dst, i == 0) && i == 0 {
			return
		}
	}
}

// appendRing rounds, clips and winds one ring and appends it; it reports
// whether the ring had area.
func (c *Clipper) appendRing(dst *Rings, xy []float64, exterior bool) bool {
	c.a = c.a[:0]
	for k := 0; k+1 < len(xy); k += 2 {
		x, y := xy[k], xy[k+1]
		if math.IsNaN(x) || math.IsNaN(y) {
			return false
		}
		// Far outside the tile the exact value does not matter, only the
		// side: clamp to keep the integer arithmetic in range.
		p := ipt{int64(math.Round(clampF(x))), int64(math.Round(clampF(y)))}
		if n := len(c.a); n == 0 || c.a[n-1] != p {
			c.a = append(c.a, p)
		}
	}
	return c.finishRing(dst, exterior)
}

// finishRing closes, clips and winds the rounded ring in c.a and appends
// it; it reports whether the ring had area.
func (c *Clipper) finishRing(dst *Rings, exterior bool) bool {
	if n := len(c.a); n > 1 && c.a[0] == c.a[n-1] {
		c.a = c.a[:n-1]
	}
	if len(c.a) < 3 {
		return false
	}
	if !c.inside() {
		for edge := range 4 {
			c.b = clipEdge(c.b[:0], c.a, edge, c.lo, c.hi)
			c.a, c.b = c.b, c.a
			if len(c.a) < 3 {
				return false
			}
		}
	}
	area := int64(0) // twice the surveyor's area, y down: > 0 is clockwise on screen
	n := len(c.a)
	for i := range n {
		p, q := c.a[i], c.a[(i+1)%n]
		area += p.x*q.y - q.x*p.y
	}
	if area == 0 {
		return false
	}
	if (area > 0) != exterior {
		slices.Reverse(c.a)
	}
	for _, p := range c.a {
		dst.Pts = append(dst.Pts, Pt{int32(p.x), int32(p.y)})
	}
	dst.Ends = append(dst.Ends, len(dst.Pts))
	return true
}

const farUnits = 1 << 28

func clampF(v float64) float64 { return math.Max(-farUnits, math.Min(farUnits, v)) }

func clampI(v int64) int64 { return max(-farUnits, min(farUnits, v)) }

// inside reports whether every point of the ring is within the clip box.
func (c *Clipper) inside() bool {
	for _, p := range c.a {
		if p.x < c.lo || p.x > c.hi || p.y < c.lo || p.y > c.hi {
			return false
		}
	}
	return true
}

// clipEdge is one Sutherland-Hodgman pass: the ring in against one side of
// the box (0 west, 1 east, 2 north, 3 south), appended to out with
// repeated points dropped.
func clipEdge(out, in []ipt, edge int, lo, hi int64) []ipt {
	in1 := func(p ipt) bool {
		switch edge {
		case 0:
			return p.x >= lo
		case 1:
			return p.x <= hi
		case 2:
			return p.y >= lo
		}
		return p.y <= hi
	}
	push := func(p ipt) {
		if n := len(out); n == 0 || out[n-1] != p {
			out = append(out, p)
		}
	}
	n := len(in)
	for i := range n {
		cur, prev := in[i], in[(i+n-1)%n]
		ci, pi := in1(cur), in1(prev)
		if ci != pi {
			push(cross(prev, cur, edge, lo, hi))
		}
		if ci {
			push(cur)
		}
	}
	if n := len(out); n > 1 && out[0] == out[n-1] {
		out = out[:n-1]
	}
	return out
}

// cross is where segment a-b crosses the box side, rounded to the grid.
// The endpoints are ordered first, so that the edge two neighbouring
// rings share (walked in opposite directions) crosses at the same point.
func cross(a, b ipt, edge int, lo, hi int64) ipt {
	if b.x < a.x || (b.x == a.x && b.y < a.y) {
		a, b = b, a
	}
	c := lo
	if edge == 1 || edge == 3 {
		c = hi
	}
	if edge < 2 {
		t := float64(c-a.x) / float64(b.x-a.x)
		return ipt{c, a.y + int64(math.Round(t*float64(b.y-a.y)))}
	}
	t := float64(c-a.y) / float64(b.y-a.y)
	return ipt{a.x + int64(math.Round(t*float64(b.x-a.x))), c}
}
