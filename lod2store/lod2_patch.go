package lod2store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// A new snapshot in which few source files changed is written by patching
// a copy of the previous snapshot's LoD2 file (PatchLoD2) instead of
// writing every row again: the copy is made by the kernel
// (copy_file_range, a reflink where the file system shares extents), the
// rows of the source files that are gone or changed are deleted by their
// source_files id ranges (Keep, Drop), the changed files are added as
// usual with ids after the previous file's last ones, and Finish updates
// the R*Tree row by row and writes the search file by merging the kept
// records (copied as bytes) with the new ones along the same Hilbert
// curve. What a user sees is what a full import of the same files gives
// (same buildings, surfaces, properties, search pages and their order,
// statistics, summary); only the ids of the new rows differ (the removed
// files' ids stay unused). The previous file is only read.
//
// The merge keeps the order of a full import only when the Hilbert curve
// is laid over the same extent, when the kept files come in the same
// order as before, and when no changed file repeats a gml:id that a later
// kept file holds (a full import keeps the first occurrence): otherwise
// Drop, AddPrepared or Finish fail with ErrNoPatch and the caller writes a
// new file instead.

// ErrNoPatch reports that the previous pack cannot be patched into the
// new one; nothing is published, the caller writes a new file.
var ErrNoPatch = errors.New("store: previous pack cannot be patched")

// patchState is what a patching writer knows of the previous file.
type patchState struct {
	prev    string
	search  *searchFile // the previous search file, mapped
	ext     box         // the previous file's exact extent
	oldS    int64       // the previous file's last surface id
	sources []SourceFile
	input   map[int64]int // kept file id -> input index
	gone    []bool        // by previous surface id: deleted
	// goneRanges are the deleted surface ids, for the R*Tree.
	goneRanges []spatialite.RowidRange
	order      []sourceSpan // every source of the new file, by first surface
	cur        int          // input index of the file being added
	// lost marks the sides of ext (minX, minY, maxX, maxY) that a removed
	// surface lay on: Finish checks that another surface still does.
	lost [4]bool
}

// sourceSpan is where a source's rows lie and where it comes in the input.
type sourceSpan struct {
	firstS, surfaces, firstB, buildings int64
	input                               int
}

// PatchLoD2 copies the previous LoD2 file prev (and nothing of its search
// file) to path, which must not exist, and opens the copy for patching;
// it returns the previous file's sources, with FileID, to Keep. Errors
// wrap ErrNoPatch for a previous file written before its exact extent was
// recorded.
func PatchLoD2(ctx context.Context, path, prev string) (*LoD2Writer, []SourceFile, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, nil, fmt.Errorf("%w: %s exists", ErrInput, path)
	}
	if err := copyFileKernel(prev, path); err != nil {
		return nil, nil, fmt.Errorf("store: patch %s: %w", path, err)
	}
	db, err := openPatchDB(path)
	if err != nil {
		os.Remove(path)
		return nil, nil, fmt.Errorf("store: patch %s: %w", path, err)
	}
	w := &LoD2Writer{path: path, db: db, patch: &patchState{prev: prev, input: map[int64]int{}}}
	if err := w.openPatch(ctx); err != nil {
		w.Abort()
		return nil, nil, fmt.Errorf("store: patch %s: %w", path, err)
	}
	return w, w.patch.sources, nil
}

