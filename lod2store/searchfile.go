package lod2store

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// The search file sits beside the SpatiaLite file (<file>.search) and holds
// the packed R-tree followed by one record per surface in leaf order, so
// that a page of search results is read from consecutive, memory-mapped
// bytes without a database round trip.
//
//	"SVCSRCH1", u64 index length, index bytes,
//	(n+1) x u64 record offsets (relative to the first record), records.
const searchMagic = "SVCSRCH1"

// SearchFileSuffix is appended to the SpatiaLite file's name.
const SearchFileSuffix = ".search"

// dropEvery is how many records are read from a mapping between drops of
// its pages (dropPages), so that a long scan does not keep them all in the
// process's RSS.
const dropEvery = 512

// indexLevels is the number of boxes on each level of a packed index of
// n leaves, leaves first, up to the single root.
func indexLevels(n int) []int {
	counts := []int{n}
	for c := n; c > 1; {
		c = (c + nodeSize - 1) / nodeSize
		counts = append(counts, c)
	}
	return counts
}

// writeSearchFile writes the search file at path from the n leaf entries
// of the file leaves (in leaf order) and the spooled records, and syncs
// it. Every section (ids, each level of boxes, offsets, records) is
// written as a stream at its own offset, known from n: memory does not
// depend on n.
func writeSearchFile(ctx context.Context, path, leaves string, n int, spool string) error {
	sw, err := newSearchWriter(path, n)
	if err != nil {
		return err
	}
	defer sw.close()
	// The records are read with one pread each, not through a mapping:
	// in leaf order they come from all over the spool, and each fault of
	// a mapping maps the pages around it too (fault-around, large folios),
	// so the whole spool soon counted in the process's RSS (measured: 120
	// MB of 122 within 512 records). Dropping the touched pages every few
	// records (madvise) instead cost more system time than the preads
	// (2,560 files: 2.8 s against 1.9 s) and kept more resident.
	sp, err := os.Open(spool)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer sp.Close()
	var rec []byte
	lr, err := openLeaves(leaves)
	if err != nil {
		return err
	}
	defer lr.close()
	for i := range n {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %d leaf entries, want %d", ErrCorrupt, i, n)
		}
		e := &lr.cur
		if rec, err = readSpooled(sp, rec, e); err != nil {
			return err
		}
		if err := sw.add(e.sid, leafBox(e.bb), rec); err != nil {
			return err
		}
	}
	return sw.finish()
}

// readSpooled reads the spooled record of e into buf.
func readSpooled(sp *os.File, buf []byte, e *leafEntry) ([]byte, error) {
	buf = slices.Grow(buf[:0], int(e.n))[:e.n]
	if _, err := sp.ReadAt(buf, int64(e.off)); err != nil {
		return buf, fmt.Errorf("%w: spool record at %d+%d: %v", ErrCorrupt, e.off, e.n, err)
	}
	return buf, nil
}

// leafBox is a box as the index stores it: float32, rounded outwards.
func leafBox(b box) [4]float32 {
	return [4]float32{down(b.minX), down(b.minY), up(b.maxX), up(b.maxY)}
}

// searchWriter writes a search file of n surfaces given in leaf order.
type searchWriter struct {
	out     *os.File
	n, i    int
	ids     *bufio.Writer
	levels  []*bufio.Writer
	offs    *bufio.Writer
	records *bufio.Writer
	casc    *levelCascade
	off     uint64
	b8      [8]byte
}

func newSearchWriter(path string, n int) (*searchWriter, error) {
	return newRecordWriter(path, searchMagic, n)
}

// newRecordWriter writes a file of the search file's layout under
// another magic (the tile file, tilefile.go).
func newRecordWriter(path, magic string, n int) (*searchWriter, error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	counts := indexLevels(n)
	indexLen := int64(indexHeader + 4*n)
	for _, c := range counts {
		indexLen += 16 * int64(c)
	}
	var head []byte
	head = append(head, magic...)
	head = binary.LittleEndian.AppendUint64(head, uint64(indexLen))
	head = append(head, indexMagic...)
	head = binary.LittleEndian.AppendUint32(head, uint32(n))
	head = binary.LittleEndian.AppendUint32(head, nodeSize)
	if _, err := out.Write(head); err != nil {
		out.Close()
		return nil, err
	}
	at := int64(len(head))
	section := func(size int64, buf int) *bufio.Writer {
		w := bufio.NewWriterSize(io.NewOffsetWriter(out, at), buf)
		at += size
		return w
	}
	sw := &searchWriter{out: out, n: n}
	sw.ids = section(4*int64(n), 1<<16)
	sw.levels = make([]*bufio.Writer, len(counts))
	for l, c := range counts {
		sw.levels[l] = section(16*int64(c), 1<<16)
	}
	sw.offs = section(8*int64(n+1), 1<<16)
	sw.records = section(0, 1<<20) // most of the file
	sw.casc = newLevelCascade(sw.levels)
	return sw, nil
}

