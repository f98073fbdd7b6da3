package lod2store

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// writeMergedSearch writes the search file: the kept records of the
// previous one in their order, with the new ones (sorted in leaves) merged
// in where a full import's order puts them: by Hilbert key over the same
// extent, ties in input order. It returns the new surfaces' ids and
// float32 boxes in that order, for the R*Tree.
func (w *LoD2Writer) writeMergedSearch(ctx context.Context, leaves string) ([]spatialite.Entry, error) {
	sw, err := newSearchWriter(w.path+SearchFileSuffix, int(w.stats.Surfaces))
	if err != nil {
		return nil, err
	}
	defer sw.close()
	m := &merger{p: w.patch, old: w.patch.search, sw: sw, keyer: newHilbertKeyer(w.patch.ext),
		added: make([]spatialite.Entry, 0, w.spool.count)}
	if w.spool.count > 0 {
		if err := m.mergeNew(ctx, leaves, w.spool.f.Name()); err != nil {
			return nil, err
		}
	}
	if err := m.emitOld(ctx, m.old.idx.n); err != nil {
		return nil, err
	}
	return m.added, sw.finish()
}

// merger merges the previous search file's kept records with new ones.
type merger struct {
	p     *patchState
	old   *searchFile
	sw    *searchWriter
	keyer hilbertKeyer
	cur   int                // the next old leaf position to write
	added []spatialite.Entry // the new surfaces, in the file's order
}

// add writes one surface to the search file, noting a new one.
func (m *merger) add(sid uint32, b [4]float32, rec []byte) error {
	if int64(sid) > m.p.oldS {
		m.added = append(m.added, spatialite.Entry{ID: int64(sid),
			Rect: spatialite.Rect{MinX: float64(b[0]), MinY: float64(b[1]), MaxX: float64(b[2]), MaxY: float64(b[3])}})
	}
	return m.sw.add(sid, b, rec)
}

// emitOld writes the kept old leaves before position upto.
func (m *merger) emitOld(ctx context.Context, upto int) error {
	for ; m.cur < upto; m.cur++ {
		if m.cur%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			dropPages(m.old.data)
		}
		sid := m.old.idx.ids[m.cur]
		if m.p.removed(int64(sid)) {
			continue
		}
		r, err := m.old.record(m.cur)
		if err != nil {
			return err
		}
		l := m.old.idx.levels[0][4*m.cur : 4*m.cur+4]
		if err := m.add(sid, [4]float32{l[0], l[1], l[2], l[3]}, r); err != nil {
			return err
		}
	}
	return nil
}

// mergeNew writes the new surfaces of the sorted leaf file, each after
// the old leaves that come before it.
func (m *merger) mergeNew(ctx context.Context, leaves, spool string) error {
	sp, err := os.Open(spool)
	if err != nil {
		return err
	}
	defer sp.Close()
	lr, err := openLeaves(leaves)
	if err != nil {
		return err
	}
	defer lr.close()
	var rec []byte
	for {
		ok, err := lr.next()
		if err != nil || !ok {
			return err
		}
		e := &lr.cur
		sid := m.p.oldS + int64(e.sid) // new surfaces are numbered on from the last old id
		span := m.p.spanOf(sid)
		if span == nil {
			return fmt.Errorf("%w: new surface %d of no source", ErrCorrupt, sid)
		}
		at, err := m.insertionPoint(e.key, span.input)
		if err != nil {
			return err
		}
		if err := m.emitOld(ctx, at); err != nil {
			return err
		}
		if rec, err = readSpooled(sp, rec, e); err != nil {
			return err
		}
		if err := m.add(uint32(sid), leafBox(e.bb), rec); err != nil {
			return err
		}
	}
}

// insertionPoint is the first old leaf position from cur on that comes
// after a new surface of Hilbert key and input file index input: key
// first, ties by input order (removed leaves do not matter). It gallops
// from cur, since the new surfaces of a file lie close together on the
// curve, and reads the keys of the old leaves it probes from their
// records.
func (m *merger) insertionPoint(key uint32, input int) (int, error) {
	var kerr error
	keyAt := func(pos int) uint32 {
		r, err := m.old.record(pos)
		if err == nil {
			var pr parsed
			if pr, err = parseRecord(r); err == nil {
				return m.keyer.key(recordBox(pr))
			}
		}
		if kerr == nil {
			kerr = err
		}
		return math.MaxUint32
	}
	n := m.old.idx.n
	lo, step := m.cur, 1
	for lo+step-1 < n && keyAt(lo+step-1) < key {
		lo, step = lo+step, 2*step
	}
	hi := min(lo+step-1, n)
	at := lo + sortSearch(hi-lo, func(i int) bool { return keyAt(lo+i) >= key })
	for ; kerr == nil && at < n && keyAt(at) == key; at++ {
		osid := int64(m.old.idx.ids[at])
		if m.p.removed(osid) {
			continue
		}
		if os := m.p.spanOf(osid); os == nil || os.input > input {
			break
		}
	}
	return at, kerr
}

// removed reports whether old surface sid belongs to a removed source.
func (p *patchState) removed(sid int64) bool { return sid <= p.oldS && p.gone[sid] }

// sortSearch is sort.Search.
func sortSearch(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if !f(h) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}
