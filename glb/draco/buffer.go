package draco

import (
	"encoding/binary"
	"math"
)

// writer is an append-only little-endian byte buffer, the encoder side of
// Draco's DecoderBuffer (Draco 2.2 spec, section "Data types").
type writer struct {
	b []byte
}

func (w *writer) u8(v uint8)   { w.b = append(w.b, v) }
func (w *writer) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) i32(v int32)  { w.u32(uint32(v)) }
func (w *writer) f32(v float32) {
	w.u32(math.Float32bits(v))
}
func (w *writer) bytes(p []byte) { w.b = append(w.b, p...) }

// varint writes v as LEB128 (7 bits per byte, low group first), Draco's
// DecodeVarint for unsigned types.
func (w *writer) varint(v uint64) {
	for v >= 0x80 {
		w.b = append(w.b, byte(v)|0x80)
		v >>= 7
	}
	w.b = append(w.b, byte(v))
}

// bitWriter packs bits least significant first, the order Draco's BitDecoder
// reads them.
type bitWriter struct {
	b    []byte
	nbit int
}

// put appends the n low bits of v, lowest first.
func (bw *bitWriter) put(v uint32, n int) {
	for i := 0; i < n; i++ {
		if bw.nbit%8 == 0 {
			bw.b = append(bw.b, 0)
		}
		if v>>uint(i)&1 != 0 {
			bw.b[len(bw.b)-1] |= 1 << uint(bw.nbit%8)
		}
		bw.nbit++
	}
}
