// Package postgres is the backend of the state package for several svc
// replicas: a PostgreSQL database they share. It supplies the PostgreSQL
// Dialect (pgx connections, $n placeholders, locks, error codes, column
// types); the statements themselves are state.SQLStore's, shared with
// SQLite. Beyond the state.Store it offers what only a shared store can:
// an exact keyless counter across replicas (KeylessHit) and one clock (Now).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/svc-geodata/svc/state"
)

// Store is the state.Store on a PostgreSQL database shared by any number of
// svc replicas. Every read-check-write (trial mints, sketch merges,
// migrations) is one transaction under a lock, so replicas never exceed a
// limit together.
type Store struct {
	*state.SQLStore
	pool *pgxpool.Pool
}

var _ state.Store = (*Store)(nil)

// Open connects to the database at url (a postgres:// URL or a libpq
// key=value string), checks it answers and applies pending migrations
// under an advisory lock, so replicas starting together migrate once. The
// password never appears in returned errors.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("state: postgres: invalid connection string: %w", errors.Unwrap(err))
	}
	// Bounded connect: a missing database must not hang serve's start.
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	cfg.MaxConns = max(cfg.MaxConns, 8)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("state: postgres %s: %w", cfg.ConnConfig.Host, err)
	}
	s, err := state.NewSQLStore(ctx, dialect{pool: pool, read: conn{pool}})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("state: postgres %s:%d/%s: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, err)
	}
	return &Store{SQLStore: s, pool: pool}, nil
}

// Now returns the database's clock: replicas take day and month windows from
// one clock, not from their own.
func (s *Store) Now(ctx context.Context) (time.Time, error) {
	if s.Closed() {
		return time.Time{}, state.ErrClosed
	}
	var ms int64
	if err := s.pool.QueryRow(ctx, `SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT`).Scan(&ms); err != nil {
		return time.Time{}, fmt.Errorf("state: clock: %w", err)
	}
	return time.UnixMilli(ms).UTC(), nil
}

// KeylessHit adds calls keyless calls of client on day in one atomic upsert,
// saturating at ceiling (the limit plus one: a refused client is not counted
// further), and returns the stored total. Replicas calling it concurrently
// serialise on the row, so the totals they see are exact.
func (s *Store) KeylessHit(ctx context.Context, day string, client uint64, calls, ceiling int64) (int64, error) {
	if s.Closed() {
		return 0, state.ErrClosed
	}
	var n int64
	err := s.pool.QueryRow(ctx, `INSERT INTO keyless_client_day AS t (day, client, calls) VALUES ($1, $2, LEAST($4::bigint, $3))
		ON CONFLICT (day, client) DO UPDATE SET calls = LEAST(t.calls + $4, $3) RETURNING calls`,
		day, int64(client), ceiling, calls).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("state: keyless hit: %w", err)
	}
	return n, nil
}

// Advisory lock ids (first key of the two-key form) of the state package.
const (
	lockMigrate = 0x5356_4301 // "SVC" 1
	lockSketch  = 0x5356_4302
)

// dialect is the state.Dialect of PostgreSQL; read is pool as a state.Conn.
type dialect struct {
	pool *pgxpool.Pool
	read state.Conn
}

func (d dialect) Columns() state.ColumnTypes {
	return state.ColumnTypes{Int: "BIGINT", Bytes: "BYTEA", Serial: "BIGSERIAL PRIMARY KEY"}
}

func (d dialect) Read() state.Conn { return d.read }

func (d dialect) Write(ctx context.Context, f func(state.Conn) error) error {
	return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error { return f(conn{tx}) })
}

// Snapshot runs f in a repeatable-read transaction: one snapshot for all
// its statements.
func (d dialect) Snapshot(ctx context.Context, f func(state.Conn) error) error {
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	return pgx.BeginTxFunc(ctx, d.pool, opts, func(tx pgx.Tx) error { return f(conn{tx}) })
}

// Lock: trial mints lock their table (SHARE ROW EXCLUSIVE excludes itself
// and every write, not plain reads), the others take an advisory lock.
func (d dialect) Lock(ctx context.Context, c state.Conn, l state.Lock) error {
	var err error
	switch l {
	case state.LockMints:
		_, err = c.Exec(ctx, `LOCK TABLE trial_mints IN SHARE ROW EXCLUSIVE MODE`)
	case state.LockMigrate:
		_, err = c.Exec(ctx, `SELECT pg_advisory_xact_lock(?, 0)`, lockMigrate)
	case state.LockSketches:
		_, err = c.Exec(ctx, `SELECT pg_advisory_xact_lock(?, 0)`, lockSketch)
	default:
		err = fmt.Errorf("unknown lock %d", l)
	}
	return err
}

// ExecBatch sends the statements as one pipelined batch: one round trip.
func (d dialect) ExecBatch(ctx context.Context, c state.Conn, stmts []state.Stmt) error {
	var b pgx.Batch
	for _, s := range stmts {
		b.Queue(rebind(s.Query), s.Args...)
	}
	return c.(conn).q.(pgx.Tx).SendBatch(ctx, &b).Close()
}

// AfterImport moves the audit sequence past the imported seq values.
func (d dialect) AfterImport(ctx context.Context, c state.Conn) error {
	_, err := c.Exec(ctx, `SELECT setval(pg_get_serial_sequence('audit_log', 'seq'), COALESCE(MAX(seq), 0) + 1, false) FROM audit_log`)
	return err
}

func (d dialect) NoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

func (d dialect) Unique(err error) bool { return sqlState(err) == "23505" } // unique_violation

func (d dialect) Full(err error) bool { return sqlState(err) == "53100" } // disk_full

func (d dialect) Close() error {
	d.pool.Close()
	return nil
}

// sqlState is the SQLSTATE of a server error, or "".
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// querier is what *pgxpool.Pool and pgx.Tx share.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// conn is a state.Conn on pgx: it numbers the ? placeholders.
type conn struct{ q querier }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, rebind(query), args...)
	return tag.RowsAffected(), err
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) state.Row {
	return c.q.QueryRow(ctx, rebind(query), args...)
}

func (c conn) Query(ctx context.Context, query string, args ...any) (state.Rows, error) {
	return c.q.Query(ctx, rebind(query), args...)
}

// rebound caches rebind's results: the queries are a fixed set.
var rebound sync.Map // string -> string

// rebind writes the ? placeholders of query as $1, $2... (the state
// package's SQL has no ? in its literals).
func rebind(query string) string {
	if v, ok := rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	rebound.Store(query, out)
	return out
}
