package shading

import (
	"fmt"
	"math"
)

// plane fits z = z0 + gx·(x − x0) + gy·(y − y0) to a facet from its
// tilt and azimuth through the ring's mean point (x0, y0, z0).
type facetPlane struct{ x0, y0, z0, gx, gy float64 }

func (p facetPlane) z(x, y float64) float64 { return p.z0 + p.gx*(x-p.x0) + p.gy*(y-p.y0) }

// ringXY returns the ring's points without the closing repeat.
func ringXY(ring []float64) [][3]float64 {
	var pts [][3]float64
	for i := 0; i+2 < len(ring); i += 3 {
		pts = append(pts, [3]float64{ring[i], ring[i+1], ring[i+2]})
	}
	if n := len(pts); n > 1 && pts[0] == pts[n-1] {
		pts = pts[:n-1]
	}
	return pts
}

// centroid is the area centroid of the ring in plan, on the facet's plane,
// lifted along the normal.
func centroid(ring []float64, f Facet) [3]float64 {
	pts := ringXY(ring)
	pl := fitPlane(pts)
	ox, oy := pts[0][0], pts[0][1]
	var a, cx, cy float64
	for i := range pts {
		j := (i + 1) % len(pts)
		xi, yi := pts[i][0]-ox, pts[i][1]-oy
		xj, yj := pts[j][0]-ox, pts[j][1]-oy
		c := xi*yj - xj*yi
		a += c
		cx += (xi + xj) * c
		cy += (yi + yj) * c
	}
	x, y := pl.x0, pl.y0
	if math.Abs(a) > 1e-6 {
		x, y = ox+cx/(3*a), oy+cy/(3*a)
	}
	return lift([3]float64{x, y, pl.z(x, y)}, f)
}

// fitPlane is the least-squares plane of the ring points in plan (Newell's
// normal through their mean), vertical rings give a flat plane at the mean.
func fitPlane(pts [][3]float64) facetPlane {
	var p facetPlane
	for _, q := range pts {
		p.x0 += q[0]
		p.y0 += q[1]
		p.z0 += q[2]
	}
	k := float64(len(pts))
	p.x0, p.y0, p.z0 = p.x0/k, p.y0/k, p.z0/k
	var nx, ny, nz float64
	for i := range pts {
		j := (i + 1) % len(pts)
		a, b := pts[i], pts[j]
		nx += (a[1] - b[1]) * (a[2] - p.z0 + b[2] - p.z0)
		ny += (a[2] - b[2]) * (a[0] - p.x0 + b[0] - p.x0)
		nz += (a[0] - b[0]) * (a[1] - p.y0 + b[1] - p.y0)
	}
	if math.Abs(nz) > 1e-9 {
		p.gx, p.gy = -nx/nz, -ny/nz
	}
	return p
}

func lift(p [3]float64, f Facet) [3]float64 {
	b, a := f.TiltDeg*math.Pi/180, f.AzimuthDeg*math.Pi/180
	// The normal's horizontal part is in true azimuth; the grid rotation
	// (< 3°) of a 5 cm offset is below a millimetre and ignored.
	return [3]float64{p[0] + normalOffsetM*math.Sin(b)*math.Sin(a), p[1] + normalOffsetM*math.Sin(b)*math.Cos(a), p[2] + normalOffsetM*math.Cos(b)}
}

// inRing is the even-odd test of x, y against the ring in plan.
func inRing(pts [][3]float64, x, y float64) bool {
	in := false
	for i, j := 0, len(pts)-1; i < len(pts); j, i = i, i+1 {
		a, b := pts[i], pts[j]
		if (a[1] > y) != (b[1] > y) && x < (b[0]-a[0])*(y-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// samplePoints spreads up to MaxPoints points over the facet.
func samplePoints(f Facet, opt FacetOptions) ([][3]float64, error) {
	if opt.MaxPoints == 0 {
		opt.MaxPoints = 9
	}
	pts := ringXY(f.Ring)
	for _, v := range f.Ring {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("shading: facet ring: non-finite coordinate: %w", ErrInvalid)
		}
	}
	if len(pts) < 3 || !(f.TiltDeg >= 0 && f.TiltDeg < 90) || math.IsNaN(f.AzimuthDeg) || opt.MaxPoints < 1 || opt.MaxPoints > 1024 {
		return nil, fmt.Errorf("shading: facet of %d points, tilt %g, %d sample points: %w", len(pts), f.TiltDeg, opt.MaxPoints, ErrInvalid)
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
		minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
	}
	c := centroid(f.Ring, f)
	if opt.MaxPoints == 1 {
		return [][3]float64{c}, nil
	}
	pl := fitPlane(pts)
	area := 0.0
	for i := range pts {
		j := (i + 1) % len(pts)
		area += (pts[i][0]-pts[0][0])*(pts[j][1]-pts[0][1]) - (pts[j][0]-pts[0][0])*(pts[i][1]-pts[0][1])
	}
	area = math.Abs(area) / 2
	// Widen the spacing until the grid holds at most MaxPoints points.
	for sp := math.Max(1, math.Sqrt(area/float64(opt.MaxPoints))); ; sp *= 1.1 {
		var out [][3]float64
		for y := minY + sp/2; y < maxY; y += sp {
			for x := minX + sp/2; x < maxX; x += sp {
				if inRing(pts, x, y) {
					out = append(out, lift([3]float64{x, y, pl.z(x, y)}, f))
				}
			}
		}
		if len(out) == 0 {
			return [][3]float64{c}, nil
		}
		if len(out) <= opt.MaxPoints {
			return out, nil
		}
	}
}
