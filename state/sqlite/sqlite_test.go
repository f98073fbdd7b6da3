package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/state"
)

// The behaviour both backends share is tested once, against both, in the
// state package; these are the SQLite file's own.

// newStore opens a new store file in a temporary directory.
func newStore(t *testing.T) (*Store, string) {
	path := filepath.Join(t.TempDir(), "svc.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

var created = time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)

// key is a key record with hash {b}; notes may be nil.
func key(id string, b byte, notes *string) state.Key {
	email := "a@example.org"
	return state.Key{ID: id, Hash: [32]byte{b}, Prefix: "svc_" + id, CustomerName: "c", Tier: "pro",
		ContactEmail: &email, Notes: notes, CreatedAt: created, UpdatedAt: created}
}

func TestMigrationsReopen(t *testing.T) {
	t.Parallel()
	s, path := newStore(t)
	ctx := context.Background()
	if err := s.CreateKey(ctx, key("k1", 1, nil)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := s.ListKeys(ctx); !errors.Is(err, state.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var n int
	s2.d.r.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n)
	if _, known, _ := s2.SchemaVersion(ctx); n != known {
		t.Errorf("%d migrations recorded, want %d", n, known)
	}
	k, err := s2.Key(ctx, "k1")
	if err != nil || k.ContactEmail == nil || *k.ContactEmail != "a@example.org" || !k.CreatedAt.Equal(created) {
		t.Errorf("key after reopen = %+v, %v", k, err)
	}
	var mode string
	s2.d.w.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal_mode = %s", mode)
	}
}

// TestDiskFull fills the database up to SQLite's page limit (a disk that
// is full, as the writer sees it): creating a key fails with ErrFull, and
// nothing of it (key or audit event) is written.
func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	if err := s.CreateKey(ctx, key("k1", 1, nil)); err != nil {
		t.Fatal(err)
	}
	var pages int64
	if err := s.d.w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.d.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	notes := strings.Repeat("n", 1<<20)
	big := key("k2", 2, &notes)
	if err := s.CreateKey(ctx, big); !errors.Is(err, state.ErrFull) {
		t.Fatalf("create on a full disk: %v, want ErrFull", err)
	}
	keys, err := s.ListKeys(ctx)
	if err != nil || len(keys) != 1 {
		t.Fatalf("after the failed create: %d keys, %v", len(keys), err)
	}
	events, err := s.Audit(ctx, 0, 100)
	if err != nil || len(events) != 1 {
		t.Fatalf("after the failed create: %d audit events, %v", len(events), err)
	}
}
