package glb

import (
	"fmt"
	"math"

	"github.com/svc-geodata/svc/geo"
)

// material indexes the primitives of a mesh.
const (
	matWall = iota
	matRoof
	matGround
	numMats
)

// prim accumulates one primitive: positions and normals (x, y, z float32
// each), optional feature ids, and triangle indices.
type prim struct {
	pos, nrm []float32
	fid      []float32
	annual   []float32 // per vertex with Options.Solar (Solar.AnnualKWhM2 or NoDataSolar)
	share    []float32
	col      []uint8 // optional RGBA per vertex (COLOR_0, normalized)
	idx      []uint32
	weld     map[weldKey]uint32
}

type weldKey struct {
	x, y, z int64
	nx, ny  int16
	nz      int8
	fid     int32
	annual  uint32 // the solar values' bits with Options.Solar
	share   uint32
}

// group is one mesh: all buildings when merging, else one building.
type group struct {
	name  string
	prims [numMats]prim
}

// Builder accumulates buildings into meshes. It is not safe for concurrent
// use. Memory grows with the triangles added, capped by MaxVertices.
type Builder struct {
	o        Options
	rot      [9]float64 // row-major rotation (and Y-up swap)
	zone     geo.Zone
	lon0     float64
	mercY0   float64
	zScale   float64
	groups   []*group
	ids      []string
	bids     []int64
	attrs    []*Attrs
	zRef     float64 // z subtracted so far under ZBBoxMin
	zMin     float64 // lowest z seen under ZBBoxMin
	zRefSet  bool
	vertices int
	// solar is the value of the polygon being added (Options.Solar).
	solar *Solar
	// scratch
	tri []uint32
	vid []int32
	rel []int
}

// NewBuilder checks o and returns an empty builder. Errors wrap ErrOptions
// for non-finite numbers, a negative weld tolerance or unknown enums.
func NewBuilder(o Options) (*Builder, error) {
	for _, v := range []float64{o.OriginE, o.OriginN, o.RotateXDeg, o.RotateZDeg, o.WeldToleranceM} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: non-finite number", ErrOptions)
		}
	}
	if o.WeldToleranceM < 0 || o.ZBase > ZAbsolute || o.Frame > FrameMercator {
		return nil, fmt.Errorf("%w: weld tolerance, z base or frame out of range", ErrOptions)
	}
	if o.Solar && !o.Features {
		return nil, fmt.Errorf("%w: solar values need features", ErrOptions)
	}
	b := &Builder{o: o, zone: geo.Zone(o.Zone), zScale: 1, zMin: math.Inf(1)}
	if o.Frame == FrameMercator {
		if o.Zone < 1 || o.Zone > 60 {
			return nil, fmt.Errorf("%w: zone %d", ErrOptions, o.Zone)
		}
		lon, lat := geo.FromUTM(b.zone, o.OriginE, o.OriginN)
		b.lon0, b.mercY0 = lon*math.Pi/180, mercY(lat)
		b.zScale = 1 / math.Cos(lat*math.Pi/180)
	}
	b.rot = rotation(o.RotateXDeg, o.RotateZDeg, o.YUp)
	return b, nil
}

// rotation returns Rx(a) * Rz(c) (intrinsic X then Z, applied to column
// vectors), followed by the Z-up to Y-up swap when yUp is set.
func rotation(xDeg, zDeg float64, yUp bool) [9]float64 {
	sa, ca := math.Sincos(xDeg * math.Pi / 180)
	sc, cc := math.Sincos(zDeg * math.Pi / 180)
	rx := [9]float64{1, 0, 0, 0, ca, -sa, 0, sa, ca}
	rz := [9]float64{cc, -sc, 0, sc, cc, 0, 0, 0, 1}
	r := mul3(rx, rz)
	if yUp {
		r = mul3([9]float64{1, 0, 0, 0, 0, 1, 0, -1, 0}, r)
	}
	return r
}

func mul3(a, b [9]float64) [9]float64 {
	var c [9]float64
	for i := range 3 {
		for j := range 3 {
			c[3*i+j] = a[3*i]*b[j] + a[3*i+1]*b[3+j] + a[3*i+2]*b[6+j]
		}
	}
	return c
}

const earthR = 6378137.0

func mercY(latDeg float64) float64 {
	return math.Log(math.Tan(math.Pi/4 + latDeg*math.Pi/360))
}

// Buildings returns the number of buildings added that produced triangles.
func (b *Builder) Buildings() int { return len(b.ids) }

