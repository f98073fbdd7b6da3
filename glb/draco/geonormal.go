package draco

// Geometric normal prediction (MESH_PREDICTION_GEOMETRIC_NORMAL): the
// decoder predicts each normal from the area-weighted face normals around
// its vertex, computed on the already decoded quantized positions, and a
// flip bit per value says whether to negate the prediction. Flat-shaded
// buildings predict almost exactly, so only the flip bits remain.

const predGeometricNormal = 6

// posFunc gives the quantized position of the vertex at a decoded corner
// (nil: positions unavailable).
type posFunc = *cornerPos

// cornerPos holds the decoded table's vertex of each corner and the
// quantized position of each decoded vertex, gathered once.
type cornerPos struct {
	v   []int32
	xyz [][3]int64
}

func (p *cornerPos) at(c int32) [3]int64 { return p.xyz[p.v[c]] }

// areaNormal is MeshPredictionSchemeGeometricNormalPredictorArea::
// ComputePredictedValue: the sum of the cross products of the faces around
// the vertex of c on table t, scaled down to an absolute sum of at most 2^29.
func areaNormal(t *cornerTable, c int32, pos posFunc) [3]int32 {
	centre := pos.at(c)
	var n [3]int64
	add := func(k int32) {
		a, b := pos.at(next(k)), pos.at(prev(k))
		var dn, dp [3]int64
		for i := range dn {
			dn[i], dp[i] = a[i]-centre[i], b[i]-centre[i]
		}
		n[0] += dn[1]*dp[2] - dn[2]*dp[1]
		n[1] += dn[2]*dp[0] - dn[0]*dp[2]
		n[2] += dn[0]*dp[1] - dn[1]*dp[0]
	}
	// VertexCornersIterator: left from c, then right from c at a boundary.
	add(c)
	k := t.swingLeft(c)
	for k >= 0 && k != c {
		add(k)
		k = t.swingLeft(k)
	}
	if k < 0 {
		for k = t.swingRight(c); k >= 0; k = t.swingRight(k) {
			add(k)
		}
	}
	const upper = 1 << 29
	if sum := abs64(n[0]) + abs64(n[1]) + abs64(n[2]); sum > upper {
		q := sum / upper
		for i := range n {
			n[i] /= q
		}
	}
	return [3]int32{int32(n[0]), int32(n[1]), int32(n[2])}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// canonicalVector scales v to |x|+|y|+|z| = center
// (OctahedronToolBox::CanonicalizeIntegerVector); zero becomes +X.
func (b octaBox) canonicalVector(v [3]int32) [3]int32 {
	sum := abs64(int64(v[0])) + abs64(int64(v[1])) + abs64(int64(v[2]))
	if sum == 0 {
		return [3]int32{b.center, 0, 0}
	}
	x := int32(int64(v[0]) * int64(b.center) / sum)
	y := int32(int64(v[1]) * int64(b.center) / sum)
	z := b.center - abs32(x) - abs32(y)
	if v[2] < 0 {
		z = -z
	}
	return [3]int32{x, y, z}
}

// writeGeometricNormals writes octahedral normals vals (in traversal order o
// over table t) with geometric prediction: method, transform, corrections,
// max_quantized_value, center_value, then the rABS coded flip bits.
func writeGeometricNormals(w *writer, vals []int32, bits int, t *cornerTable, o traversalOrder, pos posFunc) {
	b := newOctaBox(bits)
	w.u8(predGeometricNormal)
	w.u8(transformOctahedronCanonicalized)
	syms := make([]uint32, len(vals))
	var flips bitCoder
	for i, c := range o.corners {
		v := b.canonicalVector(areaNormal(t, c, pos))
		ps, pt := b.fromInt(v[0], v[1], v[2])
		ns, nt := b.fromInt(-v[0], -v[1], -v[2])
		s, u := vals[2*i], vals[2*i+1]
		cs, ct := b.correction(ps, pt, s, u)
		fs, ft := b.correction(ns, nt, s, u)
		flip := abs32(b.modMax(cs))+abs32(b.modMax(ct)) >= abs32(b.modMax(fs))+abs32(b.modMax(ft))
		if flip {
			cs, ct = fs, ft
		}
		flips.add(flip)
		syms[2*i], syms[2*i+1] = uint32(cs), uint32(ct)
	}
	w.u8(1) // compressed
	encodeSymbols(w, syms, 2)
	w.i32(b.maxQ)
	w.i32(b.center)
	flips.finish(w)
}
