package glb

import (
	"bytes"
	"fmt"

	"github.com/qmuntal/gltf"
)

// MeshInput is one triangle mesh for EncodeMesh.
type MeshInput struct {
	Name string
	// Copyright is written as asset.copyright (the data's attribution).
	Copyright string
	// Pos and Nrm hold x, y, z per vertex in glTF's Y-up frame; Idx three
	// vertex indexes per triangle, counter-clockwise seen from the front.
	Pos, Nrm []float32
	Idx      []uint32
	// Colors, when not nil, holds R, G, B, A (0..255) per vertex, written as
	// the COLOR_0 attribute (unsigned byte, normalized, VEC4), which glTF
	// multiplies with BaseColor.
	Colors []uint8
	// BaseColor is the material's base colour (linear RGBA).
	BaseColor [4]float64
	// Draco stores the primitive with KHR_draco_mesh_compression (positions
	// quantized to 18 bits, normals to 10, colours lossless).
	Draco bool
}

// EncodeMesh encodes one triangle mesh as a GLB (glTF 2.0) with one node,
// one primitive and one material. Errors wrap ErrGeometry (array lengths
// that do not match, no vertex) or ErrDraco (the encoder refused the mesh).
func EncodeMesh(in MeshInput) ([]byte, error) {
	nv := len(in.Pos) / 3
	if len(in.Pos) == 0 || len(in.Pos) != len(in.Nrm) || len(in.Pos)%3 != 0 || len(in.Idx)%3 != 0 ||
		(in.Colors != nil && len(in.Colors) != 4*nv) {
		return nil, fmt.Errorf("%w: %d positions, %d normals, %d colours, %d indexes", ErrGeometry,
			len(in.Pos), len(in.Nrm), len(in.Colors), len(in.Idx))
	}
	d := &doc{Document: &gltf.Document{Asset: gltf.Asset{Version: "2.0", Generator: "svc glb", Copyright: in.Copyright}, Scene: gltf.Index(0)}}
	color := in.BaseColor
	d.Materials = []*gltf.Material{{Name: in.Name, PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
		BaseColorFactor: &color, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(1)}}}
	prim, err := d.primitive(&prim{pos: in.Pos, nrm: in.Nrm, idx: in.Idx, col: in.Colors}, in.Draco, false, 0)
	if err != nil {
		return nil, err
	}
	prim.Material = gltf.Index(0)
	d.Meshes = []*gltf.Mesh{{Name: in.Name, Primitives: []*gltf.Primitive{prim}}}
	d.Nodes = []*gltf.Node{{Name: in.Name, Mesh: gltf.Index(0)}}
	d.Scenes = []*gltf.Scene{{Name: in.Name, Nodes: []int{0}}}
	if in.Draco {
		d.ExtensionsUsed = []string{extDraco}
		d.ExtensionsRequired = []string{extDraco}
	}
	return d.finish()
}

// finish pads the binary chunk, attaches it and encodes the GLB.
func (d *doc) finish() ([]byte, error) {
	for len(d.bin)%4 != 0 {
		d.bin = append(d.bin, 0)
	}
	if len(d.bin) > 0 {
		d.Buffers = []*gltf.Buffer{{ByteLength: len(d.bin), Data: d.bin}}
	}
	var out bytes.Buffer
	if err := gltf.NewEncoder(&out).Encode(d.Document); err != nil {
		return nil, fmt.Errorf("glb: encode: %w", err)
	}
	return out.Bytes(), nil
}

// colorAccessor describes RGBA bytes as COLOR_0; uncompressed, it also
// writes them as a vertex buffer view (4 bytes per vertex keeps the 4-byte
// alignment glTF asks of vertex attributes).
func (d *doc) colorAccessor(col []uint8, count int, compressed bool) *gltf.Accessor {
	a := &gltf.Accessor{ComponentType: gltf.ComponentUbyte, Type: gltf.AccessorVec4, Normalized: true, Count: count}
	if !compressed {
		a.BufferView = gltf.Index(d.view(col, gltf.TargetArrayBuffer, 4))
	}
	return a
}
