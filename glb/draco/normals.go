package draco

import (
	"fmt"
	"math"
)

// Normals are coded like Draco's SequentialNormalAttributeEncoder: each unit
// vector becomes two octahedral coordinates (s, t) in [0, 2^bits-2], which
// are delta predicted through the canonicalized octahedron transform
// (PREDICTION_TRANSFORM_NORMAL_OCTAHEDRON_CANONICALIZED).

const transformOctahedronCanonicalized = 3

// octaBox holds the octahedral quantization constants for q bits.
type octaBox struct {
	maxQ, maxV, center int32
}

func newOctaBox(bits int) octaBox {
	maxQ := int32(1)<<uint(bits) - 1
	return octaBox{maxQ: maxQ, maxV: maxQ - 1, center: (maxQ - 1) / 2}
}

// octahedral converts a normal attribute to octahedral coordinates.
func octahedral(a *Attribute, kept []int, bits int) (portable, error) {
	if bits < 2 {
		return portable{}, fmt.Errorf("normal QuantBits=%d below 2: %w", bits, ErrOption)
	}
	b := newOctaBox(bits)
	p := portable{kind: a.Kind, comps: 3, vcomps: 2, dataType: dtFloat32, decoderType: seqNormals, bits: bits}
	p.vals = make([]int32, 0, 2*len(kept))
	for _, v := range kept {
		n := a.Data[3*v : 3*v+3]
		for _, x := range n {
			if !isFinite(x) {
				return p, fmt.Errorf("vertex %d: %w", v, ErrNonFinite)
			}
		}
		s, t := b.fromVector(float64(n[0]), float64(n[1]), float64(n[2]))
		p.vals = append(p.vals, s, t)
	}
	return p, nil
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// fromVector projects a vector onto the octahedron |x|+|y|+|z| = center and
// unfolds it into the square [0, maxV]^2. A zero vector maps to +X.
func (b octaBox) fromVector(x, y, z float64) (int32, int32) {
	sum := math.Abs(x) + math.Abs(y) + math.Abs(z)
	if sum <= 1e-6 {
		x, y, z, sum = 1, 0, 0, 1
	}
	c := float64(b.center)
	iv0 := int32(math.Floor(x/sum*c + 0.5))
	iv1 := int32(math.Floor(y/sum*c + 0.5))
	iv2 := b.center - abs32(iv0) - abs32(iv1)
	if iv2 < 0 {
		if iv1 > 0 {
			iv1 += iv2
		} else {
			iv1 -= iv2
		}
		iv2 = 0
	}
	if z < 0 {
		iv2 = -iv2
	}
	return b.fromInt(iv0, iv1, iv2)
}

// fromInt unfolds an integer vector with |x|+|y|+|z| = center into
// canonical octahedral coordinates (IntegerVectorToQuantizedOctahedralCoords).
func (b octaBox) fromInt(iv0, iv1, iv2 int32) (int32, int32) {
	var s, t int32
	if iv0 >= 0 {
		s, t = iv1+b.center, iv2+b.center
	} else {
		s, t = abs32(iv2), abs32(iv1)
		if iv1 >= 0 {
			s = b.maxV - abs32(iv2)
		}
		if iv2 >= 0 {
			t = b.maxV - abs32(iv1)
		}
	}
	return b.canonical(s, t)
}

// canonical picks one representative for points on the square's border,
// which the unfolding maps twice.
func (b octaBox) canonical(s, t int32) (int32, int32) {
	switch {
	case (s == 0 && t == 0) || (s == 0 && t == b.maxV) || (s == b.maxV && t == 0):
		return b.maxV, b.maxV
	case s == 0 && t > b.center:
		return s, 2*b.center - t
	case s == b.maxV && t < b.center:
		return s, 2*b.center - t
	case t == b.maxV && s < b.center:
		return 2*b.center - s, t
	case t == 0 && s > b.center:
		return 2*b.center - s, t
	}
	return s, t
}

// invertDiamond mirrors a centred point between the inner diamond and the
// outer triangles of the square.
func (b octaBox) invertDiamond(s, t int32) (int32, int32) {
	var ss, st int32
	switch {
	case s >= 0 && t >= 0:
		ss, st = 1, 1
	case s <= 0 && t <= 0:
		ss, st = -1, -1
	default:
		ss, st = -1, -1
		if s > 0 {
			ss = 1
		}
		if t > 0 {
			st = 1
		}
	}
	cs, ct := ss*b.center, st*b.center
	s, t = 2*s-cs, 2*t-ct
	if ss*st >= 0 {
		s, t = -t, -s
	} else {
		s, t = t, s
	}
	return (s + cs) / 2, (t + ct) / 2
}

func rotationCount(s, t int32) int {
	switch {
	case s == 0:
		switch {
		case t == 0:
			return 0
		case t > 0:
			return 3
		}
		return 1
	case s > 0:
		if t >= 0 {
			return 2
		}
		return 1
	}
	if t <= 0 {
		return 0
	}
	return 3
}

func rotate(s, t int32, n int) (int32, int32) {
	switch n {
	case 1:
		return t, -s
	case 2:
		return -s, -t
	case 3:
		return -t, s
	}
	return s, t
}

func inBottomLeft(s, t int32) bool {
	return (s == 0 && t == 0) || (s < 0 && t <= 0)
}

// correction is the encoder half of the canonicalized transform: the
// non-negative correction that takes prediction (ps, pt) to (s, t).
func (b octaBox) correction(ps, pt, s, t int32) (int32, int32) {
	ps, pt = ps-b.center, pt-b.center
	s, t = s-b.center, t-b.center
	if abs32(ps)+abs32(pt) > b.center {
		ps, pt = b.invertDiamond(ps, pt)
		s, t = b.invertDiamond(s, t)
	}
	if !inBottomLeft(ps, pt) {
		r := rotationCount(ps, pt)
		ps, pt = rotate(ps, pt, r)
		s, t = rotate(s, t, r)
	}
	cs, ct := s-ps, t-pt
	if cs < 0 {
		cs += b.maxQ
	}
	if ct < 0 {
		ct += b.maxQ
	}
	return cs, ct
}

// original is the decoder half (ComputeOriginalValue), used to verify.
func (b octaBox) original(ps, pt, cs, ct int32) (int32, int32) {
	ps, pt = ps-b.center, pt-b.center
	inDiamond := abs32(ps)+abs32(pt) <= b.center
	if !inDiamond {
		ps, pt = b.invertDiamond(ps, pt)
	}
	bl := inBottomLeft(ps, pt)
	r := rotationCount(ps, pt)
	if !bl {
		ps, pt = rotate(ps, pt, r)
	}
	s, t := b.modMax(ps+cs), b.modMax(pt+ct)
	if !bl {
		s, t = rotate(s, t, (4-r)%4)
	}
	if !inDiamond {
		s, t = b.invertDiamond(s, t)
	}
	return s + b.center, t + b.center
}

func (b octaBox) modMax(x int32) int32 {
	if x > b.center {
		return x - b.maxQ
	}
	if x < -b.center {
		return x + b.maxQ
	}
	return x
}

// writeNormalValues writes octahedral normals with delta prediction and the
// canonicalized transform: method, transform, corrections (non-negative,
// so no sign folding), then max_quantized_value and center_value.
func writeNormalValues(w *writer, vals []int32, bits int) {
	b := newOctaBox(bits)
	w.u8(predDifference)
	w.u8(transformOctahedronCanonicalized)
	syms := make([]uint32, len(vals))
	var ps, pt int32
	for i := 0; i+1 < len(vals); i += 2 {
		cs, ct := b.correction(ps, pt, vals[i], vals[i+1])
		syms[i], syms[i+1] = uint32(cs), uint32(ct)
		ps, pt = vals[i], vals[i+1]
	}
	w.u8(1) // compressed
	encodeSymbols(w, syms, 2)
	w.i32(b.maxQ)
	w.i32(b.center)
}
