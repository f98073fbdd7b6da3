package lod2store

import (
	"context"
	"fmt"

	"github.com/svc-geodata/svc/geo"
)

// WriterState is what a LoD2Writer has written up to a Checkpoint: with
// it ResumeLoD2 continues the file after the writing process died.
type WriterState struct {
	EPSG                                            int
	Buildings, Surfaces, ValidBuildings, Duplicates int64
	Roofs                                           int64
	SpoolBytes                                      int64  // search records spooled
	Sources                                         int64  // source_files rows
	Prev                                            string // see CreateLoD2From
}

// Checkpoint commits what was added so far and starts a new transaction.
// A process killed after it returned leaves the file as the returned state
// describes (rows added later are rolled back by SQLite's journal, or
// removed by ResumeLoD2); a kill before it returns leaves the previous
// checkpoint's state.
func (w *LoD2Writer) Checkpoint(ctx context.Context) (WriterState, error) {
	if w.patch != nil {
		return WriterState{}, fmt.Errorf("store: checkpoint %s: a patching writer does not checkpoint", w.path)
	}
	if err := w.spool.flush(); err != nil {
		return WriterState{}, fmt.Errorf("store: checkpoint %s: %w", w.path, err)
	}
	if err := w.tx.Commit(); err != nil {
		return WriterState{}, fmt.Errorf("store: checkpoint %s: %w", w.path, err)
	}
	w.tx = nil
	if err := w.begin(ctx); err != nil {
		return WriterState{}, fmt.Errorf("store: checkpoint %s: %w", w.path, err)
	}
	return w.state(), nil
}

// State returns what the writer has written so far (committed or not).
func (w *LoD2Writer) State() WriterState { return w.state() }

func (w *LoD2Writer) state() WriterState {
	return WriterState{EPSG: w.epsg, Buildings: w.stats.Buildings, Surfaces: w.stats.Surfaces,
		ValidBuildings: w.stats.ValidBuildings, Duplicates: w.stats.Duplicates, Roofs: w.roofs,
		SpoolBytes: w.spool.size, Sources: w.sources, Prev: w.prevPath()}
}

// ResumeLoD2 reopens the file at path that a LoD2Writer was writing when
// its process died, as of the checkpoint st: rows past it are deleted, the
// search record spool is cut back to it and re-read for the index. Errors
// wrap ErrCorrupt when the file or spool holds less than st says.
func ResumeLoD2(ctx context.Context, path string, st WriterState) (*LoD2Writer, error) {
	zone, err := geo.ZoneForEPSG(st.EPSG)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	db, err := openWriteDB(path) // SQLite rolls back a transaction cut short
	if err != nil {
		return nil, fmt.Errorf("store: resume %s: %w", path, err)
	}
	w := &LoD2Writer{path: path, db: db, zone: zone, epsg: st.EPSG, prep: &Preparer{zone: zone, epsg: st.EPSG}}
	fail := func(err error) (*LoD2Writer, error) {
		db.Close()
		if w.spool != nil {
			w.spool.closeFiles()
		}
		return nil, fmt.Errorf("store: resume %s: %w", path, err)
	}
	var ok string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&ok); err != nil || ok != "ok" {
		return fail(fmt.Errorf("%w: quick_check: %s %v", ErrCorrupt, ok, err))
	}
	var nb, ns int64
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM buildings WHERE building_id <= ?), (SELECT count(*) FROM surfaces WHERE surface_id <= ?)`,
		st.Buildings, st.Surfaces).Scan(&nb, &ns); err != nil {
		return fail(err)
	}
	if nb != st.Buildings || ns != st.Surfaces {
		return fail(fmt.Errorf("%w: %d buildings and %d surfaces, the checkpoint says %d and %d", ErrCorrupt, nb, ns, st.Buildings, st.Surfaces))
	}
	// A process killed between a commit and the caller's record of it
	// leaves rows the checkpoint does not know.
	for _, q := range []string{
		`DELETE FROM surfaces WHERE surface_id > ?2`,
		`DELETE FROM buildings WHERE building_id > ?1`,
		`DELETE FROM building_ids WHERE building_id > ?1`,
		`DELETE FROM source_files WHERE file_id > ?3`,
		`DELETE FROM building_attrs WHERE building_id > ?1`,
		`DELETE FROM addresses WHERE building_id > ?1`,
		`DELETE FROM building_bbox WHERE building_id > ?1`,
	} {
		if _, err := db.ExecContext(ctx, q, st.Buildings, st.Surfaces, st.Sources); err != nil {
			return fail(err)
		}
	}
	if w.spool, err = reopenSpool(path+".spool", st.SpoolBytes, st.Surfaces); err != nil {
		return fail(err)
	}
	w.stats = LoD2Stats{Buildings: st.Buildings, Surfaces: st.Surfaces, ValidBuildings: st.ValidBuildings, Duplicates: st.Duplicates}
	w.roofs, w.sources = st.Roofs, st.Sources
	w.lastB, w.lastS = st.Buildings, st.Surfaces
	if st.Prev != "" {
		w.prev = &prevPack{path: st.Prev}
		if err := w.attach(ctx); err != nil {
			return fail(err)
		}
	}
	if err := w.begin(ctx); err != nil {
		return fail(err)
	}
	return w, nil
}

// Close ends the writer without finishing the file and keeps what the
// last Checkpoint committed (the open transaction is rolled back), for
// ResumeLoD2.
func (w *LoD2Writer) Close() {
	if w.tx != nil {
		_ = w.tx.Rollback()
		w.tx = nil
	}
	_ = w.detach(context.Background())
	_ = w.db.Close()
	if w.spool != nil {
		w.spool.closeFiles()
	}
}

func (w *LoD2Writer) prevPath() string {
	if w.prev == nil {
		return ""
	}
	return w.prev.path
}