// add writes the next surface in leaf order: its id, index box and record.
func (sw *searchWriter) add(id uint32, b [4]float32, rec []byte) error {
	if sw.i++; sw.i > sw.n {
		return fmt.Errorf("%w: more than %d surfaces", ErrCorrupt, sw.n)
	}
	binary.LittleEndian.PutUint32(sw.b8[:], id)
	sw.ids.Write(sw.b8[:4])
	sw.casc.add(0, b)
	binary.LittleEndian.PutUint64(sw.b8[:], sw.off)
	sw.offs.Write(sw.b8[:])
	sw.off += uint64(len(rec))
	_, err := sw.records.Write(rec)
	return err
}

// finish writes the rest of the index, flushes and syncs the file.
func (sw *searchWriter) finish() error {
	if sw.i != sw.n {
		return fmt.Errorf("%w: %d surfaces written, want %d", ErrCorrupt, sw.i, sw.n)
	}
	sw.casc.finish()
	binary.LittleEndian.PutUint64(sw.b8[:], sw.off)
	sw.offs.Write(sw.b8[:])
	for _, w := range append(append([]*bufio.Writer{sw.ids}, sw.levels...), sw.offs, sw.records) {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if sw.casc.err != nil {
		return sw.casc.err
	}
	return sw.out.Sync()
}

func (sw *searchWriter) close() error { return sw.out.Close() }

// levelCascade writes the boxes of each index level as the level below
// is written: a node's box is the float32 cover of its nodeSize children,
// as buildIndex computes it from the whole level.
type levelCascade struct {
	w     []*bufio.Writer
	acc   [][4]float32
	count []int
	buf   [16]byte
	err   error
}

func newLevelCascade(w []*bufio.Writer) *levelCascade {
	return &levelCascade{w: w, acc: make([][4]float32, len(w)), count: make([]int, len(w))}
}

func (c *levelCascade) add(level int, b [4]float32) {
	for i, f := range b {
		binary.LittleEndian.PutUint32(c.buf[4*i:], math.Float32bits(f))
	}
	if _, err := c.w[level].Write(c.buf[:]); err != nil && c.err == nil {
		c.err = err
	}
	if level+1 >= len(c.w) {
		return
	}
	p := level + 1
	if c.count[p] == 0 {
		c.acc[p] = [4]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(-1))}
	}
	a := &c.acc[p]
	a[0], a[1] = min(a[0], b[0]), min(a[1], b[1])
	a[2], a[3] = max(a[2], b[2]), max(a[3], b[3])
	if c.count[p]++; c.count[p] == nodeSize {
		c.count[p] = 0
		c.add(p, *a)
	}
}

// finish writes the last, partly filled node of each level.
func (c *levelCascade) finish() {
	for l := 1; l < len(c.w); l++ {
		if c.count[l] > 0 {
			c.count[l] = 0
			c.add(l, c.acc[l])
		}
	}
}

// searchFile is an open search file.
type searchFile struct {
	data    []byte // the whole file, memory-mapped where the OS allows
	unmap   func() error
	idx     *packedIndex
	offs    []byte // (n+1) u64
	records []byte
}

func openSearchFile(path string) (*searchFile, error) {
	return openRecordFile(path, searchMagic)
}

// openRecordFile opens a file of the search file's layout under magic.
func openRecordFile(path, magic string) (*searchFile, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	sf := &searchFile{data: data, unmap: unmap}
	if err := sf.parse(magic); err != nil {
		unmap()
		return nil, err
	}
	return sf, nil
}

func (sf *searchFile) parse(magic string) error {
	d := sf.data
	if len(d) < 16 || string(d[:8]) != magic {
		return fmt.Errorf("%w: %s file header", ErrCorrupt, magic)
	}
	il := binary.LittleEndian.Uint64(d[8:])
	if il > uint64(len(d)-16) {
		return fmt.Errorf("%w: search file index length", ErrCorrupt)
	}
	idx, err := loadIndex(d[16 : 16+il])
	if err != nil {
		return err
	}
	sf.idx = idx
	rest := d[16+il:]
	ol := 8 * (uint64(idx.n) + 1)
	if ol > uint64(len(rest)) {
		return fmt.Errorf("%w: search file offsets", ErrCorrupt)
	}
	sf.offs, sf.records = rest[:ol], rest[ol:]
	if binary.LittleEndian.Uint64(sf.offs[ol-8:]) != uint64(len(sf.records)) {
		return fmt.Errorf("%w: search file records length", ErrCorrupt)
	}
	return nil
}

// record returns the record at a leaf position.
func (sf *searchFile) record(pos int) (record, error) {
	a := binary.LittleEndian.Uint64(sf.offs[8*pos:])
	b := binary.LittleEndian.Uint64(sf.offs[8*pos+8:])
	if a > b || b > uint64(len(sf.records)) {
		return nil, fmt.Errorf("%w: record %d offsets", ErrCorrupt, pos)
	}
	return sf.records[a:b], nil
}

func (sf *searchFile) close() error { return sf.unmap() }

// readAll is the fallback where files cannot be mapped.
func readAll(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return b, func() error { return nil }, err
}
