package lod2store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// onSides says which sides of ext b lies on.
func onSides(b, ext box) [4]bool {
	return [4]bool{b.minX == ext.minX, b.minY == ext.minY, b.maxX == ext.maxX, b.maxY == ext.maxY}
}

// keepsExtent reports whether the new file's surfaces span the previous
// extent exactly: the new ones lie within it, and each side a removed
// surface lay on is still reached by a new or a kept one (found from the
// index's float32 boxes, checked on the record).
func (w *LoD2Writer) keepsExtent() (bool, error) {
	p := w.patch
	e := w.spool.ext
	if w.spool.count > 0 && (e.minX < p.ext.minX || e.minY < p.ext.minY || e.maxX > p.ext.maxX || e.maxY > p.ext.maxY) {
		return false, nil
	}
	need := p.lost
	if w.spool.count > 0 {
		for i, on := range onSides(e, p.ext) {
			need[i] = need[i] && !on
		}
	}
	if need == [4]bool{} {
		return true, nil
	}
	want := leafBox(p.ext)
	l0 := p.search.idx.levels[0]
	for pos := range p.search.idx.n {
		b := l0[4*pos : 4*pos+4]
		if !(need[0] && b[0] == want[0] || need[1] && b[1] == want[1] || need[2] && b[2] == want[2] || need[3] && b[3] == want[3]) {
			continue
		}
		if sid := int64(p.search.idx.ids[pos]); sid <= p.oldS && p.gone[sid] {
			continue
		}
		r, err := p.search.record(pos)
		if err != nil {
			return false, err
		}
		pr, err := parseRecord(r)
		if err != nil {
			return false, err
		}
		for i, on := range onSides(recordBox(pr), p.ext) {
			need[i] = need[i] && !on
		}
		if need == [4]bool{} {
			return true, nil
		}
	}
	return false, nil
}

// checkDuplicate is called for a gml:id AddPrepared found written
// already: when patching, a full import would have kept this occurrence
// instead if the one written belongs to a kept file later in the input.
func (w *LoD2Writer) checkDuplicate(ctx context.Context, gmlid string) error {
	if w.patch == nil {
		return nil
	}
	var bid int64
	if err := w.tx.QueryRowContext(ctx, `SELECT building_id FROM building_ids WHERE gmlid = ?`, gmlid).Scan(&bid); err != nil {
		return fmt.Errorf("store: building %s: %w", gmlid, err)
	}
	for _, s := range w.patch.order {
		if bid >= s.firstB && bid < s.firstB+s.buildings && s.input > w.patch.cur {
			return fmt.Errorf("%w: %s is repeated by a later unchanged file", ErrNoPatch, gmlid)
		}
	}
	return nil
}

// spanOf is the source of surface sid.
func (p *patchState) spanOf(sid int64) *sourceSpan {
	i, _ := slices.BinarySearchFunc(p.order, sid, func(s sourceSpan, sid int64) int {
		switch {
		case sid < s.firstS:
			return 1
		case sid >= s.firstS+s.surfaces:
			return -1
		}
		return 0
	})
	if i < len(p.order) && sid >= p.order[i].firstS && sid < p.order[i].firstS+p.order[i].surfaces {
		return &p.order[i]
	}
	return nil
}

// finishPatch is Finish for a patching writer.
func (w *LoD2Writer) finishPatch(ctx context.Context, meta map[string]string) (LoD2Stats, error) {
	p := w.patch
	fail := func(err error) (LoD2Stats, error) {
		w.Abort()
		return LoD2Stats{}, fmt.Errorf("store: finish %s: %w", w.path, err)
	}
	if w.stats.Surfaces == 0 {
		return fail(fmt.Errorf("%w: no building surfaces", ErrInput))
	}
	if err := w.spool.flush(); err != nil {
		return fail(err)
	}
	if ok, err := w.keepsExtent(); err != nil {
		return fail(err)
	} else if !ok {
		return fail(fmt.Errorf("%w: the extent changes", ErrNoPatch))
	}
	leaves := w.path + ".leaves"
	defer os.Remove(leaves)
	if w.spool.count > 0 {
		if err := sortLeaves(ctx, w.spool.bf.Name(), w.spool.count, p.ext, w.runEntries(), leaves); err != nil {
			return fail(err)
		}
	}
	w.spool.ext = p.ext
	if err := w.writeMeta(ctx, meta); err != nil {
		return fail(err)
	}
	added, err := w.writeMergedSearch(ctx, leaves)
	if err != nil {
		return fail(err)
	}
	if err := w.patchRTree(ctx, added); err != nil {
		return fail(err)
	}
	if err := w.tx.Commit(); err != nil {
		return fail(err)
	}
	w.tx = nil
	// sqlite_stat1 is the previous file's: the query plans do not depend
	// on the few rows that changed, and ANALYZE reads every index.
	if err := w.db.Close(); err != nil {
		return fail(err)
	}
	if err := syncFile(w.path); err != nil {
		return fail(err)
	}
	p.search.close()
	p.search = nil
	w.spool.close()
	// The tile file is derived from the finished file: written again
	// whole (docs/performance.md has what that adds to a re-import).
	if err := buildTileFile(ctx, w.path); err != nil {
		return fail(err)
	}
	return w.stats, nil
}

// patchRTree brings the R*Tree for GIS tools up to date at a cost that
// follows the change (spatialite.PatchSpatialIndex): the removed files'
// surfaces leave it, the new ones (added, in the search file's order) are
// inserted. When that is not worth it (a large change, or a tree loosened
// by earlier patches) it packs the tree again from the new search file's
// order, as a full import packs it. Either way the layer statistics get
// the exact extent, as a full import's.
func (w *LoD2Writer) patchRTree(ctx context.Context, added []spatialite.Entry) error {
	p := w.patch
	e := p.ext
	ext := spatialite.Rect{MinX: e.minX, MinY: e.minY, MaxX: e.maxX, MaxY: e.maxY}
	err := spatialite.PatchSpatialIndex(ctx, w.tx, "surfaces", "geom", p.goneRanges, added, w.stats.Surfaces, ext)
	if !errors.Is(err, spatialite.ErrRepack) {
		return err
	}
	return w.packRTree(ctx)
}

// packRTree writes the R*Tree for GIS tools again, packed from the order
// of the new search file (surface id and float32 box of each leaf), as a
// full import packs it; the layer statistics get the exact extent, as a
// full import's.
func (w *LoD2Writer) packRTree(ctx context.Context) error {
	sf, err := openSearchFile(w.path + SearchFileSuffix)
	if err != nil {
		return err
	}
	defer sf.close()
	l0 := sf.idx.levels[0]
	entries := func(yield func(int64, spatialite.Rect) bool) {
		for pos := range sf.idx.n {
			b := l0[4*pos : 4*pos+4]
			r := spatialite.Rect{MinX: float64(b[0]), MinY: float64(b[1]), MaxX: float64(b[2]), MaxY: float64(b[3])}
			if !yield(int64(sf.idx.ids[pos]), r) {
				return
			}
		}
	}
	if err := spatialite.CreateSpatialIndexPacked(ctx, w.tx, "surfaces", "geom", int(w.stats.Surfaces), entries); err != nil {
		return err
	}
	e := w.patch.ext
	_, err = w.tx.ExecContext(ctx, `UPDATE geometry_columns_statistics SET extent_min_x = ?, extent_min_y = ?, extent_max_x = ?, extent_max_y = ?
WHERE f_table_name = 'surfaces' AND f_geometry_column = 'geom'`, e.minX, e.minY, e.maxX, e.maxY)
	return err
}
