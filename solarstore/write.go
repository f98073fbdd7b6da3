package solarstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
)

// Writer writes a new store. It is not safe for concurrent use: a build
// computes in parallel and hands finished buildings to one writer in a
// fixed order, so that the file is the same whatever the worker count.
type Writer struct {
	db      *sql.DB
	tx      *sql.Tx
	bstmt   *sql.Stmt
	fstmt   *sql.Stmt
	pending int
	info    Info
}

// batch is the buildings per transaction.
const batch = 2000

// Create makes a new store at path (which must not exist).
func Create(ctx context.Context, path string, info Info) (*Writer, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("solarstore: create %s: file exists", path)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=page_size(8192)")
	if err != nil {
		return nil, fmt.Errorf("solarstore: create %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	w := &Writer{db: db, info: info}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("solarstore: create %s: %w", path, err)
	}
	return w, nil
}

// Put adds a building and its facets.
func (w *Writer) Put(ctx context.Context, b Building) error {
	if w.tx == nil {
		tx, err := w.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("solarstore: put: %w", err)
		}
		w.tx = tx
		if w.bstmt, err = tx.PrepareContext(ctx, `INSERT INTO buildings(gmlid, building_id, shading) VALUES (?, ?, ?)`); err != nil {
			return fmt.Errorf("solarstore: put: %w", err)
		}
		if w.fstmt, err = tx.PrepareContext(ctx, `INSERT INTO facets(building_id, `+facetCols+`) VALUES (?`+
			",?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"+`)`); err != nil {
			return fmt.Errorf("solarstore: put: %w", err)
		}
	}
	var sh any
	if b.Shading != "" {
		sh = b.Shading
	}
	if _, err := w.bstmt.ExecContext(ctx, b.GMLID, b.ID, sh); err != nil {
		return fmt.Errorf("solarstore: put building %q: %w", b.GMLID, err)
	}
	args := make([]any, 0, 21)
	for _, f := range b.Facets {
		args = append(args[:0], b.ID, f.SurfaceID, f.Part, f.AnnualWhM2, f.Unshaded)
		for _, m := range f.MonthlyWhM2 {
			args = append(args, m)
		}
		if f.Loss != nil {
			args = append(args, f.Loss.Terrain, f.Loss.Buildings, f.Loss.Trees)
		} else {
			args = append(args, nil, nil, nil)
		}
		if f.BestWhM2 > 0 {
			args = append(args, f.BestWhM2)
		} else {
			args = append(args, nil)
		}
		if _, err := w.fstmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("solarstore: put building %q facet %d/%d: %w", b.GMLID, f.SurfaceID, f.Part, err)
		}
		w.info.Facets++
	}
	w.info.Buildings++
	if w.pending++; w.pending >= batch {
		return w.commit()
	}
	return nil
}

func (w *Writer) commit() error {
	if w.tx == nil {
		return nil
	}
	w.bstmt.Close()
	w.fstmt.Close()
	err := w.tx.Commit()
	w.tx, w.pending = nil, 0
	if err != nil {
		return fmt.Errorf("solarstore: commit: %w", err)
	}
	return nil
}

// Close writes the info (with the counts of what was put) and the indexes
// and closes the file. It returns the info as written.
func (w *Writer) Close(ctx context.Context) (Info, error) {
	err := w.commit()
	if err == nil {
		var raw []byte
		raw, err = json.Marshal(w.info)
		if err == nil {
			_, err = w.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('info', ?)`, string(raw))
		}
	}
	if err == nil {
		_, err = w.db.ExecContext(ctx, indexes)
	}
	if cerr := w.db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return w.info, fmt.Errorf("solarstore: close: %w", err)
	}
	return w.info, nil
}

// Abort closes the writer without finishing the file (the caller removes it).
func (w *Writer) Abort() {
	if w.tx != nil {
		_ = w.tx.Rollback()
	}
	_ = w.db.Close()
}
