package draco

import (
	"fmt"
	"math"
)

// Draco DataType values stored in attribute descriptors.
const (
	dtUint8   = 2
	dtUint16  = 4
	dtUint32  = 6
	dtFloat32 = 9
)

// Sequential attribute decoder types (SequentialAttributeEncoderType).
const (
	seqInteger      = 1
	seqQuantization = 2
	seqNormals      = 3
)

// portable is an attribute converted to the integer values Draco codes
// ("portable attribute"), one row of comps values per compacted vertex.
type portable struct {
	uniqueID    uint32
	kind        Kind
	comps       int // components of the decoded attribute
	vcomps      int // components of the coded values (2 for octahedral normals)
	dataType    uint8
	normalized  bool
	decoderType uint8
	vals        []int32
	// Quantization parameters (decoderType == seqQuantization).
	minVals []float32
	rng     float32
	bits    int
}

// input is a validated mesh: compacted vertices, non-degenerate faces and
// portable attributes.
type input struct {
	numPoints int
	faces     [][3]uint32
	atts      []portable
	pos       int // index of the position attribute in atts
	// posID maps each point to the first point with bit-identical position,
	// the vertex identity of Edgebreaker connectivity.
	posID []int32
}

// prepare validates m, drops degenerate triangles and unreferenced vertices,
// and quantizes float attributes.
func prepare(m *Mesh, opts Options) (*input, error) {
	if m == nil || len(m.Attributes) == 0 {
		return nil, fmt.Errorf("draco: no attributes: %w", ErrInvalidMesh)
	}
	if len(m.Attributes) > 255 {
		return nil, fmt.Errorf("draco: %d attributes: %w", len(m.Attributes), ErrTooLarge)
	}
	nv, pos, err := vertexCount(m)
	if err != nil {
		return nil, err
	}
	if len(m.Indices)%3 != 0 {
		return nil, fmt.Errorf("draco: %d indices, not a multiple of 3: %w", len(m.Indices), ErrInvalidMesh)
	}
	if len(m.Indices)/3 > MaxTriangles {
		return nil, fmt.Errorf("draco: %d triangles: %w", len(m.Indices)/3, ErrTooLarge)
	}
	faces, kept, err := compact(m.Indices, nv)
	if err != nil {
		return nil, err
	}
	in := &input{numPoints: len(kept), faces: faces, pos: pos, atts: make([]portable, len(m.Attributes))}
	in.posID = positionIDs(m.Attributes[pos].Data, kept)
	for i := range m.Attributes {
		p, err := toPortable(&m.Attributes[i], kept, opts)
		if err != nil {
			return nil, fmt.Errorf("draco: attribute %d: %w", i, err)
		}
		p.uniqueID = uint32(i)
		in.atts[i] = p
	}
	return in, nil
}

// compact drops triangles with a repeated index and renumbers the
// referenced vertices in input order; kept lists the input vertex of each.
func compact(indices []uint32, nv int) (faces [][3]uint32, kept []int, err error) {
	faces = make([][3]uint32, 0, len(indices)/3)
	for t := 0; t < len(indices); t += 3 {
		a, b, c := indices[t], indices[t+1], indices[t+2]
		if a >= uint32(nv) || b >= uint32(nv) || c >= uint32(nv) {
			return nil, nil, fmt.Errorf("draco: triangle %d (%d %d %d) with %d vertices: %w", t/3, a, b, c, nv, ErrIndexRange)
		}
		if a == b || b == c || a == c {
			continue
		}
		faces = append(faces, [3]uint32{a, b, c})
	}
	if len(faces) == 0 {
		return nil, nil, fmt.Errorf("draco: no non-degenerate triangles: %w", ErrEmptyMesh)
	}
	remap := make([]int32, nv)
	for i := range remap {
		remap[i] = -1
	}
	for _, f := range faces {
		for _, v := range f {
			remap[v] = 0
		}
	}
	kept = make([]int, 0, nv)
	for v := range remap {
		if remap[v] == 0 {
			remap[v] = int32(len(kept))
			kept = append(kept, v)
		}
	}
	for i := range faces {
		for j := range faces[i] {
			faces[i][j] = uint32(remap[faces[i][j]])
		}
	}
	return faces, kept, nil
}

