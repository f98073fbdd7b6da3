// Package sqlite is the default backend of the state package: an SQLite
// file in WAL mode beside the data, for one svc process. It supplies the
// SQLite Dialect (connections, transactions, error codes, column types);
// the statements themselves are state.SQLStore's, shared with PostgreSQL.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"modernc.org/sqlite" // driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/svc-geodata/svc/state"
)

// Store is the state.Store on an SQLite file. Writes go through one
// connection (SQLite has one writer anyway, and BEGIN IMMEDIATE makes
// read-check-write transactions such as MintTrial atomic across processes),
// so no write transaction needs a further lock; reads use a small pool that
// WAL lets run beside the writer.
type Store struct {
	*state.SQLStore
	d *dialect
}

var _ state.Store = (*Store)(nil)

// Open opens or creates the side database at path and applies pending
// migrations. Commits are synchronous=FULL: a created key survives a crash
// or power loss once its call returned.
func Open(ctx context.Context, path string) (*Store, error) {
	dsn := func(txlock string) string {
		q := url.Values{}
		for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(ON)"} {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", txlock)
		return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	}
	d := &dialect{}
	var err error
	if d.w, err = sql.Open("sqlite", dsn("immediate")); err != nil {
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	d.w.SetMaxOpenConns(1)
	if d.r, err = sql.Open("sqlite", dsn("deferred")); err != nil {
		d.w.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	d.r.SetMaxOpenConns(4)
	d.read = conn{d.r}
	s, err := state.NewSQLStore(ctx, d)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	return &Store{SQLStore: s, d: d}, nil
}

// dialect is the state.Dialect of SQLite: w is the one writer connection,
// r the reader pool, read r as a state.Conn.
type dialect struct {
	w, r *sql.DB
	read state.Conn
}

func (d *dialect) Columns() state.ColumnTypes {
	return state.ColumnTypes{Int: "INTEGER", Bytes: "BLOB", Serial: "INTEGER PRIMARY KEY AUTOINCREMENT", Clustered: " WITHOUT ROWID"}
}

func (d *dialect) Read() state.Conn { return d.read }

// Write runs f in a BEGIN IMMEDIATE transaction (the writer's _txlock) on
// the one writer connection.
func (d *dialect) Write(ctx context.Context, f func(state.Conn) error) error {
	tx, err := d.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(conn{tx}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Snapshot runs f in a read transaction: under WAL it sees the database as
// of its first read, whatever commits meanwhile.
func (d *dialect) Snapshot(ctx context.Context, f func(state.Conn) error) error {
	tx, err := d.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return f(conn{tx})
}

// Lock does nothing: every write transaction already holds SQLite's one
// write lock from its BEGIN IMMEDIATE on.
func (d *dialect) Lock(context.Context, state.Conn, state.Lock) error { return nil }

// ExecBatch prepares each distinct query once per batch.
func (d *dialect) ExecBatch(ctx context.Context, c state.Conn, stmts []state.Stmt) error {
	tx := c.(conn).q.(*sql.Tx)
	prepared := map[string]*sql.Stmt{}
	for _, s := range stmts {
		st := prepared[s.Query]
		if st == nil {
			var err error
			if st, err = tx.PrepareContext(ctx, s.Query); err != nil {
				return err
			}
			prepared[s.Query] = st
		}
		if _, err := st.ExecContext(ctx, s.Args...); err != nil {
			return err
		}
	}
	return nil
}

// AfterImport does nothing: AUTOINCREMENT continues after the largest seq
// ever inserted, imported ones included.
func (d *dialect) AfterImport(context.Context, state.Conn) error { return nil }

func (d *dialect) NoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// Unique: SQLITE_CONSTRAINT_UNIQUE or, for the id, _PRIMARYKEY.
func (d *dialect) Unique(err error) bool {
	c := code(err)
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// Full: SQLITE_FULL, the primary result code of a write that found the
// disk (or max_page_count) exhausted.
func (d *dialect) Full(err error) bool { return code(err)&0xff == sqlite3.SQLITE_FULL }

func (d *dialect) Close() error { return errors.Join(d.r.Close(), d.w.Close()) }

// code is the extended result code of an SQLite error, or 0.
func code(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// conn is a state.Conn on database/sql; SQLite takes ? placeholders as
// they are.
type conn struct{ q querier }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) state.Row {
	return c.q.QueryRowContext(ctx, query, args...)
}

func (c conn) Query(ctx context.Context, query string, args ...any) (state.Rows, error) {
	rows, err := c.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }
