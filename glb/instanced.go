package glb

import (
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// extInstancing is the glTF extension of GPU instancing
// (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Vendor/EXT_mesh_gpu_instancing).
const extInstancing = "EXT_mesh_gpu_instancing"

// MaxInstances caps the trees of one TreesGLB call.
const MaxInstances = 1 << 20

// Tree is one instance of the tree model: Pos is the foot of the trunk in
// glTF's Y-up frame (x east, y up, z south; metres relative to the tile
// origin), HeightM the total height and CrownRadiusM the horizontal crown
// radius, both metres and positive.
type Tree struct {
	Pos          [3]float32
	HeightM      float32
	CrownRadiusM float32
}

// Tree model: a unit tree 1 m high with a crown of radius 1 m. The trunk
// reaches the crown base at 30 % of the height (the crown base of SPEC 2.10
// is 25 % of the crown height); the crown is an ellipsoid from 0.3 to 1.
const (
	trunkTop    = 0.3
	trunkRadius = 0.07
	crownMid    = 0.65
	crownHalf   = 0.35
	crownSegs   = 8 // around
	crownRings  = 5 // pole to pole
)

// Colours (linear RGBA) of the tree model's two materials.
var (
	trunkColor = [4]float64{0.30, 0.20, 0.12, 1}
	crownColor = [4]float64{0.16, 0.36, 0.12, 1}
)

// TreesGLB encodes trees as a GLB (glTF 2.0) whose single node instances a
// simple tree model (a hexagonal trunk and an ellipsoid crown, two
// primitives) with EXT_mesh_gpu_instancing: per instance a TRANSLATION
// (the foot of the trunk) and a SCALE (crown radius, height, crown radius),
// so one mesh draws every tree of a tile. The extension is required: a
// viewer without it would draw one tree. Errors wrap ErrGeometry (no
// trees, a non-finite or non-positive size) or ErrTooLarge (more than
// MaxInstances).
func TreesGLB(trees []Tree, copyright string) ([]byte, error) {
	if len(trees) == 0 {
		return nil, fmt.Errorf("%w: no trees", ErrGeometry)
	}
	if len(trees) > MaxInstances {
		return nil, fmt.Errorf("%w: %d trees exceed %d", ErrTooLarge, len(trees), MaxInstances)
	}
	tr := make([]float32, 0, 3*len(trees))
	sc := make([]float32, 0, 3*len(trees))
	for _, t := range trees {
		for _, v := range []float32{t.Pos[0], t.Pos[1], t.Pos[2], t.HeightM, t.CrownRadiusM} {
			if !isFinite32(v) {
				return nil, fmt.Errorf("%w: non-finite tree", ErrGeometry)
			}
		}
		if t.HeightM <= 0 || t.CrownRadiusM <= 0 {
			return nil, fmt.Errorf("%w: tree of height %g m, crown radius %g m", ErrGeometry, t.HeightM, t.CrownRadiusM)
		}
		tr = append(tr, t.Pos[:]...)
		sc = append(sc, t.CrownRadiusM, t.HeightM, t.CrownRadiusM)
	}
	d := &doc{Document: &gltf.Document{Asset: gltf.Asset{Version: "2.0", Generator: "svc glb", Copyright: copyright}, Scene: gltf.Index(0)}}
	mesh := &gltf.Mesh{Name: "tree"}
	for i, part := range []struct {
		name  string
		color [4]float64
		p     prim
	}{{"trunk", trunkColor, trunkPrim()}, {"crown", crownColor, crownPrim()}} {
		c := part.color
		d.Materials = append(d.Materials, &gltf.Material{Name: part.name, PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
			BaseColorFactor: &c, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(1)}})
		p, err := d.primitive(&part.p, false, false, 0)
		if err != nil {
			return nil, err
		}
		p.Material = gltf.Index(i)
		mesh.Primitives = append(mesh.Primitives, p)
	}
	d.Meshes = []*gltf.Mesh{mesh}
	lo, hi := minMax(tr)
	ta := d.accessor(&gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: len(trees),
		Min: lo, Max: hi, BufferView: gltf.Index(d.view(f32Bytes(tr), gltf.TargetNone, 4))})
	sa := d.accessor(&gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: len(trees),
		BufferView: gltf.Index(d.view(f32Bytes(sc), gltf.TargetNone, 4))})
	d.Nodes = []*gltf.Node{{Name: "trees", Mesh: gltf.Index(0), Extensions: gltf.Extensions{
		extInstancing: map[string]any{"attributes": map[string]any{"TRANSLATION": ta, "SCALE": sa}}}}}
	d.Scenes = []*gltf.Scene{{Name: "trees", Nodes: []int{0}}}
	d.ExtensionsUsed = []string{extInstancing}
	d.ExtensionsRequired = []string{extInstancing}
	return d.finish()
}

func isFinite32(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// trunkPrim is a hexagonal prism from y=0 to trunkTop with flat side
// normals (no caps: the crown hides the top, the ground the bottom).
func trunkPrim() prim {
	var p prim
	for k := range 6 {
		a0, a1 := float64(k)*math.Pi/3, float64(k+1)*math.Pi/3
		nx, nz := math.Cos((a0+a1)/2), math.Sin((a0+a1)/2)
		base := uint32(len(p.pos) / 3)
		for _, v := range [][2]float64{{a0, 0}, {a1, 0}, {a1, trunkTop}, {a0, trunkTop}} {
			p.pos = append(p.pos, float32(trunkRadius*math.Cos(v[0])), float32(v[1]), float32(trunkRadius*math.Sin(v[0])))
			p.nrm = append(p.nrm, float32(nx), 0, float32(nz))
		}
		// Angles grow from +x towards +z, which is clockwise seen from
		// outside in a right-handed Y-up frame: wind 0-2-1, 0-3-2.
		p.idx = append(p.idx, base, base+2, base+1, base, base+3, base+2)
	}
	return p
}

// crownPrim is an ellipsoid of radius 1 around (0, crownMid, 0) with
// vertical half-axis crownHalf, as a UV sphere with smooth normals.
func crownPrim() prim {
	var p prim
	for r := 0; r <= crownRings; r++ {
		phi := math.Pi * float64(r) / crownRings // 0 at the top
		sp, cp := math.Sincos(phi)
		for s := 0; s <= crownSegs; s++ {
			th := 2 * math.Pi * float64(s) / crownSegs
			st, ct := math.Sincos(th)
			x, y, z := sp*ct, cp, sp*st
			p.pos = append(p.pos, float32(x), float32(crownMid+crownHalf*y), float32(z))
			// Normal of the ellipsoid x^2 + (y/h)^2 + z^2 = 1.
			nx, ny, nz := x, y/crownHalf, z
			l := math.Sqrt(nx*nx + ny*ny + nz*nz)
			p.nrm = append(p.nrm, float32(nx/l), float32(ny/l), float32(nz/l))
		}
	}
	row := uint32(crownSegs + 1)
	for r := range uint32(crownRings) {
		for s := range uint32(crownSegs) {
			a, b := r*row+s, r*row+s+1
			c, e := a+row, b+row
			if r > 0 {
				p.idx = append(p.idx, a, b, c)
			}
			if r < crownRings-1 {
				p.idx = append(p.idx, b, e, c)
			}
		}
	}
	return p
}
