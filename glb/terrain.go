package glb

import "encoding/binary"

// MeshGLB encodes one triangle mesh as a GLB with one node, one primitive
// and one material of the given base colour (linear RGBA). pos and nrm hold
// x, y, z per vertex in glTF's Y-up frame; idx three vertex indexes per
// triangle, counter-clockwise seen from the front. With compress the
// primitive is stored with KHR_draco_mesh_compression (positions quantized
// to 18 bits); errors of the encoder wrap ErrDraco.
func MeshGLB(name string, pos, nrm []float32, idx []uint32, color [4]float64, compress bool) ([]byte, error) {
	return EncodeMesh(MeshInput{Name: name, Pos: pos, Nrm: nrm, Idx: idx, BaseColor: color, Draco: compress})
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
