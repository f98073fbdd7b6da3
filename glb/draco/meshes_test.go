package draco

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Deterministic test meshes.

// cubeMesh is a closed unit cube with 8 shared vertices.
func cubeMesh() *Mesh {
	pos := []float32{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1}
	idx := []uint32{
		0, 2, 1, 0, 3, 2, // bottom
		4, 5, 6, 4, 6, 7, // top
		0, 1, 5, 0, 5, 4, // front
		1, 2, 6, 1, 6, 5, // right
		2, 3, 7, 2, 7, 6, // back
		3, 0, 4, 3, 4, 7, // left
	}
	return &Mesh{Indices: idx, Attributes: []Attribute{{Kind: Position, Components: 3, Data: pos}}}
}

// gridMesh is an n x n terrain grid with 1 m spacing and smooth heights,
// like an RTIN tile at full resolution.
func gridMesh(n int) *Mesh {
	pos := make([]float32, 0, 3*n*n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			h := 40 + 8*math.Sin(float64(x)/17) + 5*math.Cos(float64(y)/11) + 0.7*math.Sin(float64(x*y)/90)
			pos = append(pos, float32(x), float32(y), float32(h))
		}
	}
	idx := make([]uint32, 0, 6*(n-1)*(n-1))
	for y := 0; y+1 < n; y++ {
		for x := 0; x+1 < n; x++ {
			a := uint32(y*n + x)
			b, c, d := a+1, a+uint32(n), a+uint32(n)+1
			idx = append(idx, a, b, d, a, d, c)
		}
	}
	return &Mesh{Indices: idx, Attributes: []Attribute{{Kind: Position, Components: 3, Data: pos}}}
}

// positionsOnly drops every attribute but the position (duplicated
// vertices stay duplicated).
func positionsOnly(m *Mesh) *Mesh {
	return &Mesh{Indices: m.Indices, Attributes: m.Attributes[:1]}
}

// integerGrid is gridMesh with whole-metre heights, so every coordinate is
// exact in float32 even at 30-bit quantization.
func integerGrid(n int) *Mesh {
	m := gridMesh(n)
	d := slices.Clone(m.Attributes[0].Data)
	for i := 2; i < len(d); i += 3 {
		d[i] = float32(math.Round(float64(d[i])))
	}
	m.Attributes[0].Data = d
	return m
}

// meshBuilder accumulates vertices with position, normal and feature id.
type meshBuilder struct {
	pos, nrm []float32
	fid      []uint32
	idx      []uint32
}

func (b *meshBuilder) vertex(p, n [3]float32, fid uint32) uint32 {
	b.pos = append(b.pos, p[:]...)
	b.nrm = append(b.nrm, n[:]...)
	b.fid = append(b.fid, fid)
	return uint32(len(b.fid) - 1)
}

func (b *meshBuilder) mesh(withNormals, withIDs bool) *Mesh {
	m := &Mesh{Indices: b.idx, Attributes: []Attribute{{Kind: Position, Components: 3, Data: b.pos}}}
	if withNormals {
		m.Attributes = append(m.Attributes, Attribute{Kind: Normal, Components: 3, Data: b.nrm})
	}
	if withIDs {
		m.Attributes = append(m.Attributes, Attribute{Kind: Generic, Components: 1, U32: b.fid})
	}
	return m
}

// buildingsMesh is a block of extruded prisms (LoD1/LoD2-like buildings)
// with flat normals: walls, floor and roof each have their own vertices.
func buildingsMesh(count int, seed uint64) *Mesh {
	r := rand.New(rand.NewPCG(seed, 7))
	var b meshBuilder
	for k := 0; k < count; k++ {
		cx, cy := float32(k%8)*30+r.Float32()*5, float32(k/8)*30+r.Float32()*5
		nside := 4 + r.IntN(5)
		h := 6 + r.Float32()*20
		ring := make([][2]float32, nside)
		for i := range ring {
			a := 2 * math.Pi * float64(i) / float64(nside)
			rad := 6 + r.Float32()*4
			ring[i] = [2]float32{cx + rad*float32(math.Cos(a)), cy + rad*float32(math.Sin(a))}
		}
		fid := uint32(1000 + k)
		for i := range ring {
			p, q := ring[i], ring[(i+1)%nside]
			n := normalize([3]float32{q[1] - p[1], p[0] - q[0], 0})
			v0 := b.vertex([3]float32{p[0], p[1], 0}, n, fid)
			v1 := b.vertex([3]float32{q[0], q[1], 0}, n, fid)
			v2 := b.vertex([3]float32{q[0], q[1], h}, n, fid)
			v3 := b.vertex([3]float32{p[0], p[1], h}, n, fid)
			b.idx = append(b.idx, v0, v1, v2, v0, v2, v3)
		}
		for _, top := range []bool{false, true} {
			z, n := float32(0), [3]float32{0, 0, -1}
			if top {
				z, n = h, [3]float32{0, 0, 1}
			}
			first := uint32(len(b.fid))
			for _, p := range ring {
				b.vertex([3]float32{p[0], p[1], z}, n, fid)
			}
			for i := 1; i+1 < nside; i++ {
				if top {
					b.idx = append(b.idx, first, first+uint32(i), first+uint32(i+1))
				} else {
					b.idx = append(b.idx, first, first+uint32(i+1), first+uint32(i))
				}
			}
		}
	}
	return b.mesh(true, true)
}

