package qmesh

import (
	"encoding/binary"
	"math"
)

// mesh is one tile ready to encode: quantized u, v (0..32767 across the
// tile, v from the south), heights in metres (ellipsoidal), triangles
// counter-clockwise seen from above, and each vertex's ECEF position.
type mesh struct {
	u, v []uint16
	h    []float64
	tri  []uint32
	ecef [][3]float64
}

const (
	semiMajor = 6378137.0
	semiMinor = 6356752.314245179 // WGS84 (GRS80 differs by 0.1 mm)
)

// ecef returns the earth-centred position of lon, lat (degrees) at
// ellipsoidal height h.
func ecef(lon, lat, h float64) [3]float64 {
	e2 := 1 - semiMinor*semiMinor/(semiMajor*semiMajor)
	sl, cl := math.Sincos(lon * math.Pi / 180)
	sp, cp := math.Sincos(lat * math.Pi / 180)
	n := semiMajor / math.Sqrt(1-e2*sp*sp)
	return [3]float64{(n + h) * cp * cl, (n + h) * cp * sl, (n*(1-e2) + h) * sp}
}

// encode writes the quantized-mesh-1.0 tile: header, vertex data (zig-zag
// deltas), high-water-mark triangle indices, edge indices, and the
// oct-encoded normals extension when normals is set.
func encode(m *mesh, normals bool) []byte {
	nv := len(m.u)
	minH, maxH := math.Inf(1), math.Inf(-1)
	var lo, hi [3]float64
	for k := range 3 {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
	}
	for i, p := range m.ecef {
		minH, maxH = math.Min(minH, m.h[i]), math.Max(maxH, m.h[i])
		for k := range 3 {
			lo[k], hi[k] = math.Min(lo[k], p[k]), math.Max(hi[k], p[k])
		}
	}
	var center [3]float64
	for k := range 3 {
		center[k] = (lo[k] + hi[k]) / 2
	}
	radius := 0.0
	for _, p := range m.ecef {
		radius = math.Max(radius, dist(p, center))
	}
	b := make([]byte, 0, 88+4+6*nv+4+6*len(m.tri)+16+8*nv+5+2*nv)
	f64 := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	for _, v := range center {
		f64(v)
	}
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(minH)))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(maxH)))
	for _, v := range center {
		f64(v)
	}
	f64(radius)
	for _, v := range horizonPoint(m.ecef, center) {
		f64(v)
	}
	// Vertex data.
	b = binary.LittleEndian.AppendUint32(b, uint32(nv))
	zig := func(vals []uint16) {
		prev := 0
		for _, x := range vals {
			d := int(x) - prev
			prev = int(x)
			b = binary.LittleEndian.AppendUint16(b, uint16((d<<1)^(d>>31)))
		}
	}
	hq := make([]uint16, nv)
	span := maxH - minH
	for i, h := range m.h {
		if span > 0 {
			hq[i] = uint16(math.Round((h - minH) / span * 32767))
		}
	}
	zig(m.u)
	zig(m.v)
	zig(hq)
	// Index data (16-bit: a tile has at most 65 x 65 vertices; the vertex
	// data ends on an even offset, so no padding).
	wide := nv > 65536
	if wide {
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	idx := func(i uint32) {
		if wide {
			b = binary.LittleEndian.AppendUint32(b, i)
		} else {
			b = binary.LittleEndian.AppendUint16(b, uint16(i))
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.tri)/3))
	highest := uint32(0)
	for _, i := range m.tri {
		idx(highest - i)
		if i == highest {
			highest++
		}
	}
	// Edge indices: west and east sorted south to north, south and north
	// west to east.
	for _, edge := range edges(m) {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(edge)))
		for _, i := range edge {
			idx(i)
		}
	}
	if normals {
		b = append(b, 1) // extension id: oct-encoded per-vertex normals
		b = binary.LittleEndian.AppendUint32(b, uint32(2*nv))
		for _, n := range vertexNormals(m) {
			x, y := octEncode(n)
			b = append(b, x, y)
		}
	}
	return b
}

// edges lists the vertices on the west, south, east and north borders.
func edges(m *mesh) [4][]uint32 {
	var e [4][]uint32
	for i := range m.u {
		switch {
		case m.u[i] == 0:
			e[0] = append(e[0], uint32(i))
		case m.u[i] == 32767:
			e[2] = append(e[2], uint32(i))
		}
		switch {
		case m.v[i] == 0:
			e[1] = append(e[1], uint32(i))
		case m.v[i] == 32767:
			e[3] = append(e[3], uint32(i))
		}
	}
	sortBy := func(list []uint32, key []uint16) {
		for i := 1; i < len(list); i++ { // insertion sort: at most 65 entries
			for j := i; j > 0 && key[list[j]] < key[list[j-1]]; j-- {
				list[j], list[j-1] = list[j-1], list[j]
			}
		}
	}
	sortBy(e[0], m.v)
	sortBy(e[2], m.v)
	sortBy(e[1], m.u)
	sortBy(e[3], m.u)
	return e
}

