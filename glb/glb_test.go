package glb

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/svc-geodata/svc/internal/testtool"
)

// box returns a box building: ground (facing down), four walls, and a flat
// roof, with the south-west corner at (x, y) and ground at z0.
func box(id string, x, y, w, d, z0, h float64) Building {
	c := [][2]float64{{x, y}, {x + w, y}, {x + w, y + d}, {x, y + d}}
	poly := func(pts ...[3]float64) Surface {
		var flat []float64
		for _, p := range append(pts, pts[0]) {
			flat = append(flat, p[0], p[1], p[2])
		}
		return Surface{Flat: flat, Ends: [][]int{{len(flat)}}}
	}
	g := poly([3]float64{c[3][0], c[3][1], z0}, [3]float64{c[2][0], c[2][1], z0}, [3]float64{c[1][0], c[1][1], z0}, [3]float64{c[0][0], c[0][1], z0})
	g.Class = ClassGround
	b := Building{GMLID: id, BuildingID: 1, Surfaces: []Surface{g}}
	var roof [][3]float64
	for i := range 4 {
		a, e := c[i], c[(i+1)%4]
		s := poly([3]float64{a[0], a[1], z0}, [3]float64{e[0], e[1], z0}, [3]float64{e[0], e[1], z0 + h}, [3]float64{a[0], a[1], z0 + h})
		s.Class = ClassWall
		b.Surfaces = append(b.Surfaces, s)
		roof = append(roof, [3]float64{a[0], a[1], z0 + h})
	}
	r := poly(roof...)
	r.Class = ClassRoof
	return append1(b, r)
}

func append1(b Building, s Surface) Building { b.Surfaces = append(b.Surfaces, s); return b }

// town returns n box buildings over size x size metres from (e0, n0).
func town(n int, e0, n0, size float64) []Building {
	rng := rand.New(rand.NewPCG(5, 6))
	var out []Building
	for i := range n {
		b := box(fmt.Sprintf("DEHE%08d", i), e0+rng.Float64()*size, n0+rng.Float64()*size, 6+rng.Float64()*10, 6+rng.Float64()*10, 100+rng.Float64()*20, 4+rng.Float64()*10)
		b.BuildingID = int64(i + 1)
		out = append(out, b)
	}
	return out
}

