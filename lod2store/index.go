package lod2store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The packed R-tree orders surfaces along a Hilbert curve and stores the
// bounding boxes of every level in flat arrays (the Flatbush layout). A
// depth-first walk that visits children in order meets the leaves in
// Hilbert order, so a search can stop after `limit` hits and resume after any
// position: search cost follows the page size, not the size of the bbox.

const (
	nodeSize    = 16
	indexMagic  = "SVCPRT01"
	indexHeader = 8 + 4 + 4
)

// packedIndex is the in-memory form of the index.
type packedIndex struct {
	n      int
	ids    []uint32    // surface id at each leaf position
	levels [][]float32 // level 0: leaf boxes; each box minX,minY,maxX,maxY
	pos    []uint32    // leaf position of surface id (index id-1); noPos for ids not in the file
}

// noPos marks a surface id that is not in the index: an import that
// patched the previous snapshot's pack (PatchLoD2) leaves the ids of the
// files it replaced unused.
const noPos = math.MaxUint32

// maxIDSlack bounds the largest surface id of an index of n surfaces to
// maxIDFactor*n+maxIDSlack, so that a damaged file cannot make loadIndex
// allocate gigabytes: room for many yearly patches (each adds the ids of
// the changed files' surfaces) before a full import renumbers.
const (
	maxIDFactor = 8
	maxIDSlack  = 1 << 16
)

// position is the leaf position of surface id sid, false when the index
// does not hold it.
func (x *packedIndex) position(sid int64) (int, bool) {
	if sid <= 0 || sid > int64(len(x.pos)) || x.pos[sid-1] == noPos {
		return 0, false
	}
	return int(x.pos[sid-1]), true
}

// box is a 2D bounding box in the pack's projected CRS (metres).
type box struct{ minX, minY, maxX, maxY float64 }

func (b box) intersects(o box) bool {
	return b.minX <= o.maxX && o.minX <= b.maxX && b.minY <= o.maxY && o.minY <= b.maxY
}

func (b *box) extend(o box) {
	b.minX, b.minY = math.Min(b.minX, o.minX), math.Min(b.minY, o.minY)
	b.maxX, b.maxY = math.Max(b.maxX, o.maxX), math.Max(b.maxY, o.maxY)
}

func emptyBox() box { return box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)} }

// down and up round to float32 outwards so a stored box always contains the
// exact one.
func down(v float64) float32 {
	f := float32(v)
	if float64(f) > v {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func up(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// loadIndex parses a serialized index; ids must be positive, each once,
// and at most maxIDFactor*n+maxIDSlack (1..n in a pack of a full import).
func loadIndex(b []byte) (*packedIndex, error) {
	if len(b) < indexHeader || string(b[:8]) != indexMagic {
		return nil, fmt.Errorf("%w: spatial index header", ErrCorrupt)
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	if binary.LittleEndian.Uint32(b[12:]) != nodeSize {
		return nil, fmt.Errorf("%w: spatial index node size", ErrCorrupt)
	}
	want := indexHeader + 4*n
	for cnt := n; ; cnt = (cnt + nodeSize - 1) / nodeSize {
		want += 16 * cnt
		if cnt <= 1 {
			break
		}
	}
	if n == 0 {
		want = indexHeader
	}
	if len(b) != want {
		return nil, fmt.Errorf("%w: spatial index of %d bytes, want %d", ErrCorrupt, len(b), want)
	}
	idx := &packedIndex{n: n, ids: make([]uint32, n)}
	maxID := uint32(0)
	off := indexHeader
	for p := range n {
		id := binary.LittleEndian.Uint32(b[off:])
		off += 4
		if id == 0 || uint64(id) > maxIDFactor*uint64(n)+maxIDSlack {
			return nil, fmt.Errorf("%w: spatial index ids", ErrCorrupt)
		}
		idx.ids[p], maxID = id, max(maxID, id)
	}
	idx.pos = make([]uint32, maxID)
	for i := range idx.pos {
		idx.pos[i] = noPos
	}
	for p, id := range idx.ids {
		if idx.pos[id-1] != noPos {
			return nil, fmt.Errorf("%w: spatial index ids", ErrCorrupt)
		}
		idx.pos[id-1] = uint32(p)
	}
	for cnt := n; n > 0; cnt = (cnt + nodeSize - 1) / nodeSize {
		l := make([]float32, 4*cnt)
		for i := range l {
			l[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[off:]))
			off += 4
		}
		idx.levels = append(idx.levels, l)
		if cnt <= 1 {
			break
		}
	}
	return idx, nil
}

// walk calls visit with the leaf position and surface id of every surface
// whose box meets q, in leaf order, starting after leaf position `after`
// (-1: from the start), until visit returns false.
func (x *packedIndex) walk(q box, after int, visit func(pos int, id uint32) bool) {
	if x.n == 0 {
		return
	}
	top := len(x.levels) - 1
	x.walkNode(top, 0, q, after, visit)
}

func (x *packedIndex) walkNode(level, node int, q box, after int, visit func(int, uint32) bool) bool {
	span := 1
	for range level {
		span *= nodeSize
	}
	l := x.levels[level]
	if (node+1)*span-1 <= after { // every leaf below lies at or before the cursor
		return true
	}
	b := l[4*node : 4*node+4]
	if float64(b[0]) > q.maxX || float64(b[2]) < q.minX || float64(b[1]) > q.maxY || float64(b[3]) < q.minY {
		return true
	}
	if level == 0 {
		if node > after {
			return visit(node, x.ids[node])
		}
		return true
	}
	first, last := node*nodeSize, min((node+1)*nodeSize, len(x.levels[level-1])/4)
	for c := first; c < last; c++ {
		if !x.walkNode(level-1, c, q, after, visit) {
			return false
		}
	}
	return true
}

// hilbert maps (x, y) in [0, 65535]^2 to its distance along a Hilbert curve.
func hilbert(x, y uint32) uint32 {
	var d uint32
	for s := uint32(1 << 15); s > 0; s >>= 1 {
		var rx, ry uint32
		if x&s != 0 {
			rx = 1
		}
		if y&s != 0 {
			ry = 1
		}
		d += s * s * ((3 * rx) ^ ry)
		if ry == 0 {
			if rx == 1 {
				x, y = 65535-x, 65535-y
			}
			x, y = y, x
		}
	}
	return d
}
