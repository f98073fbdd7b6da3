package shading

import "math"

// boundBins is the number of 1° azimuth sectors (grid azimuth) of a sample
// point's obstacle bound.
const boundBins = 360

// bound is, per 1° sector of grid azimuth around a sample point, an upper
// bound of tan(elevation) of every obstacle in it: a sun whose tan(elevation)
// exceeds the bound of its sector cannot be blocked there, and its ray is
// not cast. +Inf means always cast.
type bound [boundBins]float64

func newBound() *bound {
	b := new(bound)
	for i := range b {
		b[i] = math.Inf(-1)
	}
	return b
}

// add raises the sectors from azimuth lo to hi (degrees, lo ≤ hi, may pass
// 360) to at least v.
func (b *bound) add(lo, hi, v float64) {
	if hi-lo >= 359 {
		for i := range b {
			b[i] = math.Max(b[i], v)
		}
		return
	}
	i0, i1 := int(math.Floor(lo)), int(math.Floor(hi))
	for i := i0; i <= i1; i++ {
		k := ((i % boundBins) + boundBins) % boundBins
		b[k] = math.Max(b[k], v)
	}
}

// clear reports whether a sun at grid azimuth azDeg with tan(elevation)
// tanE is above every obstacle of its sector.
func (b *bound) clear(azDeg, tanE float64) bool {
	k := int(math.Floor(azDeg))
	k = ((k % boundBins) + boundBins) % boundBins
	return tanE > b[k]
}

// azimuthDeg is the grid azimuth of (dx, dy) in degrees, 0..360.
func azimuthDeg(dx, dy float64) float64 {
	return math.Mod(math.Atan2(dx, dy)*180/math.Pi+360, 360)
}

// boxDist is the plan distance from (px, py) to the box, 0 inside.
func boxDist(px, py, x0, y0, x1, y1 float64) float64 {
	dx := math.Max(0, math.Max(x0-px, px-x1))
	dy := math.Max(0, math.Max(y0-py, py-y1))
	return math.Hypot(dx, dy)
}

// bound returns the crowns' obstacle bound around UTM point p: each crown
// cell above p spans the azimuths of its circumscribed circle.
func (c *Canopy) bound(px, py, pz float64) *bound {
	b := newBound()
	if c == nil || pz >= c.maxTop {
		return b
	}
	r := c.cellM * math.Sqrt2 / 2
	for k, top := range c.top {
		if !(float64(top) > pz) {
			continue
		}
		x := c.minX + (float64(k%c.w)+0.5)*c.cellM
		y := c.maxY - (float64(k/c.w)+0.5)*c.cellM
		d := math.Hypot(x-px, y-py)
		if d <= r*1.01 {
			b.add(0, 360, math.Inf(1))
			continue
		}
		half := math.Asin(r/d) * 180 / math.Pi
		a := azimuthDeg(x-px, y-py)
		b.add(a-half, a+half, (float64(top)-pz)/(d-r))
	}
	return b
}
