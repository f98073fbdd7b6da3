package lod2store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// The source_files table records, per input file of the import, which
// buildings and surfaces came from it (consecutive ids, since a pack is
// written in input order) with its content hash, so that the import of a
// later snapshot can copy the rows of an unchanged file instead of parsing
// it again. Additive: packs without it read as having no sources. rel,
// mtime_ns (the file's name relative to its input path and modification
// time, for the quick check of a later import) and input_index (its place
// among the inputs of the import that wrote or kept its rows, which a
// patched pack's ids no longer follow) came later: NULL in packs written
// before, and in rows recorded without them.
const sourceSchema = `
CREATE TABLE source_files (
  file_id        INTEGER PRIMARY KEY,
  name           TEXT NOT NULL,
  size           INTEGER NOT NULL,
  sha256         TEXT NOT NULL,
  first_building INTEGER NOT NULL,
  buildings      INTEGER NOT NULL,
  first_surface  INTEGER NOT NULL,
  surfaces       INTEGER NOT NULL,
  duplicates     INTEGER NOT NULL,
  summary        TEXT NOT NULL,
  rel            TEXT,
  mtime_ns       INTEGER,
  input_index    INTEGER
);
`

// sourceStampColumns adds rel and mtime_ns to the source_files table of a
// pack written before they existed (a previous pack being patched).
func sourceStampColumns(ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('source_files') WHERE name = 'mtime_ns'`).Scan(&n); err != nil || n > 0 {
		return err
	}
	for _, q := range []string{`ALTER TABLE source_files ADD COLUMN rel TEXT`, `ALTER TABLE source_files ADD COLUMN mtime_ns INTEGER`,
		`ALTER TABLE source_files ADD COLUMN input_index INTEGER`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// SourceFile is one input file of a pack: its name as imported, size,
// SHA-256 of its content, the buildings (ids FirstBuilding and on) and
// surfaces written from it, the repeated gml:ids left out, and what the
// importer keeps of it for its summary (opaque here).
type SourceFile struct {
	FileID                   int64 // its row in source_files
	Name                     string
	Size                     int64
	SHA256                   string
	FirstBuilding, Buildings int64
	FirstSurface, Surfaces   int64
	Duplicates               int64
	Summary                  string
	// Rel is the file's name relative to its input path and MTimeNS its
	// modification time in ns since 1970 (citygml.Input), what an import
	// of a later snapshot compares before hashing a file; "" and 0 when
	// not recorded (packs written before, AddSource).
	Rel     string
	MTimeNS int64
	// Input is the file's place (0-based) among the inputs of the import
	// that wrote or last kept its rows; -1 when not recorded.
	Input int
}

// Mark is a writer position, for AddSource.
type Mark struct {
	buildings, surfaces, duplicates int64
	input                           int
}

// Mark returns the current position.
func (w *LoD2Writer) Mark() Mark {
	return Mark{w.lastB, w.lastS, w.stats.Duplicates, -1}
}

// MarkInput is Mark before the rows of input file number input (0-based,
// in import order), which a patching writer (PatchLoD2) needs to know.
func (w *LoD2Writer) MarkInput(input int) Mark {
	if w.patch != nil {
		w.patch.cur = input
	}
	return Mark{w.lastB, w.lastS, w.stats.Duplicates, input}
}

// AddSource records a source file whose buildings were written since m,
// without its relative name and modification time (AddSourceFile).
func (w *LoD2Writer) AddSource(ctx context.Context, m Mark, name string, size int64, sha256, summary string) error {
	return w.AddSourceFile(ctx, m, SourceFile{Name: name, Size: size, SHA256: sha256, Summary: summary, Input: m.input})
}

// AddSourceFile records the source file s (Name, Size, SHA256, Summary,
// Input, and Rel and MTimeNS when known) whose buildings were written
// since m; the id ranges and duplicates are the writer's.
func (w *LoD2Writer) AddSourceFile(ctx context.Context, m Mark, s SourceFile) error {
	name := s.Name
	_, err := w.tx.ExecContext(ctx, `INSERT INTO source_files (name, size, sha256, first_building, buildings, first_surface, surfaces, duplicates, summary, rel, mtime_ns, input_index)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, name, s.Size, s.SHA256, m.buildings+1, w.lastB-m.buildings,
		m.surfaces+1, w.lastS-m.surfaces, w.stats.Duplicates-m.duplicates, s.Summary, nullString(s.Rel), nullStamp(s.Rel, s.MTimeNS), nullIndex(s.Input))
	if err != nil {
		return fmt.Errorf("store: source %s: %w", name, err)
	}
	w.sources++
	if w.patch != nil {
		if m.input < 0 {
			return fmt.Errorf("store: source %s: patching needs MarkInput", name)
		}
		w.patch.order = append(w.patch.order, sourceSpan{m.surfaces + 1, w.lastS - m.surfaces, m.buildings + 1, w.lastB - m.buildings, m.input})
	}
	return nil
}

