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
	dx := max(0, x0-px, px-x1)
	dy := max(0, y0-py, py-y1)
	return math.Sqrt(dx*dx + dy*dy) // metres: no overflow for Hypot to guard
}

// bound returns the crowns' obstacle bound around UTM point p: each crown
// cell above p spans the azimuths of its circumscribed circle (half-width
// atan of its radius over the tangent length, which is at least the exact
// asin, widened by fastAzimuthDeg's error). Blocks of canopyBlock² cells
// whose highest crown is not above p are skipped whole.
func (c *Canopy) bound(px, py, pz float64) *bound {
	b := newBound()
	if c == nil || pz >= c.maxTop {
		return b
	}
	r := c.cellM * math.Sqrt2 / 2
	for bk, bt := range c.blockTop {
		if !(bt > pz) {
			continue
		}
		r0, c0 := bk/c.bw*canopyBlock, bk%c.bw*canopyBlock
		for row := r0; row < min(r0+canopyBlock, c.h); row++ {
			for col := c0; col < min(c0+canopyBlock, c.w); col++ {
				top := float64(c.top[row*c.w+col])
				if !(top > pz) {
					continue
				}
				x := c.minX + (float64(col)+0.5)*c.cellM
				y := c.maxY - (float64(row)+0.5)*c.cellM
				d := math.Hypot(x-px, y-py)
				if d <= r*1.01 {
					b.add(0, 360, math.Inf(1))
					continue
				}
				s := r / d
				half := s/math.Sqrt(1-s*s)*180/math.Pi + fastAtanErrDeg
				a := fastAzimuthDeg(x-px, y-py)
				b.add(a-half, a+half, (top-pz)/(d-r))
			}
		}
	}
	return b
}
