package glb

import "encoding/binary"

// B3DM wraps a GLB in a Batched 3D Model tile (3D Tiles 1.0 "b3dm") with an
// empty batch: a 28-byte header, a feature table JSON holding
// {"BATCH_LENGTH":0} padded with spaces so the GLB starts at a multiple of
// 8 bytes, and the GLB, itself padded to a multiple of 8 bytes (Pad8), so
// the tile's byteLength is one too, as the b3dm alignment rules require.
func B3DM(glbBytes []byte) []byte {
	ft := []byte(`{"BATCH_LENGTH":0}`)
	for (28+len(ft))%8 != 0 {
		ft = append(ft, ' ')
	}
	glbBytes = Pad8(glbBytes)
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

// Pad8 returns a GLB whose length is a multiple of 8: glTF pads chunks to 4
// bytes only, so a GLB of 8k+4 bytes gets 4 more spaces at the end of its
// JSON chunk (whitespace in JSON, the padding that chunk uses; padding the
// BIN chunk instead would leave bytes glTF validators warn about), with the
// chunk and file lengths updated. A GLB already aligned, or bytes that are
// not a well-formed GLB, come back unchanged.
func Pad8(g []byte) []byte {
	if len(g)%8 == 0 || len(g) < 20 || string(g[:4]) != "glTF" || int(binary.LittleEndian.Uint32(g[8:])) != len(g) ||
		string(g[16:20]) != "JSON" {
		return g
	}
	n := int(binary.LittleEndian.Uint32(g[12:]))
	if n < 0 || 20+n > len(g) {
		return g
	}
	out := make([]byte, 0, len(g)+4)
	out = append(out, g[:20+n]...)
	out = append(out, "    "...)
	out = append(out, g[20+n:]...)
	binary.LittleEndian.PutUint32(out[8:], uint32(len(out)))
	binary.LittleEndian.PutUint32(out[12:], uint32(n+4))
	return out
}