// vertexCount checks attribute shapes and returns the common vertex count
// and the index of the position attribute.
func vertexCount(m *Mesh) (nv, pos int, err error) {
	pos, nv = -1, -1
	for i := range m.Attributes {
		a := &m.Attributes[i]
		if a.Kind > Generic {
			return 0, 0, fmt.Errorf("draco: attribute %d: kind %d: %w", i, a.Kind, ErrInvalidMesh)
		}
		if a.Components < 1 || a.Components > maxComponents {
			return 0, 0, fmt.Errorf("draco: attribute %d: %d components: %w", i, a.Components, ErrInvalidMesh)
		}
		n, set := 0, 0
		for _, l := range []int{len(a.Data), len(a.U8), len(a.U16), len(a.U32)} {
			if l > 0 {
				n, set = l, set+1
			}
		}
		if set != 1 || n%a.Components != 0 {
			return 0, 0, fmt.Errorf("draco: attribute %d: need exactly one data slice with a multiple of %d values: %w", i, a.Components, ErrInvalidMesh)
		}
		if nv >= 0 && n/a.Components != nv {
			return 0, 0, fmt.Errorf("draco: attribute %d has %d vertices, want %d: %w", i, n/a.Components, nv, ErrInvalidMesh)
		}
		nv = n / a.Components
		if a.Kind == Position {
			if pos >= 0 || a.Components != 3 || a.Data == nil {
				return 0, 0, fmt.Errorf("draco: attribute %d: need one float position with 3 components: %w", i, ErrInvalidMesh)
			}
			pos = i
		}
	}
	if pos < 0 {
		return 0, 0, fmt.Errorf("draco: no position attribute: %w", ErrInvalidMesh)
	}
	if nv > MaxVertices {
		return 0, 0, fmt.Errorf("draco: %d vertices: %w", nv, ErrTooLarge)
	}
	return nv, pos, nil
}

// toPortable converts the kept vertices of a to Draco's integer values.
func toPortable(a *Attribute, kept []int, opts Options) (portable, error) {
	c := a.Components
	p := portable{kind: a.Kind, comps: c, vcomps: c, normalized: a.Normalized, decoderType: seqInteger}
	p.vals = make([]int32, 0, len(kept)*c)
	var lo, hi int64 = math.MaxInt64, math.MinInt64
	appendInt := func(v int64) {
		lo, hi = min(lo, v), max(hi, v)
		p.vals = append(p.vals, int32(v))
	}
	switch {
	case a.Data != nil:
		return quantize(a, kept, opts)
	case a.U8 != nil:
		p.dataType = dtUint8
		for _, v := range kept {
			for _, x := range a.U8[v*c : v*c+c] {
				appendInt(int64(x))
			}
		}
	case a.U16 != nil:
		p.dataType = dtUint16
		for _, v := range kept {
			for _, x := range a.U16[v*c : v*c+c] {
				appendInt(int64(x))
			}
		}
	default:
		p.dataType = dtUint32
		for _, v := range kept {
			for _, x := range a.U32[v*c : v*c+c] {
				appendInt(int64(int32(x)))
			}
		}
	}
	if hi-lo >= math.MaxInt32 {
		return p, fmt.Errorf("integer range %d..%d too wide for wrap prediction: %w", lo, hi, ErrOption)
	}
	return p, nil
}

