package lod2store

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
)

// The search index and the R*Tree need the surfaces in Hilbert order.
// Their leaf entries (box and record position, 52 bytes each) are spooled
// to disk as surfaces come in; Finish sorts them in runs of at most
// runEntries in memory, writes each run to the work directory and merges
// the runs into one file in leaf order, which the search file and the
// R*Tree are then written from as streams. Memory is bounded by the run
// length whatever the number of surfaces (an external merge sort); the
// order, and so every byte written, is that of one in-memory stable sort
// by Hilbert key: ties keep the surface id order.

// leafEntry is one surface: Hilbert key (set when sorted), surface id,
// box in the pack's CRS, and its search record's offset and length in the
// spool.
type leafEntry struct {
	key, sid uint32
	bb       box
	off      uint64
	n        uint32
}

const leafEntrySize = 4 + 4 + 32 + 8 + 4

// defaultRunEntries is the run length: 512 Ki entries, about 28 MB.
const defaultRunEntries = 1 << 19

// checkEvery is how many entries a loop handles between checks of its
// context.
const checkEvery = 4096

func (e *leafEntry) put(b []byte) {
	le := binary.LittleEndian
	le.PutUint32(b, e.key)
	le.PutUint32(b[4:], e.sid)
	le.PutUint64(b[8:], math.Float64bits(e.bb.minX))
	le.PutUint64(b[16:], math.Float64bits(e.bb.minY))
	le.PutUint64(b[24:], math.Float64bits(e.bb.maxX))
	le.PutUint64(b[32:], math.Float64bits(e.bb.maxY))
	le.PutUint64(b[40:], e.off)
	le.PutUint32(b[48:], e.n)
}

func (e *leafEntry) get(b []byte) {
	le := binary.LittleEndian
	e.key = le.Uint32(b)
	e.sid = le.Uint32(b[4:])
	e.bb = box{math.Float64frombits(le.Uint64(b[8:])), math.Float64frombits(le.Uint64(b[16:])),
		math.Float64frombits(le.Uint64(b[24:])), math.Float64frombits(le.Uint64(b[32:]))}
	e.off = le.Uint64(b[40:])
	e.n = le.Uint32(b[48:])
}

func leafLess(a, b *leafEntry) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.sid, b.sid)
}

// hilbertKeyer computes the Hilbert key of a box's centre over the extent
// of all boxes (65,536 cells a side).
type hilbertKeyer struct {
	ext  box
	w, h float64
}

func newHilbertKeyer(ext box) hilbertKeyer {
	return hilbertKeyer{ext: ext, w: math.Max(ext.maxX-ext.minX, 1e-9), h: math.Max(ext.maxY-ext.minY, 1e-9)}
}

func (k hilbertKeyer) key(b box) uint32 {
	x := uint32(65535 * ((b.minX+b.maxX)/2 - k.ext.minX) / k.w)
	y := uint32(65535 * ((b.minY+b.maxY)/2 - k.ext.minY) / k.h)
	return hilbert(x, y)
}

// sortLeaves reads the n leaf entries of the file in, keys them over ext
// and writes them in leaf order to out, using files out.run<i> for runs of
// runEntries entries. Errors wrap ErrCorrupt when in holds fewer entries.
func sortLeaves(ctx context.Context, in string, n int64, ext box, runEntries int, out string) (err error) {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	keyer := newHilbertKeyer(ext)
	chunk := make([]leafEntry, 0, min(int64(runEntries), n))
	var runs []string
	defer func() {
		for _, p := range runs {
			os.Remove(p)
		}
	}()
	var buf [leafEntrySize]byte
	for read := int64(0); read < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk = chunk[:0]
		for ; read < n && len(chunk) < runEntries; read++ {
			if _, err := io.ReadFull(r, buf[:]); err != nil {
				return fmt.Errorf("%w: leaf entry %d of %d: %v", ErrCorrupt, read+1, n, err)
			}
			var e leafEntry
			e.get(buf[:])
			e.key = keyer.key(e.bb)
			chunk = append(chunk, e)
		}
		slices.SortFunc(chunk, func(a, b leafEntry) int { return leafLess(&a, &b) })
		p := out
		if read < n || len(runs) > 0 {
			p = out + ".run" + strconv.Itoa(len(runs))
			runs = append(runs, p)
		}
		if err := writeLeaves(p, chunk); err != nil {
			return err
		}
	}
	if len(runs) == 0 {
		return nil
	}
	return mergeRuns(ctx, runs, out)
}

func writeLeaves(path string, es []leafEntry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	var buf [leafEntrySize]byte
	for i := range es {
		es[i].put(buf[:])
		w.Write(buf[:])
	}
	return errors.Join(w.Flush(), f.Close())
}

// leafReader reads a file of leaf entries in order.
type leafReader struct {
	f   *os.File
	r   *bufio.Reader
	buf [leafEntrySize]byte
	cur leafEntry
}

func openLeaves(path string) (*leafReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &leafReader{f: f, r: bufio.NewReaderSize(f, 1<<16)}, nil
}

// next reads the next entry into cur; false at the end of the file.
func (lr *leafReader) next() (bool, error) {
	if _, err := io.ReadFull(lr.r, lr.buf[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fmt.Errorf("%w: leaf entries: %v", ErrCorrupt, err)
	}
	lr.cur.get(lr.buf[:])
	return true, nil
}

func (lr *leafReader) close() error { return lr.f.Close() }

// runHeap orders the run readers by their current entry.
type runHeap []*leafReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return leafLess(&h[i].cur, &h[j].cur) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*leafReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns merges sorted runs into out.
func mergeRuns(ctx context.Context, runs []string, out string) error {
	var h runHeap
	defer func() {
		for _, lr := range h {
			lr.close()
		}
	}()
	for _, p := range runs {
		lr, err := openLeaves(p)
		if err != nil {
			return err
		}
		ok, err := lr.next()
		if err != nil || !ok {
			lr.close()
			return fmt.Errorf("%w: empty run %s (%v)", ErrCorrupt, p, err)
		}
		h = append(h, lr)
	}
	heap.Init(&h)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	var buf [leafEntrySize]byte
	for i := 0; len(h) > 0; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				f.Close()
				return err
			}
		}
		top := h[0]
		top.cur.put(buf[:])
		w.Write(buf[:])
		ok, err := top.next()
		if err != nil {
			f.Close()
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			top.close()
			heap.Pop(&h)
		}
	}
	return errors.Join(w.Flush(), f.Close())
}