// nullIndex is i, NULL when negative.
func nullIndex(i int) any {
	if i < 0 {
		return nil
	}
	return i
}

// nullString is s, NULL when empty.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullStamp is the modification time to record: NULL without a relative
// name, since the quick check needs both.
func nullStamp(rel string, ns int64) any {
	if rel == "" {
		return nil
	}
	return ns
}

// ReadSources returns the source files of the LoD2 file at path and its
// EPSG code; none for a file written before sources were recorded.
func ReadSources(ctx context.Context, path string) ([]SourceFile, int, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, 0, fmt.Errorf("store: sources %s: %w", path, err)
	}
	defer db.Close()
	var epsg int
	if err := db.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM svc_metadata WHERE key = 'epsg'`).Scan(&epsg); err != nil {
		return nil, 0, fmt.Errorf("store: sources %s: %w", path, err)
	}
	// A pack of an older schema lacks rows a new one has: nothing of it
	// can be reused.
	if v, err := schemaOf(ctx, db); err != nil || v != SchemaVersion {
		return nil, epsg, nil
	}
	out, err := querySources(ctx, db)
	if err != nil {
		return nil, 0, fmt.Errorf("store: sources %s: %w", path, err)
	}
	return out, epsg, nil
}

// Sources returns the source files of the open pack, like ReadSources
// (none for a pack written before sources were recorded), without
// opening the file again.
func (s *LoD2) Sources(ctx context.Context) ([]SourceFile, error) {
	out, err := querySources(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("store: sources: %w", err)
	}
	return out, nil
}

// querySources reads the source_files table of db in file order; none
// when the table does not exist.
func querySources(ctx context.Context, db *sql.DB) ([]SourceFile, error) {
	stamp := `, rel, mtime_ns, input_index`
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('source_files') WHERE name = 'mtime_ns'`).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 { // written before they were recorded
		stamp = `, NULL, NULL, NULL`
	}
	rows, err := db.QueryContext(ctx, `SELECT file_id, name, size, sha256, first_building, buildings, first_surface, surfaces, duplicates, summary`+stamp+`
FROM source_files ORDER BY file_id`)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil
		}
		return nil, err
	}
	defer rows.Close()
	var out []SourceFile
	for rows.Next() {
		var s SourceFile
		var rel sql.NullString
		var mtime, input sql.NullInt64
		if err := rows.Scan(&s.FileID, &s.Name, &s.Size, &s.SHA256, &s.FirstBuilding, &s.Buildings, &s.FirstSurface, &s.Surfaces, &s.Duplicates, &s.Summary, &rel, &mtime, &input); err != nil {
			return nil, err
		}
		s.Input = -1
		if input.Valid {
			s.Input = int(input.Int64)
		}
		if rel.Valid && mtime.Valid {
			s.Rel, s.MTimeNS = rel.String, mtime.Int64
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// ErrConflict reports a source file whose rows cannot be copied: one of
// its gml:ids was already written.
var ErrConflict = errors.New("store: gml:id already written")

// CopySource writes the buildings and surfaces of src from the previous
// pack (the writer's Prev) as if they were added again: the next building
// and surface ids, the same rows, the same search records. It returns the
// buildings copied and how many of them are valid. A gml:id already
// written wraps ErrConflict and copies nothing (parse the file instead).
func (w *LoD2Writer) CopySource(ctx context.Context, src SourceFile) (valid int64, err error) {
	if w.prev == nil {
		return 0, fmt.Errorf("store: copy %s: no previous pack", src.Name)
	}
	b0, b1 := src.FirstBuilding, src.FirstBuilding+src.Buildings-1
	s0, s1 := src.FirstSurface, src.FirstSurface+src.Surfaces-1
	var clash int64
	if err := w.tx.QueryRowContext(ctx, `SELECT count(*) FROM prev.building_ids p
WHERE p.building_id BETWEEN ?1 AND ?2 AND EXISTS (SELECT 1 FROM main.building_ids n WHERE n.gmlid = p.gmlid)`, b0, b1).Scan(&clash); err != nil {
		return 0, fmt.Errorf("store: copy %s: %w", src.Name, err)
	}
	if clash > 0 {
		return 0, fmt.Errorf("%w: %d of %s", ErrConflict, clash, src.Name)
	}
	offB, offS := w.lastB+1-b0, w.lastS+1-s0
	for _, q := range []string{
		`INSERT INTO main.building_ids SELECT gmlid, building_id + ?3 FROM prev.building_ids WHERE building_id BETWEEN ?1 AND ?2`,
		`INSERT INTO main.buildings SELECT building_id + ?3, gmlid, surface_count, valid FROM prev.buildings WHERE building_id BETWEEN ?1 AND ?2 ORDER BY building_id`,
	} {
		if _, err := w.tx.ExecContext(ctx, q, b0, b1, offB); err != nil {
			return 0, fmt.Errorf("store: copy %s: %w", src.Name, err)
		}
	}
	if _, err := w.tx.ExecContext(ctx, `INSERT INTO main.surfaces SELECT surface_id + ?3, building_id + ?4, gmlid, surface_class, geom
FROM prev.surfaces WHERE surface_id BETWEEN ?1 AND ?2 ORDER BY surface_id`, s0, s1, offS, offB); err != nil {
		return 0, fmt.Errorf("store: copy %s: %w", src.Name, err)
	}
	if err := w.copyAttrs(ctx, b0, b1, offB); err != nil {
		return 0, fmt.Errorf("store: copy %s: %w", src.Name, err)
	}
	if err := w.tx.QueryRowContext(ctx, `SELECT coalesce(sum(valid), 0) FROM prev.buildings WHERE building_id BETWEEN ?1 AND ?2`, b0, b1).Scan(&valid); err != nil {
		return 0, fmt.Errorf("store: copy %s: %w", src.Name, err)
	}
	for sid := s0; sid <= s1; sid++ {
		if err := w.copyRecord(sid, offS, offB); err != nil {
			return 0, fmt.Errorf("store: copy %s: %w", src.Name, err)
		}
		if sid%dropEvery == 0 { // see writeSearchFile
			dropPages(w.prev.search.data)
		}
	}
	w.stats.Buildings += src.Buildings
	w.lastB += src.Buildings
	w.stats.ValidBuildings += valid
	return valid, nil
}

// copyRecord spools the search record of the previous pack's surface sid
// with its ids moved by offS and offB.
func (w *LoD2Writer) copyRecord(sid, offS, offB int64) error {
	pos, ok := w.prev.search.idx.position(sid)
	if !ok {
		return fmt.Errorf("%w: surface %d not in the search file", ErrCorrupt, sid)
	}
	r, err := w.prev.search.record(pos)
	if err != nil {
		return err
	}
	p, err := parseRecord(r)
	if err != nil {
		return err
	}
	w.rec = append(w.rec[:0], r...)
	nsid, nbid := uint32(int64(p.surfaceID)+offS), uint32(int64(p.buildingID)+offB)
	setRecordIDs(w.rec, nsid, nbid)
	bb := recordBox(p)
	if err := w.spool.add(w.rec, bb); err != nil {
		return err
	}
	w.stats.Surfaces++
	w.lastS++
	if p.class == ClassRoof {
		w.roofs++
	}
	return nil
}

// recordBox is the box of a record's rings.
func recordBox(p parsed) box {
	bb := emptyBox()
	p.eachRing(func(xy []byte, n int) bool {
		for j := range n {
			x, y := xyAt(xy, j)
			bb.extend(box{x, y, x, y})
		}
		return false
	})
	return bb
}

// prevPack is the previous snapshot's pack a writer copies from.
type prevPack struct {
	path   string
	search *searchFile
}