func normalize(v [3]float32) [3]float32 {
	l := float32(math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])))
	return [3]float32{v[0] / l, v[1] / l, v[2] / l}
}

// componentsMesh is several disconnected closed spheres and open grids.
func componentsMesh() *Mesh {
	var b meshBuilder
	for k := 0; k < 5; k++ {
		off := [3]float32{float32(k) * 3, 0, 0}
		sphere(&b, off, 1, 8+k, 12, uint32(k))
	}
	for k := 0; k < 3; k++ {
		first := uint32(len(b.fid))
		n := 6
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				b.vertex([3]float32{float32(x) * 0.2, float32(y)*0.2 + 5, float32(k)}, [3]float32{0, 0, 1}, uint32(10+k))
			}
		}
		for y := 0; y+1 < n; y++ {
			for x := 0; x+1 < n; x++ {
				a := first + uint32(y*n+x)
				b.idx = append(b.idx, a, a+1, a+uint32(n)+1, a, a+uint32(n)+1, a+uint32(n))
			}
		}
	}
	m := b.mesh(true, false)
	// RGBA colours per component, as 8-bit normalized integers.
	col := make([]uint8, 0, 4*len(b.fid))
	for _, id := range b.fid {
		col = append(col, uint8(40*id), uint8(255-30*id), 128, 255)
	}
	m.Attributes = append(m.Attributes, Attribute{Kind: Color, Components: 4, U8: col, Normalized: true})
	return m
}

// nonManifoldMesh has an edge shared by three triangles, two tetrahedra
// touching in one vertex and a triangle with flipped orientation.
func nonManifoldMesh() *Mesh {
	pos := []float32{
		0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0, 0.5, 0, 1, // book: edge 0-1 shared by 3
		3, 0, 0, 4, 0, 0, 3.5, 1, 0, 3.5, 0.5, 1, // tetra A, apex 8
		3.5, 0.5, 2, 4.5, 0.5, 2, 4, 1.5, 2, // tetra B shares vertex 8
		6, 0, 0, 7, 0, 0, 6.5, 1, 0, 6.5, -1, 0, // flipped pair
	}
	idx := []uint32{
		0, 1, 2, 1, 0, 3, 0, 1, 4,
		5, 7, 6, 5, 6, 8, 6, 7, 8, 7, 5, 8,
		8, 9, 10, 9, 11, 10, 10, 11, 8, 11, 9, 8,
		12, 13, 14, 12, 13, 15,
	}
	return &Mesh{Indices: idx, Attributes: []Attribute{{Kind: Position, Components: 3, Data: pos}}}
}

// sphere adds a UV sphere with shared poles and smooth normals.
func sphere(b *meshBuilder, off [3]float32, rad float32, rings, segs int, fid uint32) {
	top := b.vertex([3]float32{off[0], off[1], off[2] + rad}, [3]float32{0, 0, 1}, fid)
	first := uint32(len(b.fid))
	for i := 1; i < rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		for j := 0; j < segs; j++ {
			ph := 2 * math.Pi * float64(j) / float64(segs)
			n := [3]float32{float32(math.Sin(th) * math.Cos(ph)), float32(math.Sin(th) * math.Sin(ph)), float32(math.Cos(th))}
			b.vertex([3]float32{off[0] + rad*n[0], off[1] + rad*n[1], off[2] + rad*n[2]}, n, fid)
		}
	}
	bot := b.vertex([3]float32{off[0], off[1], off[2] - rad}, [3]float32{0, 0, -1}, fid)
	at := func(i, j int) uint32 { return first + uint32((i-1)*segs+(j%segs)) }
	for j := 0; j < segs; j++ {
		b.idx = append(b.idx, top, at(1, j), at(1, j+1))
		b.idx = append(b.idx, bot, at(rings-1, j+1), at(rings-1, j))
	}
	for i := 1; i+1 < rings; i++ {
		for j := 0; j < segs; j++ {
			b.idx = append(b.idx, at(i, j), at(i+1, j), at(i+1, j+1), at(i, j), at(i+1, j+1), at(i, j+1))
		}
	}
}

// seamMesh is a cylinder whose texture coordinates wrap: the seam column
// has the same positions twice with u=0 and u=1.
func seamMesh() *Mesh {
	const rings, segs = 6, 16
	var pos, uv []float32
	for i := 0; i <= rings; i++ {
		for j := 0; j <= segs; j++ {
			a := 2 * math.Pi * float64(j%segs) / segs
			pos = append(pos, float32(math.Cos(a)), float32(math.Sin(a)), float32(i)*0.5)
			uv = append(uv, float32(j)/segs, float32(i)/rings)
		}
	}
	var idx []uint32
	for i := 0; i < rings; i++ {
		for j := 0; j < segs; j++ {
			a := uint32(i*(segs+1) + j)
			b, c, d := a+1, a+segs+1, a+segs+2
			idx = append(idx, a, b, d, a, d, c)
		}
	}
	return &Mesh{Indices: idx, Attributes: []Attribute{
		{Kind: Position, Components: 3, Data: pos},
		{Kind: TexCoord, Components: 2, Data: uv},
	}}
}
