package measure

import (
	"math"

	"github.com/svc-geodata/svc/citygml"
)

// newell returns the Newell vector of a ring relative to o: its direction
// is the ring's normal (right-hand rule), its length twice the enclosed
// area. A ring that repeats its first point and one that does not give the
// same result.
func newell(r citygml.Ring, o citygml.Point) [3]float64 {
	var n [3]float64
	for i := range r {
		a, b := r[i], r[(i+1)%len(r)]
		ax, ay, az := a[0]-o[0], a[1]-o[1], a[2]-o[2]
		bx, by, bz := b[0]-o[0], b[1]-o[1], b[2]-o[2]
		n[0] += (ay - by) * (az + bz)
		n[1] += (az - bz) * (ax + bx)
		n[2] += (ax - bx) * (ay + by)
	}
	return n
}

// AreaVector returns the polygon's vector area (m²): the normal of the
// exterior ring's orientation scaled by the area enclosed by the exterior
// minus the holes. Holes count against the exterior whatever their own
// orientation. Zero for a polygon without exterior.
func AreaVector(p citygml.Polygon) [3]float64 {
	if len(p.Exterior) == 0 {
		return [3]float64{}
	}
	o := p.Exterior[0]
	n := newell(p.Exterior, o)
	for _, h := range p.Interiors {
		hn := newell(h, o)
		s := 1.0
		if dot(hn, n) < 0 {
			s = -1
		}
		for k := range n {
			n[k] -= s * hn[k]
		}
	}
	for k := range n {
		n[k] /= 2
	}
	return n
}

// AreaTilt returns the 3D area (m²) of a polygon, holes subtracted, and its
// tilt: the angle (degrees, 0..90) between its plane and the horizontal. A
// polygon of zero area has tilt 0.
func AreaTilt(p citygml.Polygon) (areaM2, tiltDeg float64) {
	n := AreaVector(p)
	a := math.Sqrt(dot(n, n))
	if a == 0 {
		return 0, 0
	}
	return a, math.Acos(math.Min(1, math.Abs(n[2])/a)) * 180 / math.Pi
}

// PlanArea returns the signed area (m²) of the polygon projected on the
// horizontal plane, holes subtracted: positive when the exterior runs
// counter-clockwise seen from above.
func PlanArea(p citygml.Polygon) float64 {
	return AreaVector(p)[2]
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