// Add triangulates a building and appends it. Surfaces are wound outward:
// roofs face up, ground surfaces down, walls away from the building's
// centre. A building without any triangle is skipped (false). Errors wrap
// ErrGeometry or ErrTooLarge.
func (b *Builder) Add(bd *Building) (bool, error) {
	zBase, cx, cy, ok := b.stats(bd)
	if !ok {
		return false, nil
	}
	fid := float32(len(b.ids))
	g := b.groupFor(bd.GMLID)
	added := false
	for si := range bd.Surfaces {
		s := &bd.Surfaces[si]
		if s.Class == ClassGround && !b.o.IncludeGround {
			continue
		}
		m := matWall
		if b.o.ColorizeRoofs {
			switch s.Class {
			case ClassRoof:
				m = matRoof
			case ClassGround:
				m = matGround
			}
		}
		start := 0
		for part, ends := range s.Ends {
			if len(ends) == 0 {
				continue
			}
			b.solar = nil
			if b.o.Solar && part < len(s.Solar) {
				b.solar = s.Solar[part]
			}
			n, err := b.addPolygon(&g.prims[m], s.Class, s.Flat, start, ends, zBase, cx, cy, fid)
			start = ends[len(ends)-1]
			if err != nil {
				return false, err
			}
			added = added || n > 0
		}
	}
	if !added {
		if !b.o.MergeBuildings {
			b.groups = b.groups[:len(b.groups)-1]
		}
		return false, nil
	}
	b.ids = append(b.ids, bd.GMLID)
	b.bids = append(b.bids, bd.BuildingID)
	b.attrs = append(b.attrs, bd.Attrs)
	return true, nil
}

// stats returns the z subtracted for the building and its mean x, y.
func (b *Builder) stats(bd *Building) (zBase, cx, cy float64, ok bool) {
	zmin, n := math.Inf(1), 0
	for _, s := range bd.Surfaces {
		for i := 0; i+2 < len(s.Flat); i += 3 {
			cx, cy = cx+s.Flat[i], cy+s.Flat[i+1]
			zmin = math.Min(zmin, s.Flat[i+2])
			n++
		}
	}
	if n == 0 || math.IsNaN(zmin) || math.IsInf(zmin, 0) {
		return 0, 0, 0, false
	}
	cx, cy = cx/float64(n), cy/float64(n)
	switch b.o.ZBase {
	case ZPerBuilding:
		zBase = zmin
	case ZBBoxMin:
		if !b.zRefSet {
			b.zRef, b.zRefSet = zmin, true
		}
		b.zMin = math.Min(b.zMin, zmin)
		zBase = b.zRef
	}
	return zBase, cx, cy, true
}

func (b *Builder) groupFor(name string) *group {
	if b.o.MergeBuildings && len(b.groups) > 0 {
		return b.groups[0]
	}
	g := &group{name: name}
	if b.o.MergeBuildings {
		g.name = "buildings"
	}
	b.groups = append(b.groups, g)
	return g
}

// addPolygon triangulates one polygon (ring ends into flat) and appends its
// vertices and triangles to p, returning the number of triangles.
func (b *Builder) addPolygon(p *prim, class int, flat []float64, start int, ends []int, zBase, cx, cy float64, fid float32) (int, error) {
	if start < 0 || start > ends[0] || ends[len(ends)-1] > len(flat) {
		return 0, fmt.Errorf("%w: ring ends out of range", ErrGeometry)
	}
	b.rel = b.rel[:0]
	for _, e := range ends {
		b.rel = append(b.rel, e-start)
	}
	sub := flat[start:ends[len(ends)-1]]
	nrm := Newell(sub[:b.rel[0]])
	l := math.Sqrt(nrm[0]*nrm[0] + nrm[1]*nrm[1] + nrm[2]*nrm[2])
	if l == 0 || math.IsNaN(l) {
		return 0, nil
	}
	nrm = [3]float64{nrm[0] / l, nrm[1] / l, nrm[2] / l}
	var err error
	if b.tri, err = Triangulate(sub, b.rel, b.tri[:0]); err != nil {
		return 0, err
	}
	if len(b.tri) == 0 {
		return 0, nil
	}
	flip := b.flip(class, nrm, sub[:b.rel[0]], cx, cy)
	if flip {
		nrm = [3]float64{-nrm[0], -nrm[1], -nrm[2]}
	}
	if b.vertices+len(b.tri) > MaxVertices {
		return 0, fmt.Errorf("%w: more than %d vertices", ErrTooLarge, MaxVertices)
	}
	np := len(sub) / 3
	if cap(b.vid) < np {
		b.vid = make([]int32, np)
	}
	vid := b.vid[:np]
	for i := range vid {
		vid[i] = -1
	}
	rn := b.apply(nrm)
	for t := 0; t+2 < len(b.tri); t += 3 {
		a, c := b.tri[t], b.tri[t+2]
		if flip {
			a, c = c, a
		}
		tri := [3]uint32{a, b.tri[t+1], c}
		var out [3]uint32
		for k, pi := range tri {
			if vid[pi] < 0 {
				vid[pi] = int32(b.vertex(p, sub[3*pi:3*pi+3], zBase, rn, fid))
			}
			out[k] = uint32(vid[pi])
		}
		if out[0] == out[1] || out[1] == out[2] || out[0] == out[2] {
			continue // collapsed by welding
		}
		p.idx = append(p.idx, out[:]...)
	}
	return len(b.tri) / 3, nil
}

