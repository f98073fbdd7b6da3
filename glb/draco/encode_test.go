package draco

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestEncodeErrors(t *testing.T) {
	pos := []float32{0, 0, 0, 1, 0, 0, 0, 1, 0}
	tri := []uint32{0, 1, 2}
	posAttr := Attribute{Kind: Position, Components: 3, Data: pos}
	tests := []struct {
		name string
		mesh *Mesh
		opts Options
		want error
	}{
		{"nil mesh", nil, Options{}, ErrInvalidMesh},
		{"no attributes", &Mesh{Indices: tri}, Options{}, ErrInvalidMesh},
		{"no position", &Mesh{Indices: tri, Attributes: []Attribute{{Kind: Normal, Components: 3, Data: pos}}}, Options{}, ErrInvalidMesh},
		{"two positions", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, posAttr}}, Options{}, ErrInvalidMesh},
		{"position with 2 components", &Mesh{Indices: tri, Attributes: []Attribute{{Kind: Position, Components: 2, Data: pos[:6]}}}, Options{}, ErrInvalidMesh},
		{"ragged data", &Mesh{Indices: tri, Attributes: []Attribute{{Kind: Position, Components: 3, Data: pos[:8]}}}, Options{}, ErrInvalidMesh},
		{"two data slices", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, {Kind: Generic, Components: 1, U8: []uint8{1, 2, 3}, U32: []uint32{1, 2, 3}}}}, Options{}, ErrInvalidMesh},
		{"vertex count mismatch", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, {Kind: Generic, Components: 1, U8: []uint8{1, 2}}}}, Options{}, ErrInvalidMesh},
		{"bad kind", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, {Kind: 9, Components: 1, U8: []uint8{1, 2, 3}}}}, Options{}, ErrInvalidMesh},
		{"too many components", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, {Kind: Generic, Components: 17, U8: make([]uint8, 51)}}}, Options{}, ErrInvalidMesh},
		{"indices not triples", &Mesh{Indices: []uint32{0, 1}, Attributes: []Attribute{posAttr}}, Options{}, ErrInvalidMesh},
		{"index out of range", &Mesh{Indices: []uint32{0, 1, 3}, Attributes: []Attribute{posAttr}}, Options{}, ErrIndexRange},
		{"no triangles", &Mesh{Attributes: []Attribute{posAttr}}, Options{}, ErrEmptyMesh},
		{"only degenerate", &Mesh{Indices: []uint32{0, 0, 1, 2, 2, 2}, Attributes: []Attribute{posAttr}}, Options{}, ErrEmptyMesh},
		{"NaN position", &Mesh{Indices: tri, Attributes: []Attribute{{Kind: Position, Components: 3, Data: []float32{0, 0, 0, float32(math.NaN()), 0, 0, 0, 1, 0}}}}, Options{}, ErrNonFinite},
		{"infinite normal", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, {Kind: Normal, Components: 3, Data: []float32{0, 0, 1, 0, 0, float32(math.Inf(1)), 0, 0, 1}}}}, Options{}, ErrNonFinite},
		{"overflowing range", &Mesh{Indices: tri, Attributes: []Attribute{{Kind: Position, Components: 3, Data: []float32{-3e38, 0, 0, 3e38, 0, 0, 0, 1, 0}}}}, Options{}, ErrNonFinite},
		{"position bits 31", &Mesh{Indices: tri, Attributes: []Attribute{posAttr}}, Options{PositionBits: 31}, ErrOption},
		{"negative normal bits", &Mesh{Indices: tri, Attributes: []Attribute{posAttr}}, Options{NormalBits: -1}, ErrOption},
		{"attribute bits", &Mesh{Indices: tri, Attributes: []Attribute{{Kind: Position, Components: 3, Data: pos, QuantBits: 40}}}, Options{}, ErrOption},
		{"normal bits 1", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, {Kind: Normal, Components: 3, Data: pos, QuantBits: 1}}}, Options{}, ErrOption},
		{"method", &Mesh{Indices: tri, Attributes: []Attribute{posAttr}}, Options{Method: 7}, ErrOption},
		{"too many attributes", &Mesh{Indices: tri, Attributes: append([]Attribute{posAttr}, slices.Repeat([]Attribute{{Kind: Generic, Components: 1, U8: []uint8{1, 2, 3}}}, 255)...)}, Options{}, ErrTooLarge},
		{"wide integers", &Mesh{Indices: tri, Attributes: []Attribute{posAttr, {Kind: Generic, Components: 1, U32: []uint32{0, 1 << 31, 5}}}}, Options{}, ErrOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Encode(tt.mesh, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Encode error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestEncodeResult(t *testing.T) {
	m := buildingsMesh(3, 2)
	orig := slices.Clone(m.Attributes[0].Data)
	origIdx := slices.Clone(m.Indices)
	for _, method := range []Method{Edgebreaker, Sequential} {
		t.Run(methodName(method), func(t *testing.T) {
			res, err := EncodeResult(m, Options{Method: method})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.AttributeIDs, []uint32{0, 1, 2}) {
				t.Errorf("AttributeIDs = %v", res.AttributeIDs)
			}
			if res.Triangles != len(m.Indices)/3 {
				t.Errorf("Triangles = %d, want %d", res.Triangles, len(m.Indices)/3)
			}
			if string(res.Data[:5]) != "DRACO" || res.Data[5] != 2 || res.Data[6] != 2 {
				t.Errorf("header % x, want DRACO 2.2", res.Data[:7])
			}
			if wantMethod := byte(1 - method); res.Data[8] != wantMethod {
				t.Errorf("encoder method byte %d, want %d", res.Data[8], wantMethod)
			}
			again, err := Encode(m, Options{Method: method})
			if err != nil || !bytes.Equal(again, res.Data) {
				t.Errorf("second encoding differs (err %v): output must be deterministic", err)
			}
		})
	}
	if !slices.Equal(orig, m.Attributes[0].Data) || !slices.Equal(origIdx, m.Indices) {
		t.Error("Encode modified its input")
	}
}

// TestGolden pins the bitstream of small meshes; run with -update after an
// intended format change (and re-run the interop tests).
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mesh   *Mesh
		method Method
	}{
		{"cube_edgebreaker", cubeMesh(), Edgebreaker},
		{"cube_sequential", cubeMesh(), Sequential},
		{"buildings_edgebreaker", buildingsMesh(2, 3), Edgebreaker},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(tc.mesh, Options{Method: tc.method})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name+".drc")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			for i := 0; i < min(len(got), len(want)); i++ {
				if got[i] != want[i] {
					t.Fatalf("byte %d: got %#02x, want %#02x (of %d/%d bytes)", i, got[i], want[i], len(got), len(want))
				}
			}
			if len(got) != len(want) {
				t.Fatalf("got %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// TestSimulationRejectsCorruptTraversal checks that the decoder replay, the
// guard behind the fallback to Sequential, notices a broken traversal.
func TestSimulationRejectsCorruptTraversal(t *testing.T) {
	in, err := prepare(cubeMesh(), mustDefaults(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := planEdgebreaker(in, true)
	if err != nil {
		t.Fatal(err)
	}
	tr := p.tr
	tr.symbols = slices.Clone(tr.symbols)
	tr.symbols[len(tr.symbols)-1] = symC // the first decoded symbol needs an open edge
	if _, err := simulateDecode(&tr, p.enc.numFaces(), p.enc.numVertices()+tr.splits, true); !errors.Is(err, errSimulation) {
		t.Fatalf("simulateDecode on a corrupted traversal: %v, want errSimulation", err)
	}
}

func mustDefaults(t *testing.T) Options {
	t.Helper()
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return o
}
