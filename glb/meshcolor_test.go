package glb

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/svc-geodata/svc/internal/testtool"
)

// quad is two triangles of a unit square (Y-up, facing up) with colours.
func quad(colors bool) MeshInput {
	in := MeshInput{Name: "quad", Pos: []float32{0, 0, 0, 1, 0, 0, 1, 0, -1, 0, 0, -1},
		Nrm: []float32{0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0}, Idx: []uint32{0, 1, 2, 0, 2, 3}, BaseColor: [4]float64{1, 1, 1, 1}}
	if colors {
		in.Colors = []uint8{255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 255}
	}
	return in
}

// validateGLB runs the Khronos glTF validator on data.
func validateGLB(t *testing.T, data []byte) {
	t.Helper()
	node := testtool.Node(t, "gltf-validator")
	path := filepath.Join(t.TempDir(), "m.glb")
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
	if err := json.Unmarshal(out, &rep); err != nil || rep.Errors != 0 {
		t.Fatalf("validator: %v %s", err, out)
	}
}

// TestEncodeMeshColors writes COLOR_0 (normalized unsigned bytes, VEC4)
// plain and Draco-compressed, and leaves it out without colours.
func TestEncodeMeshColors(t *testing.T) {
	for _, tc := range []struct {
		name          string
		colors, draco bool
	}{{"plain", false, false}, {"plain colors", true, false}, {"draco", false, true}, {"draco colors", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			in := quad(tc.colors)
			in.Draco = tc.draco
			data, err := EncodeMesh(in)
			if err != nil {
				t.Fatal(err)
			}
			doc := new(gltf.Document)
			if err := gltf.NewDecoder(strings.NewReader(string(data))).Decode(doc); err != nil {
				t.Fatal(err)
			}
			p := doc.Meshes[0].Primitives[0]
			ci, ok := p.Attributes[gltf.COLOR_0]
			if ok != tc.colors {
				t.Fatalf("COLOR_0 present %v, want %v", ok, tc.colors)
			}
			if ok {
				a := doc.Accessors[ci]
				if a.ComponentType != gltf.ComponentUbyte || !a.Normalized || a.Type != gltf.AccessorVec4 || a.Count != 4 {
					t.Errorf("COLOR_0 accessor %+v", a)
				}
			}
			if _, ok := p.Extensions[extDraco]; ok != tc.draco {
				t.Errorf("Draco %v, want %v", ok, tc.draco)
			}
			validateGLB(t, data)
		})
	}
	bad := quad(true)
	bad.Colors = bad.Colors[:8]
	if _, err := EncodeMesh(bad); !errors.Is(err, ErrGeometry) {
		t.Errorf("short colours: %v", err)
	}
}

// TestTreesGLB validates an instanced tree tile and rejects bad trees.
func TestTreesGLB(t *testing.T) {
	trees := []Tree{{Pos: [3]float32{0, 100, 0}, HeightM: 20, CrownRadiusM: 4}, {Pos: [3]float32{10, 101, -5}, HeightM: 8, CrownRadiusM: 2}}
	data, err := TreesGLB(trees, "")
	if err != nil {
		t.Fatal(err)
	}
	validateGLB(t, data)
	for _, tc := range []struct {
		name  string
		trees []Tree
		want  error
	}{
		{"none", nil, ErrGeometry},
		{"zero height", []Tree{{HeightM: 0, CrownRadiusM: 1}}, ErrGeometry},
		{"negative crown", []Tree{{HeightM: 5, CrownRadiusM: -1}}, ErrGeometry},
		{"too many", make([]Tree, MaxInstances+1), ErrTooLarge},
	} {
		if _, err := TreesGLB(tc.trees, ""); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
