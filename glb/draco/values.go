package draco

// Prediction methods and transforms (PredictionSchemeMethod and
// PredictionSchemeTransformType in the Draco 2.2 spec).
const (
	predDifference    = 0
	predParallelogram = 1
	transformWrap     = 1
)

// writeHeader writes the 11-byte Draco header for a triangular mesh.
func writeHeader(w *writer, method uint8) {
	w.bytes([]byte("DRACO"))
	w.u8(2) // major version
	w.u8(2) // minor version
	w.u8(1) // encoder type: TRIANGULAR_MESH
	w.u8(method)
	w.u16(0) // flags: no metadata
}

// writeDescriptors writes the part of AttributesDecoder::
// DecodeAttributesDecoderData and SequentialAttributeDecodersController
// that describes the attributes of one attributes decoder.
func writeDescriptors(w *writer, atts []*portable) {
	w.varint(uint64(len(atts)))
	for _, a := range atts {
		w.u8(uint8(a.kind))
		w.u8(a.dataType)
		w.u8(uint8(a.comps))
		if a.normalized {
			w.u8(1)
		} else {
			w.u8(0)
		}
		w.varint(uint64(a.uniqueID))
	}
	for _, a := range atts {
		w.u8(a.decoderType)
	}
}

// writeTransformData writes what DecodeDataNeededByPortableTransform reads:
// the quantization parameters of quantized attributes, nothing otherwise.
func writeTransformData(w *writer, a *portable) {
	if a.decoderType == seqNormals {
		w.u8(uint8(a.bits))
		return
	}
	if a.decoderType != seqQuantization {
		return
	}
	for _, m := range a.minVals {
		w.f32(m)
	}
	w.f32(a.rng)
	w.u8(uint8(a.bits))
}

// predictor fills pred with the prediction of entry i (all earlier entries
// are known to the decoder) and reports whether it could; when it cannot,
// the previous entry is the prediction (delta coding), as in Draco.
type predictor func(i int, pred []int64) bool

// writeValues writes one attribute's portable values, already in the order
// the decoder produces them, as SequentialIntegerAttributeDecoder::
// DecodeValues reads them: prediction method, wrap transform, rANS coded
// corrections, then the transform's min and max.
func writeValues(w *writer, vals []int32, comps int, method int8, pred predictor) {
	w.u8(uint8(method))
	w.u8(transformWrap)
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	maxDif := int64(hi) - int64(lo) + 1
	maxCorr := maxDif / 2
	minCorr := -maxCorr
	if maxDif%2 == 0 {
		maxCorr--
	}
	n := len(vals) / comps
	syms := make([]uint32, len(vals))
	p := make([]int64, comps)
	for i := 0; i < n; i++ {
		switch {
		case i == 0:
			clear(p)
		case pred != nil && pred(i, p):
		default:
			for c := 0; c < comps; c++ {
				p[c] = int64(vals[(i-1)*comps+c])
			}
		}
		for c := 0; c < comps; c++ {
			pc := min(max(p[c], int64(lo)), int64(hi))
			corr := int64(vals[i*comps+c]) - pc
			if corr < minCorr {
				corr += maxDif
			} else if corr > maxCorr {
				corr -= maxDif
			}
			syms[i*comps+c] = zigzag(int32(corr))
		}
	}
	w.u8(1) // compressed
	encodeSymbols(w, syms, comps)
	w.i32(lo)
	w.i32(hi)
}

// zigzag maps signed corrections to symbols like ConvertSignedIntsToSymbols.
func zigzag(v int32) uint32 {
	if v < 0 {
		return uint32(-(int64(v)+1))<<1 | 1
	}
	return uint32(v) << 1
}
