package state

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgMigrations are the PostgreSQL schema, applied in order under an advisory
// lock so replicas starting together migrate once. Append, never edit. Times
// are Unix milliseconds as in the SQLite schema, so exports and the
// migration from SQLite copy values unchanged.
var pgMigrations = []string{
	`CREATE TABLE meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO meta (name, value) VALUES ('keys_version', 0), ('health_checked_at', 0);
CREATE TABLE api_keys (
	id TEXT PRIMARY KEY,
	hash BYTEA NOT NULL UNIQUE,
	prefix TEXT NOT NULL,
	customer_name TEXT NOT NULL,
	tier TEXT NOT NULL,
	source TEXT NOT NULL DEFAULT '',
	contact_email TEXT,
	monthly_call_quota BIGINT,
	notes TEXT,
	payment_customer_id TEXT,
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL,
	expires_at BIGINT,
	revoked_at BIGINT,
	last_used_at BIGINT
);
CREATE INDEX api_keys_created ON api_keys (created_at);
CREATE TABLE trial_mints (client BIGINT NOT NULL, minted_at BIGINT NOT NULL);
CREATE INDEX trial_mints_client ON trial_mints (client, minted_at);
CREATE TABLE keyless_client_day (
	day TEXT NOT NULL, client BIGINT NOT NULL, calls BIGINT NOT NULL,
	PRIMARY KEY (day, client));
CREATE TABLE usage_day (
	subject TEXT NOT NULL, day TEXT NOT NULL, calls BIGINT NOT NULL, errors BIGINT NOT NULL,
	PRIMARY KEY (subject, day));
CREATE TABLE usage_endpoint (
	subject TEXT NOT NULL, month TEXT NOT NULL, pattern TEXT NOT NULL, calls BIGINT NOT NULL, errors BIGINT NOT NULL,
	PRIMARY KEY (subject, month, pattern));
CREATE TABLE usage_bl (
	subject TEXT NOT NULL, month TEXT NOT NULL, bl TEXT NOT NULL, calls BIGINT NOT NULL,
	PRIMARY KEY (subject, month, bl));
CREATE TABLE keyless_sketch (month TEXT PRIMARY KEY, registers BYTEA NOT NULL);`,
	`CREATE TABLE audit_log (
	seq BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, action TEXT NOT NULL,
	key_id TEXT NOT NULL, actor TEXT NOT NULL, detail TEXT NOT NULL);`,
}

// Advisory lock ids (first key of the two-key form) of this package.
const (
	pgLockMigrate = 0x5356_4301 // "SVC" 1
	pgLockSketch  = 0x5356_4302
)

// Postgres is the Store on a PostgreSQL database shared by any number of
// svc replicas. Every read-check-write (trial mints, sketch merges) is one
// transaction under a lock, so replicas never exceed a limit together.
type Postgres struct {
	pool   *pgxpool.Pool
	closed atomic.Bool
}

var _ Store = (*Postgres)(nil)

// OpenPostgres connects to the database at url (a postgres:// URL or a
// libpq key=value string), checks it answers and applies pending migrations.
// The password never appears in returned errors.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
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
	s := &Postgres{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("state: postgres %s:%d/%s: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, err)
	}
	return s, nil
}

// SchemaVersion returns the number of applied migrations and the number this
// build knows.
func (s *Postgres) SchemaVersion(ctx context.Context) (have, known int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have)
	return have, len(pgMigrations), err
}

func (s *Postgres) migrate(ctx context.Context) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, 0)`, pgLockMigrate); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
			return fmt.Errorf("migrations table: %w", err)
		}
		var have int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
			return fmt.Errorf("schema version: %w", err)
		}
		if have > len(pgMigrations) {
			return fmt.Errorf("schema version %d is newer than this build knows (%d)", have, len(pgMigrations))
		}
		for v := have + 1; v <= len(pgMigrations); v++ {
			if _, err := tx.Exec(ctx, pgMigrations[v-1]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, v, time.Now().Unix()); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
		}
		return nil
	})
}

// tx runs f in a transaction, committing when it returns nil.
func (s *Postgres) tx(ctx context.Context, f func(pgx.Tx) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	err := pgx.BeginFunc(ctx, s.pool, f)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "53100" { // disk_full
		return fmt.Errorf("%w: %v", ErrFull, err)
	}
	return err
}

// Now returns the database's clock: replicas take day and month windows from
// one clock, not from their own.
func (s *Postgres) Now(ctx context.Context) (time.Time, error) {
	if s.closed.Load() {
		return time.Time{}, ErrClosed
	}
	var ms int64
	if err := s.pool.QueryRow(ctx, `SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT`).Scan(&ms); err != nil {
		return time.Time{}, fmt.Errorf("state: clock: %w", err)
	}
	return fromMS(ms), nil
}

// KeysVersion implements Store.
func (s *Postgres) KeysVersion(ctx context.Context) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	var v int64
	if err := s.pool.QueryRow(ctx, `SELECT value FROM meta WHERE name = 'keys_version'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("state: keys version: %w", err)
	}
	return v, nil
}

// Ping implements Store: it writes, so a read-only standby or a full disk
// fails the probe.
func (s *Postgres) Ping(ctx context.Context) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE meta SET value = $1 WHERE name = 'health_checked_at'`, time.Now().Unix())
		return err
	})
	if err != nil {
		return fmt.Errorf("state: ping: %w", err)
	}
	return nil
}

// Close implements Store.
func (s *Postgres) Close() error {
	if !s.closed.Swap(true) {
		s.pool.Close()
	}
	return nil
}

// isUnique reports a unique-constraint violation (SQLSTATE 23505).
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
