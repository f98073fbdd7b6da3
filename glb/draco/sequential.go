package draco

// encodeSequential writes MESH_SEQUENTIAL_ENCODING: delta and rANS coded
// indices, then every attribute in input vertex order with difference
// prediction (Draco 2.2 spec, "Sequential Connectivity Decoder").
func encodeSequential(w *writer, in *input) error {
	writeHeader(w, 0)
	w.varint(uint64(len(in.faces)))
	w.varint(uint64(in.numPoints))
	start := len(w.b)
	w.u8(0) // SEQUENTIAL_COMPRESSED_INDICES
	syms := make([]uint32, 0, 3*len(in.faces))
	last := int64(0)
	for _, f := range in.faces {
		for _, v := range f {
			d := int64(v) - last
			if d < 0 {
				syms = append(syms, uint32(-d)<<1|1)
			} else {
				syms = append(syms, uint32(d)<<1)
			}
			last = int64(v)
		}
	}
	encodeSymbols(w, syms, 1)

	w.u8(1) // one attributes decoder
	atts := make([]*portable, len(in.atts))
	for i := range in.atts {
		atts[i] = &in.atts[i]
	}
	writeDescriptors(w, atts)
	for _, a := range atts {
		if a.decoderType == seqNormals {
			writeNormalValues(w, a.vals, a.bits)
		} else {
			writeValues(w, a.vals, a.vcomps, predDifference, nil)
		}
	}
	for _, a := range atts {
		writeTransformData(w, a)
	}
	// The reference decoder rejects a sequential mesh when fewer than
	// 3*num_faces bytes follow the counts (a plausibility check meant for
	// uncompressed indices); zero padding at the end satisfies it and is
	// ignored by every decoder.
	for len(w.b)-start < 3*len(in.faces) {
		w.u8(0)
	}
	return nil
}
