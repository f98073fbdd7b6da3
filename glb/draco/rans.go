package draco

import (
	"math"
	"math/bits"
	"slices"
	"sort"
)

// rANS coding as in Draco 2.2 ("rANS decoding" and "Symbol decoding" in the
// bitstream spec): symbols are written in reverse so the decoder reads them
// forward; the final state is stored in 1 to 4 bytes at the end, tagged by
// the two top bits of the last byte.

// ransPrecisionBits maps the stored "max bit length" (1..18) to the rANS
// precision in bits, like ComputeRAnsPrecisionFromUniqueSymbolsBitLength.
func ransPrecisionBits(bitLen int) int {
	p := (3 * bitLen) / 2
	return min(max(p, 12), 20)
}

// histogram lists the used symbols in increasing order with their counts.
type histogram struct {
	syms   []uint32
	counts []uint64
	total  uint64
	order  []int // indices by decreasing count, for normalization
}

// newHistogram counts vals; maxV is their maximum.
func newHistogram(vals []uint32, maxV uint32) histogram {
	var h histogram
	if uint64(maxV) < 4*uint64(len(vals))+1024 {
		dense := make([]uint64, maxV+1)
		for _, v := range vals {
			dense[v]++
		}
		for sym, c := range dense {
			if c > 0 {
				h.syms = append(h.syms, uint32(sym))
				h.counts = append(h.counts, c)
			}
		}
	} else {
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		for i, v := range sorted {
			if i > 0 && sorted[i-1] == v {
				h.counts[len(h.counts)-1]++
				continue
			}
			h.syms = append(h.syms, v)
			h.counts = append(h.counts, 1)
		}
	}
	h.total = uint64(len(vals))
	h.order = make([]int, len(h.syms))
	for i := range h.order {
		h.order[i] = i
	}
	sort.SliceStable(h.order, func(a, b int) bool { return h.counts[h.order[a]] > h.counts[h.order[b]] })
	return h
}

// normalizeProbs scales the counts of h to probabilities summing to
// 1<<precBits, each at least 1. ok is false when there are more symbols
// than the precision can hold.
func (h *histogram) normalizeProbs(precBits int) (probs []uint32, ok bool) {
	prec := uint64(1) << uint(precBits)
	if len(h.syms) == 0 || uint64(len(h.syms)) > prec {
		return nil, false
	}
	probs = make([]uint32, len(h.syms))
	var sum uint64
	for i, c := range h.counts {
		p := max((c*prec+h.total/2)/h.total, 1)
		probs[i] = uint32(p)
		sum += p
	}
	// Fix the rounding error on the most probable symbols, where it costs least.
	for sum > prec {
		changed := false
		for _, i := range h.order {
			if sum == prec {
				break
			}
			if probs[i] > 1 {
				dec := min(uint64(probs[i]-1), sum-prec, max(uint64(probs[i])/16, 1))
				probs[i] -= uint32(dec)
				sum -= dec
				changed = true
			}
		}
		if !changed {
			return nil, false
		}
	}
	probs[h.order[0]] += uint32(prec - sum)
	return probs, true
}

// probTableBytes is the size of the table writeProbTable writes for syms.
func probTableBytes(syms []uint32, probs []uint32) int {
	n, prev := 0, int64(-1)
	for i, s := range syms {
		n += int((int64(s) - prev - 1 + 63) / 64)
		prev = int64(s)
		switch {
		case probs[i] < 1<<6:
			n++
		case probs[i] < 1<<14:
			n += 2
		default:
			n += 3
		}
	}
	return n
}

// writeProbTable writes num_symbols (last used symbol + 1) and the table
// read by RAnsSymbolDecoder::Create: per symbol a probability in 1 to 3
// bytes (2-bit length tag), runs of up to 64 unused symbols in one byte.
func writeProbTable(w *writer, syms []uint32, probs []uint32) {
	w.varint(uint64(syms[len(syms)-1]) + 1)
	prev := int64(-1)
	for i, s := range syms {
		for gap := int64(s) - prev - 1; gap > 0; {
			run := min(gap, 64)
			w.u8(uint8(run-1)<<2 | 3)
			gap -= run
		}
		prev = int64(s)
		p := probs[i]
		extra := 0
		if p >= 1<<6 {
			extra++
			if p >= 1<<14 {
				extra++
			}
		}
		w.u8(uint8(p<<2) | uint8(extra))
		for b := 0; b < extra; b++ {
			w.u8(uint8(p >> uint(8*(b+1)-2)))
		}
	}
}

// ransEncode codes vals (forward order) with the probabilities of the used
// symbols syms and returns the stream RAnsDecoder::read_init and rans_read
// consume: symbols are pushed in reverse, the final state goes last.
func ransEncode(vals []uint32, syms []uint32, probs []uint32, precBits int) []byte {
	n := syms[len(syms)-1] + 1
	probOf, cumOf := make([]uint32, n), make([]uint32, n)
	var c uint32
	for i, s := range syms {
		probOf[s], cumOf[s] = probs[i], c
		c += probs[i]
	}
	prec := uint64(1) << uint(precBits)
	lBase := prec * 4
	state := lBase
	out := make([]byte, 0, len(vals)/2+8)
	for i := len(vals) - 1; i >= 0; i-- {
		s := vals[i]
		p := uint64(probOf[s])
		for state >= (lBase/prec)*256*p {
			out = append(out, byte(state))
			state >>= 8
		}
		state = (state/p)*prec + state%p + uint64(cumOf[s])
	}
	return appendState(out, uint32(state-lBase))
}

