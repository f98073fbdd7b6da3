package osmdata

import (
	"math"

	"github.com/svc-geodata/svc/geo"
)

// Box is a clip rectangle in projected metres.
type Box struct{ MinX, MinY, MaxX, MaxY float64 }

// clipBox is the UTM rectangle enclosing a WGS84 box (its edges sampled);
// nil for the zero box.
func clipBox(b geo.BBox, z geo.Zone) *Box {
	if b == (geo.BBox{}) {
		return nil
	}
	r := &Box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	const steps = 16
	for i := range steps + 1 {
		t := float64(i) / steps
		for _, p := range [][2]float64{{b.MinLon + t*(b.MaxLon-b.MinLon), b.MinLat}, {b.MinLon + t*(b.MaxLon-b.MinLon), b.MaxLat},
			{b.MinLon, b.MinLat + t*(b.MaxLat-b.MinLat)}, {b.MaxLon, b.MinLat + t*(b.MaxLat-b.MinLat)}} {
			x, y := geo.ToUTM(z, p[0], p[1])
			r.MinX, r.MaxX = math.Min(r.MinX, x), math.Max(r.MaxX, x)
			r.MinY, r.MaxY = math.Min(r.MinY, y), math.Max(r.MaxY, y)
		}
	}
	return r
}

// apply clips a feature's geometry; what lies outside goes.
func (b *Box) apply(f Feature) Feature {
	var polys [][][][2]float64
	for _, p := range f.Polygons {
		var out [][][2]float64
		for i, r := range p {
			c := b.Ring(r)
			if len(c) < 4 {
				if i == 0 {
					break // the outer ring is outside: so are its holes
				}
				continue
			}
			out = append(out, c)
		}
		if len(out) > 0 {
			polys = append(polys, out)
		}
	}
	var lines [][][2]float64
	for _, l := range f.Lines {
		lines = append(lines, b.Line(l)...)
	}
	f.Polygons, f.Lines = polys, lines
	return f
}

// Ring clips a closed ring (Sutherland-Hodgman against the four edges);
// nil when nothing is left.
func (b *Box) Ring(r [][2]float64) [][2]float64 {
	pts := r[:len(r)-1]
	for edge := range 4 {
		if len(pts) == 0 {
			return nil
		}
		inside := func(p [2]float64) bool {
			switch edge {
			case 0:
				return p[0] >= b.MinX
			case 1:
				return p[0] <= b.MaxX
			case 2:
				return p[1] >= b.MinY
			}
			return p[1] <= b.MaxY
		}
		cut := func(p, q [2]float64) [2]float64 {
			var t float64
			switch edge {
			case 0:
				t = (b.MinX - p[0]) / (q[0] - p[0])
			case 1:
				t = (b.MaxX - p[0]) / (q[0] - p[0])
			case 2:
				t = (b.MinY - p[1]) / (q[1] - p[1])
			default:
				t = (b.MaxY - p[1]) / (q[1] - p[1])
			}
			return [2]float64{p[0] + t*(q[0]-p[0]), p[1] + t*(q[1]-p[1])}
		}
		var next [][2]float64
		for i, q := range pts {
			p := pts[(i+len(pts)-1)%len(pts)]
			switch qi, pi := inside(q), inside(p); {
			case qi && pi:
				next = append(next, q)
			case qi:
				next = append(next, cut(p, q), q)
			case pi:
				next = append(next, cut(p, q))
			}
		}
		pts = next
	}
	if len(pts) < 3 {
		return nil
	}
	return append(pts, pts[0])
}

// Line clips a polyline into the pieces inside (Liang-Barsky per segment).
func (b *Box) Line(l [][2]float64) [][][2]float64 {
	var out [][][2]float64
	var cur [][2]float64
	flush := func() {
		if len(cur) >= 2 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i := 1; i < len(l); i++ {
		p, q := l[i-1], l[i]
		t0, t1 := 0.0, 1.0
		dx, dy := q[0]-p[0], q[1]-p[1]
		ok := true
		for _, c := range [][2]float64{{-dx, p[0] - b.MinX}, {dx, b.MaxX - p[0]}, {-dy, p[1] - b.MinY}, {dy, b.MaxY - p[1]}} {
			if c[0] == 0 {
				if c[1] < 0 {
					ok = false
				}
				continue
			}
			t := c[1] / c[0]
			if c[0] < 0 {
				t0 = math.Max(t0, t)
			} else {
				t1 = math.Min(t1, t)
			}
		}
		if !ok || t0 > t1 {
			flush()
			continue
		}
		a := [2]float64{p[0] + t0*dx, p[1] + t0*dy}
		z := [2]float64{p[0] + t1*dx, p[1] + t1*dy}
		if len(cur) == 0 || cur[len(cur)-1] != a {
			flush()
			cur = [][2]float64{a}
		}
		cur = append(cur, z)
		if t1 < 1 {
			flush()
		}
	}
	flush()
	return out
}