func build(t testing.TB, o Options, bs []Building) *Builder {
	t.Helper()
	b, err := NewBuilder(o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range bs {
		if _, err := b.Add(&bs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func decode(t testing.TB, data []byte) *gltf.Document {
	t.Helper()
	var d gltf.Document
	if err := gltf.NewDecoder(bytes.NewReader(data)).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func positions(t testing.TB, d *gltf.Document, prim *gltf.Primitive) [][3]float32 {
	t.Helper()
	p, err := modeler.ReadPosition(d, d.Accessors[prim.Attributes[gltf.POSITION]], nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const e0, n0 = 477000.0, 5553000.0

func TestStructure(t *testing.T) {
	bs := []Building{box("A", e0, n0, 10, 8, 100, 6), box("B", e0+20, n0, 10, 8, 110, 9)}
	tests := []struct {
		name                string
		o                   Options
		meshes, prims, mats int
		triangles           int // total
		lo, hi              [3]float64
		nodeNames           []string
		noGround            bool
	}{
		{"merged, one material", Options{MergeBuildings: true, IncludeGround: true}, 1, 1, 1, 24,
			[3]float64{0, 0, 0}, [3]float64{30, 8, 9}, []string{"buildings"}, false},
		{"colorized", Options{MergeBuildings: true, IncludeGround: true, ColorizeRoofs: true}, 1, 3, 3, 24,
			[3]float64{0, 0, 0}, [3]float64{30, 8, 9}, []string{"buildings"}, false},
		{"per building, no ground", Options{ColorizeRoofs: true}, 2, 4, 3, 20,
			[3]float64{0, 0, 0}, [3]float64{30, 8, 9}, []string{"A", "B"}, true},
		{"absolute heights", Options{MergeBuildings: true, IncludeGround: true, ZBase: ZAbsolute}, 1, 1, 1, 24,
			[3]float64{0, 0, 100}, [3]float64{30, 8, 119}, []string{"buildings"}, false},
		{"bbox minimum", Options{MergeBuildings: true, IncludeGround: true, ZBase: ZBBoxMin}, 1, 1, 1, 24,
			[3]float64{0, 0, 0}, [3]float64{30, 8, 19}, []string{"buildings"}, false},
		{"rotate z 90", Options{MergeBuildings: true, IncludeGround: true, RotateZDeg: 90}, 1, 1, 1, 24,
			[3]float64{-8, 0, 0}, [3]float64{0, 30, 9}, []string{"buildings"}, false},
		{"rotate x -90 (Y up)", Options{MergeBuildings: true, IncludeGround: true, RotateXDeg: -90}, 1, 1, 1, 24,
			[3]float64{0, 0, -8}, [3]float64{30, 9, 0}, []string{"buildings"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Zone, tc.o.OriginE, tc.o.OriginN = 32, e0, n0
			d := decode(t, mustGLB(t, build(t, tc.o, bs)))
			if len(d.Meshes) != tc.meshes || len(d.Materials) != tc.mats {
				t.Fatalf("%d meshes, %d materials; want %d, %d", len(d.Meshes), len(d.Materials), tc.meshes, tc.mats)
			}
			prims, tris := 0, 0
			lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			for _, m := range d.Meshes {
				for _, p := range m.Primitives {
					prims++
					tris += d.Accessors[*p.Indices].Count / 3
					for _, v := range positions(t, d, p) {
						for k := range 3 {
							lo[k], hi[k] = math.Min(lo[k], float64(v[k])), math.Max(hi[k], float64(v[k]))
						}
					}
				}
			}
			if prims != tc.prims || tris != tc.triangles {
				t.Errorf("%d primitives, %d triangles; want %d, %d", prims, tris, tc.prims, tc.triangles)
			}
			for k := range 3 {
				if math.Abs(lo[k]-tc.lo[k]) > 1e-3 || math.Abs(hi[k]-tc.hi[k]) > 1e-3 {
					t.Errorf("bounds %v..%v, want %v..%v", lo, hi, tc.lo, tc.hi)
					break
				}
			}
			for i, n := range tc.nodeNames {
				if d.Nodes[i].Name != n {
					t.Errorf("node %d named %q, want %q", i, d.Nodes[i].Name, n)
				}
			}
		})
	}
}

func mustGLB(t testing.TB, b *Builder) []byte {
	t.Helper()
	data, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestOutwardNormals checks that every triangle of a box faces away from
// its centre, whatever the input winding.
func TestOutwardNormals(t *testing.T) {
	b := box("A", e0, n0, 10, 8, 100, 6)
	rev := box("R", e0, n0, 10, 8, 100, 6)
	for i := range rev.Surfaces { // reverse every ring
		f := rev.Surfaces[i].Flat
		for l, r := 0, len(f)/3-1; l < r; l, r = l+1, r-1 {
			for k := range 3 {
				f[3*l+k], f[3*r+k] = f[3*r+k], f[3*l+k]
			}
		}
	}
	for _, bd := range []Building{b, rev} {
		t.Run(bd.GMLID, func(t *testing.T) {
			d := decode(t, mustGLB(t, build(t, Options{Zone: 32, OriginE: e0 + 5, OriginN: n0 + 4, MergeBuildings: true, IncludeGround: true, ZBase: ZAbsolute}, []Building{bd})))
			p := d.Meshes[0].Primitives[0]
			pos := positions(t, d, p)
			idx, err := modeler.ReadIndices(d, d.Accessors[*p.Indices], nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(idx); i += 3 {
				a, bb, c := pos[idx[i]], pos[idx[i+1]], pos[idx[i+2]]
				u := [3]float64{float64(bb[0] - a[0]), float64(bb[1] - a[1]), float64(bb[2] - a[2])}
				v := [3]float64{float64(c[0] - a[0]), float64(c[1] - a[1]), float64(c[2] - a[2])}
				n := [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
				cen := [3]float64{float64(a[0]+bb[0]+c[0]) / 3, float64(a[1]+bb[1]+c[1]) / 3, float64(a[2]+bb[2]+c[2])/3 - 103}
				if n[0]*cen[0]+n[1]*cen[1]+n[2]*cen[2] <= 0 {
					t.Fatalf("triangle %d faces inward", i/3)
				}
			}
		})
	}
}

func TestWeld(t *testing.T) {
	bs := town(20, e0, n0, 200)
	count := func(tol float64) int {
		d := decode(t, mustGLB(t, build(t, Options{Zone: 32, OriginE: e0, OriginN: n0, MergeBuildings: true, IncludeGround: true, WeldToleranceM: tol}, bs)))
		return d.Accessors[d.Meshes[0].Primitives[0].Attributes[gltf.POSITION]].Count
	}
	off, on, coarse := count(0), count(0.01), count(50)
	if !(on <= off && coarse < on) {
		t.Errorf("vertices: off %d, 1 cm %d, 50 m %d; want welding to reduce them", off, on, coarse)
	}
}

func TestMercator(t *testing.T) {
	// A 100 m east offset at 50 N is 100/cos(50 deg) = 155.6 Mercator metres.
	bs := []Building{box("A", e0+100, n0, 1, 1, 100, 10)}
	d := decode(t, mustGLB(t, build(t, Options{Zone: 32, OriginE: e0, OriginN: n0, MergeBuildings: true, IncludeGround: true, Frame: FrameMercator}, bs)))
	acc := d.Accessors[d.Meshes[0].Primitives[0].Attributes[gltf.POSITION]]
	if x := acc.Min[0]; math.Abs(x-155.6) > 1.5 {
		t.Errorf("min x %.2f, want about 155.6", x)
	}
	if z := acc.Max[2]; math.Abs(z-10/math.Cos(50.13*math.Pi/180)) > 0.2 {
		t.Errorf("max z %.2f, want 10/cos(lat)", z)
	}
}

func TestOptionsErrors(t *testing.T) {
	for name, o := range map[string]Options{
		"NaN rotation":    {RotateXDeg: math.NaN()},
		"Inf origin":      {OriginE: math.Inf(1)},
		"negative weld":   {WeldToleranceM: -1},
		"zone 0 mercator": {Frame: FrameMercator},
		"z base":          {ZBase: 9},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewBuilder(o); !errors.Is(err, ErrOptions) {
				t.Errorf("err %v, want ErrOptions", err)
			}
		})
	}
	b, _ := NewBuilder(Options{Zone: 32})
	if data, err := b.GLB(); err != nil || len(decode(t, data).Meshes) != 0 {
		t.Errorf("empty builder: %v, want an empty scene", err)
	}
}

// TestValidator runs the Khronos glTF validator on GLBs of every option
// family, plain and Draco, and requires zero errors.
func TestValidator(t *testing.T) {
	node := testtool.Node(t, "gltf-validator")
	bs := town(50, e0, n0, 300)
	// Half the buildings with attributes, half without (noData values).
	for i := 0; i < len(bs); i += 2 {
		h, st := 7.5+float64(i), int64(2)
		bs[i].Attrs = &Attrs{Function: "31001_1000", FunctionLabel: "Wohngebäude", RoofType: "3100", HeightM: &h, Storeys: &st, CreationDate: "2020-01-02"}
	}
	cases := map[string]Options{
		"merged":   {MergeBuildings: true, IncludeGround: true},
		"colored":  {MergeBuildings: true, ColorizeRoofs: true, WeldToleranceM: 0.05},
		"separate": {ColorizeRoofs: true, IncludeGround: true, RotateXDeg: -90},
		"mercator": {MergeBuildings: true, Frame: FrameMercator, ZBase: ZBBoxMin},
		"features": {MergeBuildings: true, IncludeGround: true, Features: true, YUp: true},
	}
	dir := t.TempDir()
	for name, o := range cases {
		o.Zone, o.OriginE, o.OriginN = 32, e0+150, n0+150
		b := build(t, o, bs)
		variants := map[string]func() ([]byte, error){"plain": b.GLB, "draco": b.DracoGLB}
		for vname, enc := range variants {
			t.Run(name+"/"+vname, func(t *testing.T) {
				data, err := enc()
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, name+vname+".glb")
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(node, "testdata/validate.js", path).Output()
				if err != nil {
					t.Fatalf("validator: %v", err)
				}
				var rep struct {
					Errors   int
					Messages []string
				}
				if err := json.Unmarshal(out, &rep); err != nil {
					t.Fatalf("validator output %s: %v", out, err)
				}
				if rep.Errors != 0 {
					t.Errorf("%d errors: %v", rep.Errors, rep.Messages)
				}
			})
		}
	}
}

// BenchmarkGLB builds the GLB of 1,500 buildings (a dense 1 km2) without
// compression.
func BenchmarkGLB(b *testing.B) {
	bs := town(1500, e0, n0, 1000)
	b.ReportAllocs()
	for b.Loop() {
		bl, _ := NewBuilder(Options{Zone: 32, OriginE: e0 + 500, OriginN: n0 + 500, MergeBuildings: true, IncludeGround: true})
		for i := range bs {
			_, _ = bl.Add(&bs[i])
		}
		if _, err := bl.GLB(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(bs))/b.Elapsed().Seconds(), "buildings/s")
}

// TestPad8: a GLB of any length comes out a multiple of 8 with its JSON
// chunk grown by spaces, the BIN chunk untouched, and still decodes; B3DM
// tiles are then multiples of 8 too.
func TestPad8(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8} {
		trees := make([]Tree, n)
		for i := range trees {
			trees[i] = Tree{Pos: [3]float32{float32(i), 0, 0}, HeightM: 10, CrownRadiusM: 2}
		}
		g, err := TreesGLB(trees, "© test")
		if err != nil {
			t.Fatal(err)
		}
		p := Pad8(g)
		if len(p)%8 != 0 || int(binary.LittleEndian.Uint32(p[8:])) != len(p) || len(p)-len(g) > 4 {
			t.Fatalf("%d trees: %d -> %d bytes", n, len(g), len(p))
		}
		var doc gltf.Document
		if err := gltf.NewDecoder(bytes.NewReader(p)).Decode(&doc); err != nil || doc.Asset.Copyright != "© test" {
			t.Fatalf("padded GLB: %v", err)
		}
		if !bytes.Equal(p[len(p)-len(g)+20+int(binary.LittleEndian.Uint32(g[12:])):], g[20+int(binary.LittleEndian.Uint32(g[12:])):]) {
			t.Error("BIN chunk changed")
		}
		if b := B3DM(g); len(b)%8 != 0 || int(binary.LittleEndian.Uint32(b[8:])) != len(b) {
			t.Errorf("b3dm of %d bytes", len(b))
		}
	}
	if g := []byte("not a glb at all, just text"); !bytes.Equal(Pad8(g), g) {
		t.Error("non-GLB changed")
	}
}