// openPatchDB opens the copy being patched. Unlike a new file's pages,
// the copy's pages exist already, so SQLite's rollback journal would
// first write each one it changes (the freed and reused pages, the R*Tree)
// to the journal: a patch is never rolled back nor resumed (killed, it is
// started over from a new copy), so it keeps no journal. A page cache of
// up to 64 MiB keeps SQLite from spilling changed pages to the file in
// the middle of the transaction.
func openPatchDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-65536)&_pragma=temp_store(MEMORY)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// copyFileKernel copies src to dst; io.Copy between two files is
// copy_file_range on Linux, which never passes the bytes through the
// process.
func copyFileKernel(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// openPatch reads the previous file's state into the writer.
func (w *LoD2Writer) openPatch(ctx context.Context) error {
	p := w.patch
	meta := map[string]string{}
	rows, err := w.db.QueryContext(ctx, `SELECT key, value FROM svc_metadata`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		meta[k] = v
	}
	rows.Close()
	if meta["lod2_schema"] != strconv.Itoa(SchemaVersion) {
		return fmt.Errorf("%w: the previous pack has schema %q, not %d", ErrNoPatch, meta["lod2_schema"], SchemaVersion)
	}
	if p.ext, err = parseExactExtent(meta["extent_exact"]); err != nil {
		return fmt.Errorf("%w: %v", ErrNoPatch, err)
	}
	if w.epsg, err = strconv.Atoi(meta["epsg"]); err != nil {
		return fmt.Errorf("%w: metadata epsg", ErrCorrupt)
	}
	w.prep, _ = NewPreparer(w.epsg)
	if w.prep == nil {
		return fmt.Errorf("%w: metadata epsg %d", ErrCorrupt, w.epsg)
	}
	w.zone = w.prep.zone
	w.stats.Buildings, _ = strconv.ParseInt(meta["building_count"], 10, 64)
	w.stats.Surfaces, _ = strconv.ParseInt(meta["surface_count"], 10, 64)
	if w.roofs, err = strconv.ParseInt(meta["roof_count"], 10, 64); err != nil {
		return fmt.Errorf("%w: no roof_count", ErrNoPatch)
	}
	if err := w.db.QueryRowContext(ctx, `SELECT coalesce(sum(valid), 0), coalesce(max(building_id), 0) FROM buildings`).
		Scan(&w.stats.ValidBuildings, &w.lastB); err != nil {
		return err
	}
	if err := w.db.QueryRowContext(ctx, `SELECT coalesce(max(surface_id), 0) FROM surfaces`).Scan(&w.lastS); err != nil {
		return err
	}
	if err := w.db.QueryRowContext(ctx, `SELECT coalesce(sum(duplicates), 0), count(*) FROM source_files`).
		Scan(&w.stats.Duplicates, &w.sources); err != nil {
		return err
	}
	if p.sources, err = querySources(ctx, w.db); err != nil {
		return err
	}
	p.oldS = w.lastS
	if err := sourceStampColumns(ctx, w.db); err != nil {
		return err
	}
	if p.search, err = openSearchFile(p.prev + SearchFileSuffix); err != nil {
		return err
	}
	if w.spool, err = newRecordSpool(w.path + ".spool"); err != nil {
		return err
	}
	return w.begin(ctx)
}

// parseExactExtent reads the extent_exact metadata: four floats as
// strconv writes them, exactly the float64 extent the search file's
// Hilbert curve was laid over.
func parseExactExtent(s string) (box, error) {
	var v [4]float64
	var err error
	rest := s
	for i := range v {
		var f string
		f, rest, _ = cutComma(rest)
		if v[i], err = strconv.ParseFloat(f, 64); err != nil {
			return box{}, fmt.Errorf("no exact extent (%q)", s)
		}
	}
	return box{v[0], v[1], v[2], v[3]}, nil
}

func cutComma(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func formatExactExtent(b box) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return f(b.minX) + "," + f(b.minY) + "," + f(b.maxX) + "," + f(b.maxY)
}

// Keep keeps the rows of the previous file's source fileID as those of
// input file number input (0-based, in import order), now named name with
// summary. Call it for every unchanged file before Drop.
func (w *LoD2Writer) Keep(ctx context.Context, fileID int64, input int, name, summary string) error {
	return w.KeepFile(ctx, fileID, input, SourceFile{Name: name, Summary: summary})
}

// KeepFile is Keep recording s's Name, Summary, Rel and MTimeNS (the
// present file's; its content is the kept one's).
func (w *LoD2Writer) KeepFile(ctx context.Context, fileID int64, input int, s SourceFile) error {
	if w.patch == nil {
		return fmt.Errorf("store: keep %s: not patching", s.Name)
	}
	if _, err := w.tx.ExecContext(ctx, `UPDATE source_files SET name = ?, summary = ?, rel = ?, mtime_ns = ?, input_index = ? WHERE file_id = ?`,
		s.Name, s.Summary, nullString(s.Rel), nullStamp(s.Rel, s.MTimeNS), input, fileID); err != nil {
		return fmt.Errorf("store: keep %s: %w", s.Name, err)
	}
	w.patch.input[fileID] = input
	return nil
}

// Drop deletes the rows of every source of the previous file that was not
// kept. It wraps ErrNoPatch when the kept files come in another order than
// before.
func (w *LoD2Writer) Drop(ctx context.Context) error {
	p := w.patch
	kept := make([]SourceFile, 0, len(p.input))
	var gone []SourceFile
	for _, s := range p.sources {
		if _, ok := p.input[s.FileID]; ok {
			kept = append(kept, s)
		} else {
			gone = append(gone, s)
		}
	}
	// The previous search file breaks ties in the previous import's input
	// order: the kept files must come in it now too. That order is the
	// recorded input index, or the id order in a pack that has none (one
	// not patched: written in input order).
	byInput := slices.Clone(kept)
	recorded := !slices.ContainsFunc(kept, func(s SourceFile) bool { return s.Input < 0 })
	slices.SortFunc(byInput, func(a, b SourceFile) int {
		if recorded {
			return a.Input - b.Input
		}
		return int(a.FirstSurface - b.FirstSurface)
	})
	for i, s := range byInput {
		if i > 0 && p.input[s.FileID] <= p.input[byInput[i-1].FileID] {
			return fmt.Errorf("%w: the unchanged files come in another order", ErrNoPatch)
		}
	}
	slices.SortFunc(kept, func(a, b SourceFile) int { return int(a.FirstSurface - b.FirstSurface) })
	for _, s := range kept {
		p.order = append(p.order, sourceSpan{s.FirstSurface, s.Surfaces, s.FirstBuilding, s.Buildings, p.input[s.FileID]})
	}
	p.gone = make([]bool, p.oldS+1)
	for _, s := range gone {
		if err := w.dropSource(ctx, s); err != nil {
			return fmt.Errorf("store: drop %s: %w", s.Name, err)
		}
		if s.Surfaces > 0 {
			p.goneRanges = append(p.goneRanges, spatialite.RowidRange{First: s.FirstSurface, Last: s.FirstSurface + s.Surfaces - 1})
		}
	}
	return w.dropIDs(ctx, gone)
}

// dropIDs deletes the gml:ids (of buildings and parts) of the removed
// sources' buildings in one pass over building_ids, whose key is the
// gml:id: their building id ranges go to a temporary table first.
func (w *LoD2Writer) dropIDs(ctx context.Context, gone []SourceFile) error {
	if len(gone) == 0 {
		return nil
	}
	if _, err := w.tx.ExecContext(ctx, `CREATE TEMP TABLE svc_gone (lo INTEGER PRIMARY KEY, hi INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("store: drop ids: %w", err)
	}
	for _, s := range gone {
		if s.Buildings == 0 {
			continue
		}
		if _, err := w.tx.ExecContext(ctx, `INSERT INTO temp.svc_gone VALUES (?, ?)`, s.FirstBuilding, s.FirstBuilding+s.Buildings-1); err != nil {
			return fmt.Errorf("store: drop ids: %w", err)
		}
	}
	for _, q := range []string{
		`DELETE FROM building_ids WHERE (SELECT hi FROM temp.svc_gone WHERE lo <= building_id ORDER BY lo DESC LIMIT 1) >= building_id`,
		`DROP TABLE temp.svc_gone`,
	} {
		if _, err := w.tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("store: drop ids: %w", err)
		}
	}
	return nil
}

// dropSource deletes the rows of one previous source.
func (w *LoD2Writer) dropSource(ctx context.Context, s SourceFile) error {
	p := w.patch
	b0, b1 := s.FirstBuilding, s.FirstBuilding+s.Buildings-1
	s0, s1 := s.FirstSurface, s.FirstSurface+s.Surfaces-1
	var valid, roofs int64
	if err := w.tx.QueryRowContext(ctx, `SELECT coalesce(sum(valid), 0) FROM buildings WHERE building_id BETWEEN ? AND ?`, b0, b1).Scan(&valid); err != nil {
		return err
	}
	for sid := s0; sid <= s1; sid++ {
		pos, ok := p.search.idx.position(sid)
		if !ok || sid > p.oldS {
			return fmt.Errorf("%w: surface %d of the source not in the search file", ErrCorrupt, sid)
		}
		r, err := p.search.record(pos)
		if err != nil {
			return err
		}
		pr, err := parseRecord(r)
		if err != nil {
			return err
		}
		for i, on := range onSides(recordBox(pr), p.ext) {
			p.lost[i] = p.lost[i] || on
		}
		if pr.class == ClassRoof {
			roofs++
		}
		p.gone[sid] = true
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM surfaces WHERE surface_id BETWEEN ? AND ?`, []any{s0, s1}},
		{`DELETE FROM buildings WHERE building_id BETWEEN ? AND ?`, []any{b0, b1}},
		{`DELETE FROM building_attrs WHERE building_id BETWEEN ? AND ?`, []any{b0, b1}},
		{`DELETE FROM addresses WHERE building_id BETWEEN ? AND ?`, []any{b0, b1}},
		{`DELETE FROM building_bbox WHERE building_id BETWEEN ? AND ?`, []any{b0, b1}},
		{`DELETE FROM source_files WHERE file_id = ?`, []any{s.FileID}},
	} {
		if _, err := w.tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	w.stats.Buildings -= s.Buildings
	w.stats.Surfaces -= s.Surfaces
	w.stats.Duplicates -= s.Duplicates
	w.stats.ValidBuildings -= valid
	w.roofs -= roofs
	w.sources--
	return nil
}
