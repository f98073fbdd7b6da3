package shading

import (
	"math"
	"slices"
)

// candidates is, around one sample point, every triangle of the scene that
// can stop a rising ray from it, filed under each 1° sector of grid
// azimuth its plan shape spans, with an upper bound of its elevation seen
// from the point (tan; its highest corner over the nearest distance of its
// plan box), in descending order of that bound. A ray toward a sun of
// tan(elevation) tanE in sector k tests the triangles of sector k down to
// the first whose bound is below tanE: a triangle the ray hits lies in the
// ray's sector and rises to at least tanE there, so no hit is skipped and
// the answer is the exact ray-triangle test's (Scene.Blocked walks the
// grid for the same answer; TestFastEqualsExactRealBuildings). It replaces
// the walk through the grid of the whole scene, whose cells near a real
// roof hold hundreds of triangles below the ray.
//
// A candidates is scratch space for one goroutine, reused point after
// point (build).
type candidates struct {
	start [boundBins + 1]int32
	ent   []cand
	span  []candSpan
	key   []uint64
	next  [boundBins]int32
}

// cand is one triangle filed in a sector: its bound (tan elevation,
// rounded up to float32) and index.
type cand struct {
	v  float32
	ti int32
}

// candSpan is a triangle with its bound and the sectors it spans, from lo
// to hi (may pass 359; taken modulo 360).
type candSpan struct {
	cand
	lo, hi int16
}

