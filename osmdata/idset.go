package osmdata

import (
	"cmp"
	"encoding/binary"
	"slices"
	"sort"
)

// idSet is a sorted set of OSM ids, delta-encoded: blocks of idBlock ids,
// the first kept whole, the others as varint gaps from the previous. Node
// ids used by an extract's ways are dense enough that a gap takes one or
// two bytes, so a state's 70 million nodes take about 150 MB instead of
// 560 as []int64. The rank of an id (its index in the set) indexes the
// coordinate table.
type idSet struct {
	first []int64 // first id of each block
	off   []int   // offset in data of each block's gaps
	data  []byte
	n     int
}

const idBlock = 32

// setWriter appends increasing ids to an idSet.
type setWriter struct {
	s    idSet
	last int64
}

func (w *setWriter) add(id int64) {
	if w.s.n > 0 && id <= w.last {
		return // duplicate (callers add in increasing order)
	}
	if w.s.n%idBlock == 0 {
		w.s.first = append(w.s.first, id)
		w.s.off = append(w.s.off, len(w.s.data))
	} else {
		w.s.data = binary.AppendUvarint(w.s.data, uint64(id-w.last))
	}
	w.last = id
	w.s.n++
}

// setIter walks an idSet in order.
type setIter struct {
	s    *idSet
	i    int // rank of the current id
	id   int64
	pos  int
	done bool
}

func (s *idSet) iter() *setIter {
	it := &setIter{s: s, i: -1}
	it.next()
	return it
}

func (it *setIter) next() {
	it.i++
	if it.i >= it.s.n {
		it.done = true
		return
	}
	if it.i%idBlock == 0 {
		b := it.i / idBlock
		it.id, it.pos = it.s.first[b], it.s.off[b]
		return
	}
	g, k := binary.Uvarint(it.s.data[it.pos:])
	it.id += int64(g)
	it.pos += k
}

// rank is the index of id in the set, false when absent.
func (s *idSet) rank(id int64) (int, bool) {
	b := sort.Search(len(s.first), func(i int) bool { return s.first[i] > id }) - 1
	if b < 0 {
		return 0, false
	}
	cur, pos := s.first[b], s.off[b]
	r := b * idBlock
	end := min(s.n, r+idBlock)
	for {
		if cur == id {
			return r, true
		}
		if cur > id || r+1 >= end {
			return 0, false
		}
		g, k := binary.Uvarint(s.data[pos:])
		cur += int64(g)
		pos += k
		r++
	}
}

// idCollector gathers ids in any order into an idSet, in chunks sorted
// and merged into the set, so the peak is the set plus one chunk rather
// than every id as int64.
type idCollector struct {
	buf   []int64
	set   idSet
	chunk int // ids per sorted chunk; 0: collectChunk
}

const collectChunk = 1 << 22 // 32 MB of ids

func (c *idCollector) add(ids ...int64) {
	for _, id := range ids {
		c.buf = append(c.buf, id)
		if len(c.buf) >= cmp.Or(c.chunk, collectChunk) {
			c.flush()
		}
	}
}

func (c *idCollector) flush() {
	if len(c.buf) == 0 {
		return
	}
	slices.Sort(c.buf)
	c.buf = slices.Compact(c.buf)
	var w setWriter
	w.s.data = make([]byte, 0, len(c.set.data)+2*len(c.buf))
	it, i := c.set.iter(), 0
	for !it.done || i < len(c.buf) {
		if it.done || (i < len(c.buf) && c.buf[i] < it.id) {
			w.add(c.buf[i])
			i++
			continue
		}
		w.add(it.id)
		it.next()
	}
	c.set, c.buf = w.s, c.buf[:0]
}

// done returns the set; the collector is spent.
func (c *idCollector) done() idSet {
	c.flush()
	c.buf = nil
	s := c.set
	s.data = slices.Clip(s.data)
	return s
}