// flip reports whether a polygon with normal n must be reversed to face
// outward.
func (b *Builder) flip(class int, n [3]float64, ring []float64, cx, cy float64) bool {
	switch class {
	case ClassRoof:
		return n[2] < 0
	case ClassGround:
		return n[2] > 0
	}
	var px, py float64
	k := len(ring) / 3
	for i := range k {
		px, py = px+ring[3*i], py+ring[3*i+1]
	}
	dx, dy := px/float64(k)-cx, py/float64(k)-cy
	return n[0]*dx+n[1]*dy < 0
}

// apply rotates a direction.
func (b *Builder) apply(v [3]float64) [3]float64 {
	r := &b.rot
	return [3]float64{r[0]*v[0] + r[1]*v[1] + r[2]*v[2], r[3]*v[0] + r[4]*v[1] + r[5]*v[2], r[6]*v[0] + r[7]*v[1] + r[8]*v[2]}
}

// local maps an input point to the output frame before rotation.
func (b *Builder) local(x, y, z, zBase float64) [3]float64 {
	if b.o.Frame == FrameMercator {
		lon, lat := geo.FromUTM(b.zone, x, y)
		return [3]float64{earthR * (lon*math.Pi/180 - b.lon0), earthR * (mercY(lat) - b.mercY0), (z - zBase) * b.zScale}
	}
	return [3]float64{x - b.o.OriginE, y - b.o.OriginN, z - zBase}
}

// vertex appends (or finds, when welding) a vertex and returns its index.
func (b *Builder) vertex(p *prim, pt []float64, zBase float64, n [3]float64, fid float32) uint32 {
	v := b.apply(b.local(pt[0], pt[1], pt[2], zBase))
	if tol := b.o.WeldToleranceM; tol > 0 {
		k := weldKey{x: int64(math.Round(v[0] / tol)), y: int64(math.Round(v[1] / tol)), z: int64(math.Round(v[2] / tol)),
			nx: int16(math.Round(n[0] * 1000)), ny: int16(math.Round(n[1] * 1000)), nz: int8(math.Round(n[2] * 100))}
		if b.o.Features {
			k.fid = int32(fid)
		}
		if b.o.Solar {
			a, sh := solarValues(b.solar)
			k.annual, k.share = math.Float32bits(a), math.Float32bits(sh)
		}
		if p.weld == nil {
			p.weld = map[weldKey]uint32{}
		}
		if i, ok := p.weld[k]; ok {
			return i
		}
		p.weld[k] = uint32(len(p.pos) / 3)
	}
	p.pos = append(p.pos, float32(v[0]), float32(v[1]), float32(v[2]))
	p.nrm = append(p.nrm, float32(n[0]), float32(n[1]), float32(n[2]))
	if b.o.Features {
		p.fid = append(p.fid, fid)
	}
	if b.o.Solar {
		a, sh := solarValues(b.solar)
		p.annual, p.share = append(p.annual, a), append(p.share, sh)
	}
	b.vertices++
	return uint32(len(p.pos)/3 - 1)
}

// finish applies the final z shift of ZBBoxMin: everything was stored
// relative to the first building's lowest point.
func (b *Builder) finish() {
	if b.o.ZBase != ZBBoxMin || !b.zRefSet || b.zMin == b.zRef {
		return
	}
	dz := b.zRef - b.zMin
	if b.o.Frame == FrameMercator {
		dz *= b.zScale
	}
	t := b.apply([3]float64{0, 0, dz})
	for _, g := range b.groups {
		for m := range g.prims {
			pos := g.prims[m].pos
			for i := 0; i+2 < len(pos); i += 3 {
				pos[i] = float32(float64(pos[i]) + t[0])
				pos[i+1] = float32(float64(pos[i+1]) + t[1])
				pos[i+2] = float32(float64(pos[i+2]) + t[2])
			}
		}
	}
	b.zRef = b.zMin
}