// quantize maps float values to 0..2^bits-1 over a common range like Draco's
// AttributeQuantizationTransform: q = round((v-min)*(2^bits-1)/range), and
// the decoder computes v = q*(range/(2^bits-1)) + min in float32.
func quantize(a *Attribute, kept []int, opts Options) (portable, error) {
	c := a.Components
	bits := a.QuantBits
	if bits == 0 {
		bits = opts.bitsFor(a.Kind)
	}
	if bits < 1 || bits > 30 {
		return portable{}, fmt.Errorf("QuantBits=%d not in 1..30: %w", bits, ErrOption)
	}
	if a.Kind == Normal && c == 3 {
		return octahedral(a, kept, bits)
	}
	p := portable{kind: a.Kind, comps: c, vcomps: c, dataType: dtFloat32, decoderType: seqQuantization, bits: bits}
	p.minVals = make([]float32, c)
	maxVals := make([]float32, c)
	for j := 0; j < c; j++ {
		p.minVals[j], maxVals[j] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	for _, v := range kept {
		for j, x := range a.Data[v*c : v*c+c] {
			if !isFinite(x) {
				return p, fmt.Errorf("vertex %d: %w", v, ErrNonFinite)
			}
			p.minVals[j], maxVals[j] = min(p.minVals[j], x), max(maxVals[j], x)
		}
	}
	for j := 0; j < c; j++ {
		p.rng = max(p.rng, maxVals[j]-p.minVals[j])
	}
	if p.rng == 0 || !isFinite(p.rng) {
		if !isFinite(p.rng) {
			return p, fmt.Errorf("value range overflows float32: %w", ErrNonFinite)
		}
		p.rng = 1
	}
	maxQ := float64(int64(1)<<uint(bits) - 1)
	scale := maxQ / float64(p.rng)
	p.vals = make([]int32, 0, len(kept)*c)
	for _, v := range kept {
		for j, x := range a.Data[v*c : v*c+c] {
			q := math.Floor((float64(x)-float64(p.minVals[j]))*scale + 0.5)
			p.vals = append(p.vals, int32(min(max(q, 0), maxQ)))
		}
	}
	return p, nil
}

// positionIDs maps every kept vertex to the first kept vertex with the same
// position (float equality per component: +0 and -0 are the same, a NaN
// matches nothing). It hashes into an open-addressing table of int32
// slots: a Go map with [3]float32 keys cost a tenth of a plantcover
// tile's encoding.
func positionIDs(pos []float32, kept []int) []int32 {
	ids := make([]int32, len(kept))
	shift := 63
	for 1<<(64-shift) < 2*len(kept) {
		shift--
	}
	slots := make([]int32, 1<<(64-shift)) // 1 + the kept vertex, 0 when free
	mask := uint64(len(slots) - 1)
	key := func(v int) (k [3]uint32, ok bool) {
		for j, x := range pos[3*v : 3*v+3] {
			if x != x {
				return k, false
			}
			if x == 0 {
				x = 0 // -0 is +0
			}
			k[j] = math.Float32bits(x)
		}
		return k, true
	}
	for i, v := range kept {
		ids[i] = int32(i)
		k, ok := key(v)
		if !ok {
			continue
		}
		h := (uint64(k[0])<<32 | uint64(k[1])) * 0x9E3779B97F4A7C15
		h = (h ^ h>>29 ^ uint64(k[2])) * 0xC2B2AE3D27D4EB4F
		for j := h >> shift; ; j = (j + 1) & mask {
			s := slots[j]
			if s == 0 {
				slots[j] = int32(i) + 1
				break
			}
			if o, _ := key(kept[s-1]); o == k {
				ids[i] = s - 1
				break
			}
		}
	}
	return ids
}

// decodedBounds returns the per-component bounds of the values a decoder
// reconstructs from a quantized 3-component attribute: q*delta + min in
// float32, delta = range/(2^bits-1), like Draco's Dequantizer.
func (p *portable) decodedBounds() (lo, hi [3]float32) {
	delta := p.rng / float32(int64(1)<<uint(p.bits)-1)
	for c := 0; c < 3; c++ {
		lo[c], hi[c] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	for i := 0; i+3 <= len(p.vals); i += 3 {
		for c := 0; c < 3; c++ {
			// The conversion keeps the product from fusing into an FMA.
			v := float32(float32(p.vals[i+c])*delta) + p.minVals[c]
			lo[c], hi[c] = min(lo[c], v), max(hi[c], v)
		}
	}
	return lo, hi
}
