package draco

import (
	"math"
	"testing"
)

func TestOctahedronTransformInverts(t *testing.T) {
	for _, bits := range []int{2, 3, 4, 5} {
		b := newOctaBox(bits)
		for ps := int32(0); ps <= b.maxV; ps++ {
			for pt := int32(0); pt <= b.maxV; pt++ {
				for s := int32(0); s <= b.maxV; s++ {
					for u := int32(0); u <= b.maxV; u++ {
						s, u := b.canonical(s, u)
						cs, ct := b.correction(ps, pt, s, u)
						if cs < 0 || ct < 0 || cs >= b.maxQ || ct >= b.maxQ {
							t.Fatalf("bits %d: correction (%d,%d) out of range", bits, cs, ct)
						}
						gs, gt := b.original(ps, pt, cs, ct)
						if gs != s || gt != u {
							t.Fatalf("bits %d pred (%d,%d) orig (%d,%d): decoded (%d,%d)", bits, ps, pt, s, u, gs, gt)
						}
					}
				}
			}
		}
	}
}

// toVector is the decoder's OctahedralCoordsToUnitVector.
func (b octaBox) toVector(s, t int32) [3]float64 {
	scale := 2 / float64(b.maxV)
	y, z := float64(s)*scale-1, float64(t)*scale-1
	x := 1 - math.Abs(y) - math.Abs(z)
	off := max(-x, 0)
	if y < 0 {
		y += off
	} else {
		y -= off
	}
	if z < 0 {
		z += off
	} else {
		z -= off
	}
	d := 1 / math.Sqrt(x*x+y*y+z*z)
	return [3]float64{x * d, y * d, z * d}
}

func TestOctahedralRoundTrip(t *testing.T) {
	b := newOctaBox(10)
	worst := 0.0
	for i := 0; i < 2000; i++ {
		th, ph := math.Acos(1-2*float64(i%97)/96), 2*math.Pi*float64(i)/2000*13
		n := [3]float64{math.Sin(th) * math.Cos(ph), math.Sin(th) * math.Sin(ph), math.Cos(th)}
		s, u := b.fromVector(n[0], n[1], n[2])
		if s < 0 || u < 0 || s > b.maxV || u > b.maxV {
			t.Fatalf("coords (%d,%d) out of range", s, u)
		}
		got := b.toVector(s, u)
		for j := range n {
			worst = max(worst, math.Abs(got[j]-n[j]))
		}
	}
	if tol := octaTolerance(10); worst > tol {
		t.Errorf("worst component error %v above %v", worst, tol)
	}
}

// octaTolerance bounds the per-component error of octahedral normals.
func octaTolerance(bits int) float64 {
	return 4.5/float64(int32(1)<<uint(bits)-2) + 1e-6
}