// vertexNormals are the area-weighted face normals around each vertex, in
// ECEF, as the extension defines them.
func vertexNormals(m *mesh) [][3]float64 {
	out := make([][3]float64, len(m.u))
	for t := 0; t+2 < len(m.tri); t += 3 {
		a, b, c := m.ecef[m.tri[t]], m.ecef[m.tri[t+1]], m.ecef[m.tri[t+2]]
		n := cross(sub(b, a), sub(c, a))
		for _, i := range m.tri[t : t+3] {
			for k := range 3 {
				out[i][k] += n[k]
			}
		}
	}
	for i := range out {
		l := math.Sqrt(dot(out[i], out[i]))
		if l == 0 { // a vertex of degenerate triangles only: the ellipsoid normal
			p := m.ecef[i]
			out[i] = [3]float64{p[0] / (semiMajor * semiMajor), p[1] / (semiMajor * semiMajor), p[2] / (semiMinor * semiMinor)}
			l = math.Sqrt(dot(out[i], out[i]))
		}
		for k := range 3 {
			out[i][k] /= l
		}
	}
	return out
}

// octEncode maps a unit vector to two bytes (Cesium's AttributeCompression.octEncode, range 255).
func octEncode(n [3]float64) (byte, byte) {
	s := math.Abs(n[0]) + math.Abs(n[1]) + math.Abs(n[2])
	x, y := n[0]/s, n[1]/s
	if n[2] < 0 {
		x, y = (1-math.Abs(y))*signNotZero(x), (1-math.Abs(x))*signNotZero(y)
	}
	snorm := func(v float64) byte { return byte(math.Round((math.Max(-1, math.Min(1, v))*0.5 + 0.5) * 255)) }
	return snorm(x), snorm(y)
}

func signNotZero(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// horizonPoint is the horizon occlusion point in the ellipsoid-scaled space
// (Cesium's EllipsoidalOccluder.computeHorizonCullingPoint): the point
// along the direction of center from which every vertex is visible exactly
// when the point is.
//
// A tile spanning too much of the globe has none: a vertex whose angle from
// center plus its own horizon angle reaches 90° is not hidden by the
// ellipsoid from some viewpoints that hide every point of the ray (the
// level-0 hemispheres, whose edges lie on the horizon of their centre).
// CesiumJS then computes no point (undefined) and never horizon-culls the
// tile (CesiumGS/cesium#8487), but a tile header has to hold a number. It
// holds NaN: CesiumJS's test (EllipsoidalOccluder's
// isScaledSpacePointVisible) calls a point occluded only when two
// comparisons with it are true, and every comparison with NaN is false, so
// the tile is never culled, as CesiumJS does with an undefined point. The
// zero vector, written before, is the opposite: the centre of the earth is
// behind the horizon from every viewpoint, so CesiumJS culled both root
// tiles as soon as they loaded and never asked for a deeper one.
func horizonPoint(pts [][3]float64, center [3]float64) [3]float64 {
	none := [3]float64{math.NaN(), math.NaN(), math.NaN()}
	scale := [3]float64{1 / semiMajor, 1 / semiMajor, 1 / semiMinor}
	dir := [3]float64{center[0] * scale[0], center[1] * scale[1], center[2] * scale[2]}
	l := math.Sqrt(dot(dir, dir))
	if l == 0 || len(pts) == 0 {
		return none
	}
	for k := range 3 {
		dir[k] /= l
	}
	best := 0.0
	for _, p := range pts {
		ps := [3]float64{p[0] * scale[0], p[1] * scale[1], p[2] * scale[2]}
		mag2 := dot(ps, ps)
		mag := math.Sqrt(mag2)
		d := [3]float64{ps[0] / mag, ps[1] / mag, ps[2] / mag}
		mag2, mag = math.Max(1, mag2), math.Max(1, mag)
		cosA := dot(d, dir)
		c := cross(d, dir)
		sinA := math.Sqrt(dot(c, c))
		cosB := 1 / mag
		sinB := math.Sqrt(mag2-1) * cosB
		den := cosA*cosB - sinA*sinB
		if !(den > 0) { // on or below the horizon of every point of the ray
			return none
		}
		best = math.Max(best, 1/den)
	}
	if math.IsInf(best, 0) {
		return none
	}
	return [3]float64{dir[0] * best, dir[1] * best, dir[2] * best}
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func dist(a, b [3]float64) float64 { d := sub(a, b); return math.Sqrt(dot(d, d)) }
