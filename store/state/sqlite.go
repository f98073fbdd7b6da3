package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // driver "sqlite"
)

// migrations are applied in order; each runs once, recorded in
// schema_migrations. Append, never edit.
var migrations = []string{
	`CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO meta (name, value) VALUES ('keys_version', 0), ('health_checked_at', 0);
CREATE TABLE api_keys (
	id TEXT PRIMARY KEY,
	hash BLOB NOT NULL UNIQUE,
	prefix TEXT NOT NULL,
	customer_name TEXT NOT NULL,
	tier TEXT NOT NULL,
	source TEXT NOT NULL DEFAULT '',
	contact_email TEXT,
	monthly_call_quota INTEGER,
	notes TEXT,
	payment_customer_id TEXT,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	expires_at INTEGER,
	revoked_at INTEGER,
	last_used_at INTEGER
);
CREATE INDEX api_keys_created ON api_keys (created_at);
CREATE TABLE trial_mints (client INTEGER NOT NULL, minted_at INTEGER NOT NULL);
CREATE INDEX trial_mints_client ON trial_mints (client, minted_at);
CREATE TABLE keyless_client_day (
	day TEXT NOT NULL, client INTEGER NOT NULL, calls INTEGER NOT NULL,
	PRIMARY KEY (day, client)) WITHOUT ROWID;
CREATE TABLE usage_day (
	subject TEXT NOT NULL, day TEXT NOT NULL, calls INTEGER NOT NULL, errors INTEGER NOT NULL,
	PRIMARY KEY (subject, day)) WITHOUT ROWID;
CREATE TABLE usage_endpoint (
	subject TEXT NOT NULL, month TEXT NOT NULL, pattern TEXT NOT NULL, calls INTEGER NOT NULL, errors INTEGER NOT NULL,
	PRIMARY KEY (subject, month, pattern)) WITHOUT ROWID;
CREATE TABLE usage_bl (
	subject TEXT NOT NULL, month TEXT NOT NULL, bl TEXT NOT NULL, calls INTEGER NOT NULL,
	PRIMARY KEY (subject, month, bl)) WITHOUT ROWID;
CREATE TABLE keyless_sketch (month TEXT PRIMARY KEY, registers BLOB NOT NULL);`,
	`CREATE TABLE audit_log (
	seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, action TEXT NOT NULL,
	key_id TEXT NOT NULL, actor TEXT NOT NULL, detail TEXT NOT NULL);`,
}

// SQLite is the Store on an SQLite file in WAL mode. Writes go through one
// connection (SQLite has one writer anyway, and BEGIN IMMEDIATE makes
// read-check-write transactions such as MintTrial atomic across processes);
// reads use a small pool that WAL lets run beside the writer.
type SQLite struct {
	w, r   *sql.DB
	closed atomic.Bool
}

var _ Store = (*SQLite)(nil)

// Open opens or creates the side database at path and applies pending
// migrations. Commits are synchronous=FULL: a created key survives a crash
// or power loss once its call returned.
func Open(ctx context.Context, path string) (*SQLite, error) {
	dsn := func(txlock string) string {
		q := url.Values{}
		for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(ON)"} {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", txlock)
		return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	}
	w, err := sql.Open("sqlite", dsn("immediate"))
	if err != nil {
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	s := &SQLite{w: w}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	if s.r, err = sql.Open("sqlite", dsn("deferred")); err != nil {
		w.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	s.r.SetMaxOpenConns(4)
	return s, nil
}

// migrate applies the migrations not yet recorded.
func (s *SQLite) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrations table: %w", err)
	}
	var have int
	if err := s.w.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	if have > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this build knows (%d)", have, len(migrations))
	}
	for v := have + 1; v <= len(migrations); v++ {
		err := s.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[v-1]); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, v, time.Now().Unix())
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %d: %w", v, err)
		}
	}
	return nil
}

// tx runs f in a write transaction, committing when it returns nil.
func (s *SQLite) tx(ctx context.Context, f func(*sql.Tx) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return full(err)
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return full(err)
	}
	return full(tx.Commit())
}

// sqliteFull is SQLITE_FULL, the primary result code of a write that found
// the disk (or max_page_count) exhausted.
const sqliteFull = 13

// full marks a disk-full error with ErrFull.
func full(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqliteFull {
		return fmt.Errorf("%w: %v", ErrFull, err)
	}
	return err
}

// KeysVersion implements Store.
func (s *SQLite) KeysVersion(ctx context.Context) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	var v int64
	if err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'keys_version'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("state: keys version: %w", err)
	}
	return v, nil
}

// Ping implements Store: it writes a timestamp, so a read-only or full disk
// fails the probe.
func (s *SQLite) Ping(ctx context.Context) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE name = 'health_checked_at'`, time.Now().Unix())
		return err
	})
	if err != nil {
		return fmt.Errorf("state: ping: %w", err)
	}
	return nil
}

// Close implements Store.
func (s *SQLite) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return errors.Join(s.r.Close(), s.w.Close())
}

// Time columns hold Unix milliseconds (UTC).
func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func nullMS(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

func ptrMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}
