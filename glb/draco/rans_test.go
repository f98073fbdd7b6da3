package draco

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// reader is a minimal Draco DecoderBuffer used to check the entropy coders
// against the decoding rules of the spec.
type reader struct {
	b   []byte
	pos int
}

var errShort = errors.New("short buffer")

func (r *reader) u8() (uint8, error) {
	if r.pos >= len(r.b) {
		return 0, errShort
	}
	r.pos++
	return r.b[r.pos-1], nil
}

func (r *reader) varint() (uint64, error) {
	var v uint64
	for s := 0; s < 64; s += 7 {
		c, err := r.u8()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << uint(s)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint too long")
}

type ransReader struct {
	data        []byte
	off         int
	state, prec uint64
	lut         []uint32
	probs, cums []uint32
}

func (r *reader) ransTable(precBits int) (*ransReader, error) {
	n, err := r.varint()
	if err != nil {
		return nil, err
	}
	rr := &ransReader{prec: 1 << uint(precBits)}
	for i := uint64(0); i < n; i++ {
		c, err := r.u8()
		if err != nil {
			return nil, err
		}
		if c&3 == 3 {
			for j := uint64(0); j <= uint64(c>>2); j++ {
				rr.probs = append(rr.probs, 0)
			}
			i += uint64(c >> 2)
			continue
		}
		p := uint32(c >> 2)
		for b := 0; b < int(c&3); b++ {
			e, err := r.u8()
			if err != nil {
				return nil, err
			}
			p |= uint32(e) << uint(8*(b+1)-2)
		}
		rr.probs = append(rr.probs, p)
	}
	var cum uint32
	for s, p := range rr.probs {
		rr.cums = append(rr.cums, cum)
		cum += p
		for len(rr.lut) < int(cum) {
			rr.lut = append(rr.lut, uint32(s))
		}
	}
	if uint64(cum) != rr.prec {
		return nil, errors.New("probabilities do not sum to precision")
	}
	size, err := r.varint()
	if err != nil || int(size) > len(r.b)-r.pos || size == 0 {
		return nil, errors.New("bad rans size")
	}
	rr.data = r.b[r.pos : r.pos+int(size)]
	r.pos += int(size)
	last := rr.data[size-1]
	k := int(last>>6) + 1
	rr.off = int(size) - k
	var st uint32
	for i := k - 1; i >= 0; i-- {
		st = st<<8 | uint32(rr.data[rr.off+i])
	}
	rr.state = uint64(st&(1<<(8*uint(k)-2)-1)) + 4*rr.prec
	return rr, nil
}

func (rr *ransReader) read() uint32 {
	for rr.state < 4*rr.prec && rr.off > 0 {
		rr.off--
		rr.state = rr.state<<8 | uint64(rr.data[rr.off])
	}
	q, rem := rr.state/rr.prec, rr.state%rr.prec
	s := rr.lut[rem]
	rr.state = q*uint64(rr.probs[s]) + rem - uint64(rr.cums[s])
	return s
}

// decodeSymbols mirrors DecodeSymbols of the spec.
func (r *reader) decodeSymbols(n, comps int) ([]uint32, error) {
	scheme, err := r.u8()
	if err != nil {
		return nil, err
	}
	out := make([]uint32, 0, n)
	if scheme == symbolRaw {
		bl, err := r.u8()
		if err != nil {
			return nil, err
		}
		rr, err := r.ransTable(ransPrecisionBits(int(bl)))
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			out = append(out, rr.read())
		}
		return out, nil
	}
	rr, err := r.ransTable(12)
	if err != nil {
		return nil, err
	}
	bitPos := 0
	for i := 0; i < n; i += comps {
		bl := int(rr.read())
		for j := 0; j < comps; j++ {
			var v uint32
			for k := 0; k < bl; k++ {
				byteI := r.pos + bitPos/8
				if byteI >= len(r.b) {
					return nil, errShort
				}
				v |= uint32(r.b[byteI]>>(bitPos%8)&1) << uint(k)
				bitPos++
			}
			out = append(out, v)
		}
	}
	r.pos += (bitPos + 7) / 8
	return out, nil
}

func TestSymbolsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := map[string]func() []uint32{
		"single":   func() []uint32 { return []uint32{5} },
		"zeros":    func() []uint32 { return make([]uint32, 1000) },
		"small":    func() []uint32 { return randVals(rng, 5000, 16) },
		"skewed":   func() []uint32 { return skewed(rng, 20000, 3000) },
		"wide":     func() []uint32 { return randVals(rng, 3000, 1<<30) },
		"alphabet": func() []uint32 { return randVals(rng, 200000, 1<<19) },
	}
	for name, g := range gen {
		for _, comps := range []int{1, 3} {
			t.Run(name, func(t *testing.T) {
				vals := g()
				vals = vals[:len(vals)/comps*comps]
				if len(vals) == 0 {
					return
				}
				var w writer
				encodeSymbols(&w, vals, comps)
				r := reader{b: w.b}
				got, err := r.decodeSymbols(len(vals), comps)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if i := slices.Compare(got, vals); i != 0 {
					for k := range vals {
						if got[k] != vals[k] {
							t.Fatalf("value %d: got %d, want %d", k, got[k], vals[k])
						}
					}
				}
				if r.pos != len(w.b) {
					t.Errorf("consumed %d of %d bytes", r.pos, len(w.b))
				}
			})
		}
	}
}

func randVals(rng *rand.Rand, n int, maxV uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = rng.Uint32N(maxV)
	}
	return v
}

func skewed(rng *rand.Rand, n int, maxV float64) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = uint32(rng.ExpFloat64() * maxV / 50)
	}
	return v
}

func TestBitCoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range []float64{0, 0.01, 0.3, 0.5, 0.97, 1} {
		var bc bitCoder
		var want []bool
		for i := 0; i < 3000; i++ {
			b := rng.Float64() < p
			want = append(want, b)
			bc.add(b)
		}
		var w writer
		bc.finish(&w)
		p0 := uint32(w.b[0])
		r := reader{b: w.b, pos: 1}
		size, _ := r.varint()
		data := w.b[r.pos : r.pos+int(size)]
		off := int(size) - int(data[size-1]>>6) - 1
		var st uint32
		for i := int(size) - 1; i >= off; i-- {
			st = st<<8 | uint32(data[i])
		}
		k := int(size) - off
		state := st&(1<<(8*uint(k)-2)-1) + 4096
		for i, wb := range want {
			if state < 4096 && off > 0 {
				off--
				state = state<<8 | uint32(data[off])
			}
			pOne := 256 - p0
			q, rem := state/256, state%256
			got := rem < pOne
			if got {
				state = q*pOne + rem
			} else {
				state = state - q*pOne - pOne
			}
			if got != wb {
				t.Fatalf("p=%v bit %d: got %v, want %v", p, i, got, wb)
			}
		}
		_ = binary.LittleEndian
	}
}