// appendState stores the final coder state with its 2-bit length tag.
func appendState(out []byte, s uint32) []byte {
	switch {
	case s < 1<<6:
		return append(out, byte(s))
	case s < 1<<14:
		v := 1<<14 | s
		return append(out, byte(v), byte(v>>8))
	case s < 1<<22:
		v := 2<<22 | s
		return append(out, byte(v), byte(v>>8), byte(v>>16))
	default:
		v := 3<<30 | s
		return append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
}

// entropyBits estimates the coded size in bits of h under probs.
func (h *histogram) entropyBits(probs []uint32, precBits int) float64 {
	var b float64
	for i, c := range h.counts {
		b += float64(c) * (float64(precBits) - math.Log2(float64(probs[i])))
	}
	return b
}

// rawPlan is the cheapest rANS precision found for a histogram.
type rawPlan struct {
	bitLen   int
	precBits int
	probs    []uint32
	costBits float64
}

// plan picks the stored bit length (and so the precision) among bitLens
// that minimises table plus payload size. ok is false when none fits.
func (h *histogram) plan(bitLens []int) (rawPlan, bool) {
	best := rawPlan{costBits: math.Inf(1)}
	for _, bl := range bitLens {
		pb := ransPrecisionBits(bl)
		probs, ok := h.normalizeProbs(pb)
		if !ok {
			continue
		}
		cost := h.entropyBits(probs, pb) + float64(8*probTableBytes(h.syms, probs)+32)
		if cost < best.costBits {
			best = rawPlan{bitLen: bl, precBits: pb, probs: probs, costBits: cost}
		}
	}
	return best, !math.IsInf(best.costBits, 1)
}

// Symbol coding schemes of DecodeSymbols.
const (
	symbolTagged = 0
	symbolRaw    = 1
)

// maxRawAlphabet caps the raw scheme's alphabet (the decoder's table has
// one entry per symbol value).
const maxRawAlphabet = 1 << 20

// rawBitLens are the stored bit lengths tried by the raw scheme; they give
// the precisions 12, 13, 15, 16, 18, 19 and 20 bits.
var rawBitLens = []int{8, 9, 10, 11, 12, 13, 14}

// encodeSymbols writes vals as DecodeSymbols(len(vals), comps) reads them,
// choosing the raw or tagged scheme by estimated size. Nothing is written
// for an empty slice, as the decoder reads nothing then.
func encodeSymbols(w *writer, vals []uint32, comps int) {
	if len(vals) == 0 {
		return
	}
	tags, rawBits := tagValues(vals, comps)
	th := newHistogram(tags, 32)
	tagPlan, _ := th.plan([]int{5})
	taggedCost := tagPlan.costBits + float64(rawBits)
	if maxV := slices.Max(vals); maxV < maxRawAlphabet {
		h := newHistogram(vals, maxV)
		if rp, ok := h.plan(rawBitLens); ok && rp.costBits <= taggedCost {
			w.u8(symbolRaw)
			w.u8(uint8(rp.bitLen))
			writeProbTable(w, h.syms, rp.probs)
			data := ransEncode(vals, h.syms, rp.probs, rp.precBits)
			w.varint(uint64(len(data)))
			w.bytes(data)
			return
		}
	}
	w.u8(symbolTagged)
	writeProbTable(w, th.syms, tagPlan.probs)
	data := ransEncode(tags, th.syms, tagPlan.probs, tagPlan.precBits)
	w.varint(uint64(len(data)))
	w.bytes(data)
	var bw bitWriter
	for i, t := range tags {
		for _, v := range vals[i*comps : (i+1)*comps] {
			bw.put(v, int(t))
		}
	}
	w.bytes(bw.b)
}

// bitLength is the number of bits the tagged scheme spends on v (at least 1).
func bitLength(v uint32) int {
	if v == 0 {
		return 1
	}
	return bits.Len32(v)
}

// tagValues returns the tagged scheme's bit length per group of comps
// values (the longest in the group) and the total raw bits.
func tagValues(vals []uint32, comps int) (tags []uint32, rawBits int) {
	tags = make([]uint32, 0, len(vals)/comps)
	for i := 0; i+comps <= len(vals); i += comps {
		m := uint32(0)
		for _, v := range vals[i : i+comps] {
			m = max(m, v)
		}
		bl := bitLength(m)
		tags = append(tags, uint32(bl))
		rawBits += bl * comps
	}
	return tags, rawBits
}

// bitCoder collects bits for Draco's RAnsBitDecoder (rABS with an 8-bit
// probability of zero), used for start-face configurations and seams.
type bitCoder struct {
	bits   []bool
	zeroes int
}

func (bc *bitCoder) add(b bool) {
	bc.bits = append(bc.bits, b)
	if !b {
		bc.zeroes++
	}
}

// finish writes prob_zero, the varint size and the rABS bytes.
func (bc *bitCoder) finish(w *writer) {
	total := len(bc.bits)
	if total == 0 {
		total = 1
	}
	raw := int(float64(bc.zeroes)/float64(total)*256 + 0.5)
	p0 := min(raw, 255)
	if p0 == 0 {
		p0 = 1
	}
	const lBase, ioBase, prec = 4096, 256, 256
	p1 := uint32(prec - p0)
	state := uint32(lBase)
	out := make([]byte, 0, len(bc.bits)/8+4)
	for i := len(bc.bits) - 1; i >= 0; i-- {
		ls := uint32(p0)
		if bc.bits[i] {
			ls = p1
		}
		if state >= lBase/prec*ioBase*ls {
			out = append(out, byte(state))
			state /= ioBase
		}
		q, r := state/ls, state%ls
		state = q*prec + r
		if !bc.bits[i] {
			state += p1
		}
	}
	out = appendState(out, state-lBase)
	w.u8(uint8(p0))
	w.varint(uint64(len(out)))
	w.bytes(out)
}
