package lod2store

import (
	"encoding/binary"
	"math"
	"sort"
)

// buildIndex is the in-memory form of what sortLeaves and writeSearchFile
// write as streams: the reference the streamed index is tested against
// (TestStreamedIndexEqualsInMemory), and a quick way to make indexes in
// tests.
// It orders the surfaces (ids[i] has boxes[i]) along a Hilbert curve
// over their common extent and returns the serialized index and the surface
// ids in leaf order.
func buildIndex(ids []uint32, boxes []box) ([]byte, []uint32) {
	n := len(ids)
	ext := emptyBox()
	for _, b := range boxes {
		ext.extend(b)
	}
	keys := make([]uint32, n)
	w, h := math.Max(ext.maxX-ext.minX, 1e-9), math.Max(ext.maxY-ext.minY, 1e-9)
	for i, b := range boxes {
		x := uint32(65535 * ((b.minX+b.maxX)/2 - ext.minX) / w)
		y := uint32(65535 * ((b.minY+b.maxY)/2 - ext.minY) / h)
		keys[i] = hilbert(x, y)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })

	leaf := make([]float32, 0, 4*n)
	sortedIDs := make([]uint32, n)
	for p, i := range order {
		b := boxes[i]
		sortedIDs[p] = ids[i]
		leaf = append(leaf, down(b.minX), down(b.minY), up(b.maxX), up(b.maxY))
	}
	levels := [][]float32{leaf}
	for cur := leaf; len(cur) > 4; {
		cnt := len(cur) / 4
		next := make([]float32, 0, 4*((cnt+nodeSize-1)/nodeSize))
		for s := 0; s < cnt; s += nodeSize {
			mnx, mny := float32(math.Inf(1)), float32(math.Inf(1))
			mxx, mxy := float32(math.Inf(-1)), float32(math.Inf(-1))
			for c := s; c < s+nodeSize && c < cnt; c++ {
				mnx, mny = min(mnx, cur[4*c]), min(mny, cur[4*c+1])
				mxx, mxy = max(mxx, cur[4*c+2]), max(mxy, cur[4*c+3])
			}
			next = append(next, mnx, mny, mxx, mxy)
		}
		levels = append(levels, next)
		cur = next
	}
	size := indexHeader + 4*n
	for _, l := range levels {
		size += 4 * len(l)
	}
	out := make([]byte, 0, size)
	out = append(out, indexMagic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, nodeSize)
	for _, id := range sortedIDs {
		out = binary.LittleEndian.AppendUint32(out, id)
	}
	for _, l := range levels {
		for _, f := range l {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(f))
		}
	}
	return out, sortedIDs
}
