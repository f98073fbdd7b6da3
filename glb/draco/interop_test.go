package draco

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

type testMesh struct {
	name string
	mesh *Mesh
	// maxRatio is the largest accepted size ratio against draco_encoder for
	// Edgebreaker output; 0 only logs the ratio.
	maxRatio float64
	opts     Options
}

func testMeshes() []testMesh {
	return []testMesh{
		{name: "cube", mesh: cubeMesh()},
		{name: "terrain257", mesh: gridMesh(257), maxRatio: 1.3},
		{name: "buildings", mesh: buildingsMesh(40, 1), maxRatio: 1.3},
		{name: "buildings-positions", mesh: positionsOnly(buildingsMesh(40, 1)), maxRatio: 1.3},
		{name: "components", mesh: componentsMesh()},
		{name: "seam", mesh: seamMesh()},
		{name: "nonmanifold", mesh: nonManifoldMesh()},
		{name: "terrain33-qp30", mesh: integerGrid(33), opts: Options{PositionBits: 30}},
		{name: "buildings-coarse", mesh: buildingsMesh(10, 4), opts: Options{PositionBits: 11, NormalBits: 6}},
	}
}

func TestInterop(t *testing.T) {
	for _, tm := range testMeshes() {
		for _, method := range []Method{Sequential, Edgebreaker} {
			t.Run(fmt.Sprintf("%s/%s", tm.name, methodName(method)), func(t *testing.T) {
				t.Parallel()
				opts := tm.opts
				opts.Method = method
				res, err := EncodeResult(tm.mesh, opts)
				if err != nil {
					t.Fatalf("EncodeResult: %v", err)
				}
				if res.Method != method {
					t.Errorf("Result.Method = %d, want %d", res.Method, method)
				}
				drc := filepath.Join(t.TempDir(), "x.drc")
				if err := os.WriteFile(drc, res.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Run("draco_decoder", func(t *testing.T) {
					d, err := decodeCLI(t, drc)
					if err != nil {
						t.Fatal(err)
					}
					checkDecoded(t, tm.mesh, opts, d, true)
				})
				t.Run("draco3d", func(t *testing.T) {
					d, err := decodeNode(t, drc)
					if err != nil {
						t.Fatal(err)
					}
					if d.points != res.Points {
						t.Errorf("decoded %d points, Result.Points = %d", d.points, res.Points)
					}
					checkBounds(t, d, res)
					checkDecoded(t, tm.mesh, opts, d, false)
				})
			})
		}
	}
}

func methodName(m Method) string {
	if m == Sequential {
		return "sequential"
	}
	return "edgebreaker"
}

type inTri struct {
	tri, rot int
}

type decTri struct{ f, rot int }

// checker compares a decoded mesh with its input.
type checker struct {
	m      *Mesh
	d      decoded
	byKind bool
	tris   [][3]uint32 // non-degenerate input triangles
	grids  []quantGrid // per attribute
}

// key is the map key of attribute i in d.attrs.
func (c *checker) key(i int) uint32 {
	if c.byKind {
		return uint32(c.m.Attributes[i].Kind)
	}
	return uint32(i)
}

func newChecker(m *Mesh, opts Options, d decoded, byKind bool) *checker {
	c := &checker{m: m, d: d, byKind: byKind}
	used := make([]bool, len(m.Attributes[0].Data)/3)
	for i := 0; i < len(m.Indices); i += 3 {
		a, b, v := m.Indices[i], m.Indices[i+1], m.Indices[i+2]
		if a != b && b != v && a != v {
			c.tris = append(c.tris, [3]uint32{a, b, v})
			used[a], used[b], used[v] = true, true, true
		}
	}
	c.grids = make([]quantGrid, len(m.Attributes))
	for ai := range m.Attributes {
		if a := &m.Attributes[ai]; a.Data != nil {
			bits := a.QuantBits
			if bits == 0 {
				bits = opts.bitsFor(a.Kind)
			}
			c.grids[ai] = gridOf(a, bits, used)
		}
	}
	return c
}

// inputKeys groups the input triangles by quantized position key.
func (c *checker) inputKeys() map[triKey][]inTri {
	pa, g := &c.m.Attributes[0], c.grids[0]
	want := map[triKey][]inTri{}
	for i, tr := range c.tris {
		var k triKey
		for j, v := range tr {
			p := pa.Data[3*v : 3*v+3]
			k[j] = g.inKey([]float64{float64(p[0]), float64(p[1]), float64(p[2])})
		}
		ck, rot := canonical(k)
		want[ck] = append(want[ck], inTri{i, rot})
	}
	return want
}

// mismatch describes why decoded triangle dt differs from input in (with
// extra rotations rots to try), or returns "".
func (c *checker) mismatch(dt decTri, in inTri, rots []int) string {
	var msg string
	for _, e := range rots {
		msg = ""
		for j := 0; j < 3 && msg == ""; j++ {
			dp := int(c.d.indices[3*dt.f+(j+dt.rot+e)%3])
			iv := int(c.tris[in.tri][(j+in.rot)%3])
			for ai := range c.m.Attributes {
				if msg = checkCorner(c.m, ai, c.grids[ai], c.d, c.key(ai), c.byKind, dp, iv); msg != "" {
					break
				}
			}
		}
		if msg == "" {
			return ""
		}
	}
	return msg
}

// checkDecoded asserts that d holds the triangles of m (as a set, order is
// free) with every attribute within its quantization error.
func checkDecoded(t *testing.T, m *Mesh, opts Options, d decoded, byKind bool) {
	t.Helper()
	opts, err := opts.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	c := newChecker(m, opts, d, byKind)
	if got := len(d.indices) / 3; got != len(c.tris) {
		t.Fatalf("decoded %d triangles, want %d", got, len(c.tris))
	}
	dpos, ok := d.attrs[c.key(0)]
	if !ok || dpos.comps != 3 {
		t.Fatalf("decoded mesh has no position attribute")
	}
	want := c.inputKeys()
	groups := map[triKey][]decTri{}
	for f := 0; f*3 < len(d.indices); f++ {
		var k triKey
		for j := 0; j < 3; j++ {
			k[j] = c.grids[0].key(dpos.vals[3*d.indices[3*f+j]:])
		}
		ck, rot := canonical(k)
		groups[ck] = append(groups[ck], decTri{f, rot})
	}
	fails := 0
	// Identical (quantized) positions may carry different attributes:
	// match decoded to input triangles of one position key as a bipartite
	// matching over attribute-compatible pairs.
	for ck, decs := range groups {
		cands := want[ck]
		rots := []int{0}
		if ck[0] == ck[1] && ck[1] == ck[2] {
			rots = []int{0, 1, 2} // every rotation fits
		}
		ok := func(i, j int) bool { return c.mismatch(decs[i], cands[j], rots) == "" }
		for di, matched := range matchAll(len(decs), len(cands), ok) {
			if matched {
				continue
			}
			if fails++; fails > 5 {
				continue
			}
			if len(cands) == 0 {
				t.Errorf("decoded triangle %d %v matches no input triangle", decs[di].f, ck)
			} else {
				t.Errorf("decoded triangle %d: %s", decs[di].f, c.mismatch(decs[di], cands[0], rots))
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d mismatches in total", fails)
	}
}

// checkCorner compares attribute ai of input vertex iv with decoded point
// dp and describes the first difference beyond the coding error.
func checkCorner(m *Mesh, ai int, g quantGrid, d decoded, key uint32, byKind bool, dp, iv int) string {
	a := &m.Attributes[ai]
	da, ok := d.attrs[key]
	if !ok {
		if byKind && a.Kind != Position && a.Kind != Normal && a.Kind != TexCoord {
			return "" // OBJ output carries no colours or generic attributes
		}
		return fmt.Sprintf("attribute %d missing from decoded mesh", ai)
	}
	c := a.Components
	got := da.vals[dp*c : dp*c+c]
	for j := 0; j < c; j++ {
		var want, tol float64
		switch {
		case a.Kind == Normal && c == 3:
			n := a.Data[iv*3 : iv*3+3]
			l := math.Sqrt(float64(n[0])*float64(n[0]) + float64(n[1])*float64(n[1]) + float64(n[2])*float64(n[2]))
			want = float64(a.Data[iv*c+j]) / l
			if l == 0 { // zero normals decode as +X
				want = float64(1 - min(j, 1))
			}
			tol = octaTolerance(g.bits)
			if byKind {
				tol += 5e-7
			}
		case a.Data != nil:
			want = float64(a.Data[iv*c+j])
			// Half a quantization step, float32 rounding in the decoder,
			// and the 6 decimals of draco_decoder's OBJ output.
			tol = g.half*1.0002 + 3e-7*g.scale
			if byKind {
				tol += 5e-7
			}
		case a.U8 != nil:
			want = float64(a.U8[iv*c+j])
		case a.U16 != nil:
			want = float64(a.U16[iv*c+j])
		default:
			want = float64(a.U32[iv*c+j])
		}
		if math.Abs(got[j]-want) > tol {
			return fmt.Sprintf("attribute %d vertex %d component %d: got %v, want %v ± %v", ai, iv, j, got[j], want, tol)
		}
	}
	return ""
}

// writeOBJ writes the position, texcoord and normal attributes of m.
func writeOBJ(path string, m *Mesh) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	tags := map[Kind]string{Position: "v", TexCoord: "vt", Normal: "vn"}
	var have []Kind
	for _, k := range []Kind{Position, TexCoord, Normal} {
		for _, a := range m.Attributes {
			if a.Kind != k || a.Data == nil {
				continue
			}
			have = append(have, k)
			for i := 0; i < len(a.Data); i += a.Components {
				fmt.Fprint(w, tags[k])
				for _, x := range a.Data[i : i+a.Components] {
					fmt.Fprintf(w, " %.9g", x)
				}
				fmt.Fprintln(w)
			}
			break
		}
	}
	for i := 0; i < len(m.Indices); i += 3 {
		fmt.Fprint(w, "f")
		for _, v := range m.Indices[i : i+3] {
			switch len(have) {
			case 1:
				fmt.Fprintf(w, " %d", v+1)
			case 2:
				if have[1] == Normal {
					fmt.Fprintf(w, " %d//%d", v+1, v+1)
				} else {
					fmt.Fprintf(w, " %d/%d", v+1, v+1)
				}
			default:
				fmt.Fprintf(w, " %d/%d/%d", v+1, v+1, v+1)
			}
		}
		fmt.Fprintln(w)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// referenceSize encodes m's position, texcoord and normal attributes with
// Google's draco_encoder at compression level 7 and returns the size, and
// our Edgebreaker size for the same attributes.
func referenceSize(t testing.TB, m *Mesh) (ref, ours int) {
	t.Helper()
	bin := testtool.Require(t, "draco_encoder", "apt-get install draco")
	var sub Mesh
	sub.Indices = m.Indices
	for _, a := range m.Attributes {
		if a.Data != nil && (a.Kind == Position || a.Kind == Normal || a.Kind == TexCoord) {
			sub.Attributes = append(sub.Attributes, a)
		}
	}
	dir := t.TempDir()
	obj, drc := filepath.Join(dir, "m.obj"), filepath.Join(dir, "ref.drc")
	if err := writeOBJ(obj, &sub); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-i", obj, "-o", drc, "-qp", "18", "-qn", "10", "-qt", "12", "-cl", "7").CombinedOutput()
	if err != nil {
		t.Fatalf("draco_encoder: %v: %s", err, out)
	}
	st, err := os.Stat(drc)
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(&sub, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return int(st.Size()), len(data)
}

func TestSizeVersusReference(t *testing.T) {
	for _, tm := range testMeshes() {
		t.Run(tm.name, func(t *testing.T) {
			t.Parallel()
			ref, ours := referenceSize(t, tm.mesh)
			ratio := float64(ours) / float64(ref)
			t.Logf("%s: ours %d bytes, draco_encoder -cl 7 %d bytes, ratio %.3f", tm.name, ours, ref, ratio)
			if tm.maxRatio > 0 && ratio > tm.maxRatio {
				t.Errorf("size ratio %.3f exceeds %.2f", ratio, tm.maxRatio)
			}
		})
	}
}

// TestRandomMeshesDecode feeds small random meshes (repeated positions,
// seams, non-manifold edges, all attribute types) through both methods and
// checks every encodable one decodes correctly with draco3d.
// randomMeshes is the number of meshes TestRandomMeshesDecode tries.
var randomMeshes = 40

// randomSeed varies the random meshes (go test -args -seed).
var randomSeed uint64 = 12

func TestRandomMeshesDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, randomSeed))
	dir := t.TempDir()
	encoded := 0
	for i := 0; i < randomMeshes; i++ {
		b := make([]byte, 150+rng.IntN(250))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		b[1] &^= 0xc0 // no NaN, indices in range
		m, opts := meshFromBytes(b)
		res, err := EncodeResult(m, opts)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("mesh %d: %v", i, err)
			}
			t.Logf("mesh %d: %v", i, err)
			continue
		}
		encoded++
		drc := filepath.Join(dir, fmt.Sprintf("r%d.drc", i))
		if err := os.WriteFile(drc, res.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("mesh%d", i), func(t *testing.T) {
			d, err := decodeNode(t, drc)
			if err != nil {
				t.Fatalf("% x: %v", b, err)
			}
			checkDecoded(t, m, opts, d, false)
			if t.Failed() {
				t.Logf("input % x, options %+v", b, opts)
			}
		})
	}
	if encoded < randomMeshes*3/4 {
		t.Errorf("only %d of %d random meshes encoded", encoded, randomMeshes)
	}
}

// matchAll finds a maximum bipartite matching (Kuhn's algorithm) between n
// left and m right nodes and reports which left nodes are matched.
func matchAll(n, m int, ok func(i, j int) bool) []bool {
	owner := make([]int, m)
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := 0; j < m; j++ {
			if seen[j] || !ok(i, j) {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || try(owner[j], seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	matched := make([]bool, n)
	for i := 0; i < n; i++ {
		matched[i] = try(i, make([]bool, m))
	}
	return matched
}

// checkBounds asserts that Result.PositionMin/Max equal the decoded bounds.
func checkBounds(t *testing.T, d decoded, res Result) {
	t.Helper()
	pos := d.attrs[0].vals
	for c := 0; c < 3; c++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := c; i < len(pos); i += 3 {
			lo, hi = min(lo, pos[i]), max(hi, pos[i])
		}
		if float32(lo) != res.PositionMin[c] || float32(hi) != res.PositionMax[c] {
			t.Errorf("component %d: decoded bounds [%v, %v], Result says [%v, %v]", c, lo, hi, res.PositionMin[c], res.PositionMax[c])
		}
	}
}