// up32 rounds v up to a float32, so a bound stays a bound.
func up32(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// build files the triangles of s that can stop a rising ray from UTM point
// p toward a sun of the point's steps: minTan[k] is the lowest
// tan(elevation) of those in sector k (+Inf for none), and a triangle is
// filed in sector k only when its bound reaches minTan[k]. Triangles
// entirely below p cannot stop a rising ray; triangles in the plane pl
// (within 2 cm: the facet's own plane, from whose front side the rays
// leave) cannot either.
func (c *candidates) build(s *Scene, px, py, pz float64, pl facetPlane, minTan *[boundBins]float64) {
	c.span, c.key = c.span[:0], c.key[:0]
	lx, ly := px-s.ox, py-s.oy
	lowest := math.Inf(1)
	for _, v := range minTan {
		lowest = min(lowest, v)
	}
	for ti := range s.above(pz) {
		t := s.tri[ti*9 : ti*9+9]
		b := s.box[ti*4 : ti*4+4]
		// The cheap bound of the plan box first: most triangles of a
		// scene are too far and low for any sun of the point.
		db := boxDist(lx, ly, b[0], b[1], b[2], b[3])
		if db > 1e-6 && (s.zMax[ti]-pz)/db < lowest {
			continue
		}
		coplanar := true
		for k := 0; k < 9 && coplanar; k += 3 {
			coplanar = math.Abs(t[k+2]-pl.z(t[k]+s.ox, t[k+1]+s.oy)) < 0.02
		}
		if coplanar {
			continue
		}
		sp := candSpan{cand: cand{v: float32(math.Inf(1)), ti: int32(ti)}, lo: 0, hi: boundBins - 1}
		if d := triDist(t, lx, ly); d > 1e-6 {
			sp.v = up32((s.zMax[ti] - pz) / d)
			sp.lo, sp.hi = triSectors(t, lx, ly)
		}
		reaches := false
		for i := sp.lo; i <= sp.hi && !reaches; i++ {
			reaches = float64(sp.v) >= minTan[sector(int(i))]
		}
		if !reaches {
			continue
		}
		// Positive float32 bits order as the values: the complement sorts
		// the highest bound first, the low half finds the span again.
		c.key = append(c.key, uint64(^math.Float32bits(sp.v))<<32|uint64(len(c.span)))
		c.span = append(c.span, sp)
	}
	c.file(minTan)
}

// file sorts the spans build collected by descending bound and files each
// in the sectors whose lowest sun its bound reaches (a counting sort by
// sector, so each sector keeps the descending order).
func (c *candidates) file(minTan *[boundBins]float64) {
	slices.Sort(c.key)
	clear(c.next[:])
	for _, sp := range c.span {
		for i := sp.lo; i <= sp.hi; i++ {
			if k := sector(int(i)); float64(sp.v) >= minTan[k] {
				c.next[k]++
			}
		}
	}
	c.start[0] = 0
	for k := range boundBins {
		c.start[k+1] = c.start[k] + c.next[k]
		c.next[k] = c.start[k]
	}
	c.ent = slices.Grow(c.ent[:0], int(c.start[boundBins]))[:c.start[boundBins]]
	for _, key := range c.key {
		sp := c.span[uint32(key)]
		for i := sp.lo; i <= sp.hi; i++ {
			if k := sector(int(i)); float64(sp.v) >= minTan[k] {
				c.ent[c.next[k]] = sp.cand
				c.next[k]++
			}
		}
	}
}

// triDist is the plan distance from local (px, py) to triangle t (9 local
// coordinates), 0 inside: the nearest of its edges.
func triDist(t []float64, px, py float64) float64 {
	d2 := math.Inf(1)
	var side [3]float64
	for k := range 3 {
		j := (k + 1) % 3
		ax, ay := t[k*3]-px, t[k*3+1]-py
		ex, ey := t[j*3]-t[k*3], t[j*3+1]-t[k*3+1]
		side[k] = ex*ay - ey*ax
		l2 := ex*ex + ey*ey
		f := 0.0
		if l2 > 0 {
			f = min(1, max(0, -(ax*ex+ay*ey)/l2))
		}
		qx, qy := ax+f*ex, ay+f*ey
		d2 = min(d2, qx*qx+qy*qy)
	}
	if side[0] >= 0 && side[1] >= 0 && side[2] >= 0 || side[0] <= 0 && side[1] <= 0 && side[2] <= 0 {
		return 0 // inside in plan (or a vertical triangle through the point)
	}
	return math.Sqrt(d2)
}

// triSectors is the range of 1° grid-azimuth sectors triangle t (local
// coordinates, not containing (px, py) in plan) spans seen from (px, py):
// the two corners that bound it angularly, found by cross products, give
// the range; all sectors when it spans 180° or more.
func triSectors(t []float64, px, py float64) (lo, hi int16) {
	var x, y [3]float64
	for k := range 3 {
		x[k], y[k] = t[k*3]-px, t[k*3+1]-py
	}
	first, last := -1, -1 // the corners of the lowest and the highest azimuth
	for k := range 3 {
		lower, higher := false, false // another corner at a lower, higher azimuth
		for j := range 3 {
			if j == k {
				continue
			}
			// Azimuth grows clockwise (east of north): j lies at a higher
			// azimuth than k when the plan cross product k x j is negative.
			c := x[k]*y[j] - y[k]*x[j]
			if c < 0 {
				higher = true
			} else if c > 0 {
				lower = true
			}
		}
		if !lower && first < 0 {
			first = k
		}
		if !higher && last < 0 {
			last = k
		}
	}
	if first < 0 || last < 0 {
		return 0, boundBins - 1
	}
	a0 := fastAzimuthDeg(x[first], y[first]) - fastAtanErrDeg
	a1 := fastAzimuthDeg(x[last], y[last]) + fastAtanErrDeg
	if a1 < a0 {
		a1 += 360
	}
	if a1-a0 >= 180 {
		return 0, boundBins - 1
	}
	return int16(math.Floor(a0)), int16(math.Floor(a1))
}

// fastAtanErrDeg bounds the error of fastAzimuthDeg (the polynomial's 1e-5
// rad, 0.0006°, with a margin); the sector ranges are widened by it so
// they still hold every azimuth of the triangle.
const fastAtanErrDeg = 0.002

// fastAzimuthDeg is azimuthDeg (grid azimuth of dx, dy in degrees) to
// within fastAtanErrDeg, without math.Atan2's cost: a minimax polynomial of
// atan on [0, 1] (Abramowitz and Stegun 4.4.49 form, |error| < 1e-5 rad)
// folded into the octants. The value may lie a little outside 0..360.
func fastAzimuthDeg(dx, dy float64) float64 {
	ax, ay := math.Abs(dx), math.Abs(dy)
	if ax == 0 && ay == 0 {
		return 0
	}
	// Angle from north toward east in the first quadrant: atan(ax/ay).
	swap := ax > ay
	t := ax / ay
	if swap {
		t = ay / ax
	}
	t2 := t * t
	a := t * (0.99997726 + t2*(-0.33262347+t2*(0.19354346+t2*(-0.11643287+t2*(0.05265332+t2*-0.01172120)))))
	if swap {
		a = math.Pi/2 - a
	}
	a *= 180 / math.Pi
	switch {
	case dx >= 0 && dy >= 0:
		return a
	case dx >= 0:
		return 180 - a
	case dy < 0:
		return 180 + a
	default:
		return 360 - a
	}
}

// sector maps a sector number of any sign to 0..359.
func sector(i int) int { return ((i % boundBins) + boundBins) % boundBins }

// sunSector is the 1° sector of grid azimuth of the sun of step i.
func sunSector(sun *Sun, i int) int { return sector(int(math.Floor(sun.GridAzimuthDeg[i]))) }

// blocked reports whether the ray from UTM point p toward the sun of step
// i hits a triangle of s (p the point build filed the candidates for).
func (c *candidates) blocked(s *Scene, sun *Sun, i int, px, py, pz float64) bool {
	k := sunSector(sun, i)
	tanE := sun.TanElev[i]
	ent := c.ent[c.start[k]:c.start[k+1]]
	if len(ent) == 0 || float64(ent[0].v) < tanE {
		return false
	}
	lx, ly := px-s.ox, py-s.oy
	dx, dy, dz := sun.GridE[i], sun.GridN[i], sun.Up[i]
	for _, e := range ent {
		if float64(e.v) < tanE {
			return false
		}
		if s.hits(int(e.ti), lx, ly, pz, dx, dy, dz) {
			return true
		}
	}
	return false
}
