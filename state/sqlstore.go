package state

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"
)

// SQLStore is the Store on an SQL database, written once for every Dialect:
// keys (keys.go), counters and usage (usage.go), the audit trail
// (audit.go), dump and restore (dump.go) and the schema (schema.go). Every
// read-check-write (a trial mint, a sketch merge) is one write transaction
// holding the Lock its dialect needs, so concurrent writers, in one process
// or several, never exceed a limit or lose an update.
type SQLStore struct {
	d      Dialect
	closed atomic.Bool
}

var _ Store = (*SQLStore)(nil)

// NewSQLStore returns the store on d after applying the pending migrations.
// On error the caller still owns d.
func NewSQLStore(ctx context.Context, d Dialect) (*SQLStore, error) {
	s := &SQLStore{d: d}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Closed reports whether Close was called; a backend's own methods answer
// ErrClosed then.
func (s *SQLStore) Closed() bool { return s.closed.Load() }

// write runs f in a write transaction; a write that found the disk full
// fails with ErrFull, having written nothing.
func (s *SQLStore) write(ctx context.Context, f func(Conn) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	err := s.d.Write(ctx, f)
	if err != nil && s.d.Full(err) {
		return fmt.Errorf("%w: %v", ErrFull, err)
	}
	return err
}

// read returns the connection for reads, or ErrClosed.
func (s *SQLStore) read() (Conn, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	return s.d.Read(), nil
}

// KeysVersion implements Store.
func (s *SQLStore) KeysVersion(ctx context.Context) (int64, error) {
	c, err := s.read()
	if err != nil {
		return 0, err
	}
	var v int64
	if err := c.QueryRow(ctx, `SELECT value FROM meta WHERE name = 'keys_version'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("state: keys version: %w", err)
	}
	return v, nil
}

// Ping implements Store: it writes a timestamp, so a read-only database (a
// standby) or a full disk fails the probe.
func (s *SQLStore) Ping(ctx context.Context) error {
	err := s.write(ctx, func(c Conn) error {
		_, err := c.Exec(ctx, `UPDATE meta SET value = ? WHERE name = 'health_checked_at'`, time.Now().Unix())
		return err
	})
	if err != nil {
		return fmt.Errorf("state: ping: %w", err)
	}
	return nil
}

// Close implements Store.
func (s *SQLStore) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.d.Close()
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
