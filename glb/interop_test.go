package glb

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

type transformSummary struct {
	Meshes, Primitives, Vertices, Triangles int
	Draco                                   bool
}

// TestDracoGLBInterop loads Draco GLBs in glTF-Transform (decoding with
// draco3dgltf, as three.js and Cesium do) and decodes every Draco buffer with
// Debian's draco_decoder: both must see the triangles of the plain GLB.
func TestDracoGLBInterop(t *testing.T) {
	node := testtool.Node(t, "@gltf-transform/core", "@gltf-transform/extensions", "draco3dgltf")
	decoder := testtool.Require(t, "draco_decoder", "apt-get install draco")
	bs := town(60, e0, n0, 300)
	for name, o := range map[string]Options{
		"merged":   {MergeBuildings: true, IncludeGround: true},
		"colored":  {MergeBuildings: true, ColorizeRoofs: true},
		"separate": {IncludeGround: true, RotateXDeg: -90},
	} {
		t.Run(name, func(t *testing.T) {
			o.Zone, o.OriginE, o.OriginN = 32, e0+150, n0+150
			b := build(t, o, bs)
			plain, err := b.GLB()
			if err != nil {
				t.Fatal(err)
			}
			comp, err := b.DracoGLB()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			summary := func(data []byte, file string) transformSummary {
				p := filepath.Join(dir, file)
				os.WriteFile(p, data, 0o644)
				out, err := exec.Command(node, "testdata/transform.mjs", p).Output()
				if err != nil {
					t.Fatalf("glTF-Transform %s: %v", file, err)
				}
				var s transformSummary
				if err := json.Unmarshal(out, &s); err != nil {
					t.Fatalf("%s: %v", out, err)
				}
				return s
			}
			sp, sd := summary(plain, "plain.glb"), summary(comp, "draco.glb")
			if !sd.Draco || sp.Draco || sd.Triangles != sp.Triangles || sd.Primitives != sp.Primitives || sd.Triangles == 0 {
				t.Fatalf("plain %+v, draco %+v", sp, sd)
			}
			if len(comp) >= len(plain) {
				t.Errorf("Draco GLB of %d bytes is not smaller than the plain %d", len(comp), len(plain))
			}
			if got := decodeAll(t, decoder, comp, dir); got != sp.Triangles {
				t.Errorf("draco_decoder decoded %d triangles, plain GLB has %d", got, sp.Triangles)
			}
		})
	}
}

var objFace = regexp.MustCompile(`(?m)^f `)

// decodeAll writes each Draco buffer of a GLB to a file, decodes it with
// draco_decoder to OBJ and returns the faces over all of them.
func decodeAll(t *testing.T, decoder string, glbBytes []byte, dir string) int {
	t.Helper()
	jl := binary.LittleEndian.Uint32(glbBytes[12:])
	var doc struct {
		BufferViews []struct{ ByteOffset, ByteLength int }
		Meshes      []struct {
			Primitives []struct {
				Extensions map[string]struct{ BufferView int }
			}
		}
	}
	if err := json.Unmarshal(glbBytes[20:20+jl], &doc); err != nil {
		t.Fatal(err)
	}
	bin := glbBytes[20+jl+8:]
	faces := 0
	for mi, m := range doc.Meshes {
		for pi, p := range m.Primitives {
			ext, ok := p.Extensions[extDraco]
			if !ok {
				t.Fatalf("mesh %d primitive %d is not compressed", mi, pi)
			}
			bv := doc.BufferViews[ext.BufferView]
			drc := filepath.Join(dir, "p"+strconv.Itoa(mi)+"_"+strconv.Itoa(pi)+".drc")
			os.WriteFile(drc, bin[bv.ByteOffset:bv.ByteOffset+bv.ByteLength], 0o644)
			obj := drc + ".obj"
			if out, err := exec.Command(decoder, "-i", drc, "-o", obj).CombinedOutput(); err != nil {
				t.Fatalf("draco_decoder: %v\n%s", err, out)
			}
			text, _ := os.ReadFile(obj)
			faces += len(objFace.FindAll(text, -1))
		}
	}
	return faces
}

// TestDracoFeatureIDsInterop: a Draco GLB with features, decoded by
// glTF-Transform with draco3dgltf (as three.js and CesiumJS decode it),
// has every building's feature id on vertices with the z range of the
// building in the plain GLB (the town's grounds and heights are random) (the ids are lossless UNSIGNED_SHORT, the
// positions 18-bit quantized).
func TestDracoFeatureIDsInterop(t *testing.T) {
	node := testtool.Node(t, "@gltf-transform/core", "@gltf-transform/extensions", "draco3dgltf")
	bs := town(60, e0, n0, 300)
	for name, o := range map[string]Options{
		"merged":   {MergeBuildings: true, IncludeGround: true, Features: true, ZBase: ZAbsolute},
		"separate": {ColorizeRoofs: true, Features: true, ZBase: ZAbsolute},
	} {
		t.Run(name, func(t *testing.T) {
			o.Zone, o.OriginE, o.OriginN = 32, e0+150, n0+150
			b := build(t, o, bs)
			dir := t.TempDir()
			ranges := func(enc func() ([]byte, error), file string) map[string][3]float64 {
				data, err := enc()
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, file)
				os.WriteFile(p, data, 0o644)
				out, err := exec.Command(node, "testdata/features.mjs", p).Output()
				if err != nil {
					t.Fatalf("features.mjs %s: %v", file, err)
				}
				var r map[string][3]float64
				if err := json.Unmarshal(out, &r); err != nil {
					t.Fatal(err)
				}
				return r
			}
			plain, comp := ranges(b.GLB, "plain.glb"), ranges(b.DracoGLB, "draco.glb")
			if len(plain) != len(bs) || len(comp) != len(bs) {
				t.Fatalf("feature ids: plain %d, Draco %d, buildings %d", len(plain), len(comp), len(bs))
			}
			for id, p := range plain {
				d := comp[id]
				if math.Abs(d[1]-p[1]) > 0.01 || math.Abs(d[2]-p[2]) > 0.01 {
					t.Errorf("feature %s: Draco z %.3f..%.3f, plain %.3f..%.3f", id, d[1], d[2], p[1], p[2])
				}
			}
		})
	}
}
