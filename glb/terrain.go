package glb

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/qmuntal/gltf"
)

// MeshGLB encodes one triangle mesh as a GLB with one node, one primitive
// and one material of the given base colour (linear RGBA). pos and nrm hold
// x, y, z per vertex in glTF's Y-up frame; idx three vertex indexes per
// triangle, counter-clockwise seen from the front. With compress the
// primitive is stored with KHR_draco_mesh_compression (positions quantized
// to 18 bits); errors of the encoder wrap ErrDraco.
func MeshGLB(name string, pos, nrm []float32, idx []uint32, color [4]float64, compress bool) ([]byte, error) {
	if len(pos) == 0 || len(pos) != len(nrm) || len(pos)%3 != 0 || len(idx)%3 != 0 {
		return nil, fmt.Errorf("%w: %d positions, %d normals, %d indexes", ErrGeometry, len(pos), len(nrm), len(idx))
	}
	d := &doc{Document: &gltf.Document{Asset: gltf.Asset{Version: "2.0", Generator: "svc glb"}, Scene: gltf.Index(0)}}
	d.Materials = []*gltf.Material{{Name: name, PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
		BaseColorFactor: &color, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(1)}}}
	prim, err := d.primitive(&prim{pos: pos, nrm: nrm, idx: idx}, compress, false, 0)
	if err != nil {
		return nil, err
	}
	prim.Material = gltf.Index(0)
	d.Meshes = []*gltf.Mesh{{Name: name, Primitives: []*gltf.Primitive{prim}}}
	d.Nodes = []*gltf.Node{{Name: name, Mesh: gltf.Index(0)}}
	d.Scenes = []*gltf.Scene{{Name: name, Nodes: []int{0}}}
	if compress {
		d.ExtensionsUsed = []string{extDraco}
		d.ExtensionsRequired = []string{extDraco}
	}
	for len(d.bin)%4 != 0 {
		d.bin = append(d.bin, 0)
	}
	d.Buffers = []*gltf.Buffer{{ByteLength: len(d.bin), Data: d.bin}}
	var out bytes.Buffer
	if err := gltf.NewEncoder(&out).Encode(d.Document); err != nil {
		return nil, fmt.Errorf("glb: encode: %w", err)
	}
	return out.Bytes(), nil
}

// B3DM wraps a GLB in a Batched 3D Model tile (3D Tiles 1.0 "b3dm") with an
// empty batch: a 28-byte header, a feature table JSON holding
// {"BATCH_LENGTH":0} padded to 8 bytes, and the GLB.
func B3DM(glbBytes []byte) []byte {
	ft := []byte(`{"BATCH_LENGTH":0}`)
	for (28+len(ft))%8 != 0 {
		ft = append(ft, ' ')
	}
	total := 28 + len(ft) + len(glbBytes)
	out := make([]byte, 28, total)
	copy(out, "b3dm")
	binary.LittleEndian.PutUint32(out[4:], 1)
	binary.LittleEndian.PutUint32(out[8:], uint32(total))
	binary.LittleEndian.PutUint32(out[12:], uint32(len(ft)))
	// feature table binary, batch table JSON and binary are empty
	out = append(out, ft...)
	return append(out, glbBytes...)
}
