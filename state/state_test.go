package state_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/pgtest"
	"github.com/svc-geodata/svc/state"
	"github.com/svc-geodata/svc/state/postgres"
	"github.com/svc-geodata/svc/state/sqlite"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

var dbSeq atomic.Int64

// backends runs f as a subtest against every Store implementation: the
// conformance suite both backends must pass. PostgreSQL runs on a throw-away
// cluster (skipped locally without the postgresql package, required in CI).
func backends(t *testing.T, f func(t *testing.T, s state.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		s, _ := openTest(t)
		f(t, s)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		f(t, openPG(t))
	})
}

func pgtestShared(t *testing.T) *pgtest.Cluster { return pgtest.Shared(t) }

func openPG(t testing.TB) *postgres.Store {
	t.Helper()
	c := pgtest.Shared(t)
	url := c.CreateDB(t, fmt.Sprintf("state_%d", dbSeq.Add(1)))
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openTest(t testing.TB) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "svc.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

var t0 = time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)

func testKey(id string, b byte) state.Key {
	email := "a@example.org"
	return state.Key{ID: id, Hash: [32]byte{b}, Prefix: "svc_" + id, CustomerName: "c", Tier: "pro", ContactEmail: &email,
		CreatedAt: t0, UpdatedAt: t0}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	backends(t, testKeys)
}

func testKeys(t *testing.T, s state.Store) {
	ctx := context.Background()
	v0, _ := s.KeysVersion(ctx)
	for _, tc := range []struct {
		name string
		key  state.Key
		want error
	}{
		{"first", testKey("a", 1), nil},
		{"second", testKey("b", 2), nil},
		{"same id", testKey("a", 3), state.ErrExists},
		{"same hash", testKey("c", 1), state.ErrExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.CreateKey(ctx, tc.key); !errors.Is(err, tc.want) {
				t.Errorf("CreateKey = %v, want %v", err, tc.want)
			}
		})
	}
	if v1, _ := s.KeysVersion(ctx); v1 != v0+2 {
		t.Errorf("keys version %d -> %d, want +2", v0, v1)
	}
	k, err := s.KeyByHash(ctx, [32]byte{2})
	if err != nil || k.ID != "b" {
		t.Fatalf("KeyByHash = %v, %v", k.ID, err)
	}
	if _, err := s.KeyByHash(ctx, [32]byte{9}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("unknown hash: %v", err)
	}
	r1, err := s.RevokeKey(ctx, "a", t0.Add(time.Hour))
	if err != nil || r1.RevokedAt == nil || !r1.RevokedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("revoke = %+v, %v", r1, err)
	}
	r2, err := s.RevokeKey(ctx, "a", t0.Add(2*time.Hour))
	if err != nil || !r2.RevokedAt.Equal(*r1.RevokedAt) {
		t.Errorf("second revoke changed revoked_at: %v, %v", r2.RevokedAt, err)
	}
	if _, err := s.RevokeKey(ctx, "nope", t0); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("revoke unknown: %v", err)
	}
	ks, err := s.ListKeys(ctx)
	if err != nil || len(ks) != 2 || ks[0].ID != "a" || ks[1].RevokedAt != nil {
		t.Errorf("ListKeys = %+v, %v", ks, err)
	}
}

func TestMintLimitConcurrent(t *testing.T) {
	t.Parallel()
	backends(t, testMintLimitConcurrent)
}

func testMintLimitConcurrent(t *testing.T, s state.Store) {
	ctx := context.Background()
	const limit, tries = 3, 20
	var wg sync.WaitGroup
	errs := make(chan error, tries)
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := testKey(string(rune('A'+i)), byte(i+1))
			// One instant for all: goroutines run in any order, and a mint
			// "earlier" than an already stored one would be a clock going back.
			errs <- s.MintTrial(ctx, k, state.Mint{Client: 7, Limit: limit, Window: 24 * time.Hour, At: t0})
		}()
	}
	wg.Wait()
	close(errs)
	ok, limited := 0, 0
	for err := range errs {
		var ml *state.MintLimitError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &ml) && errors.Is(err, state.ErrMintLimit):
			limited++
			if ml.RetryAfter <= 23*time.Hour || ml.RetryAfter > 24*time.Hour {
				t.Errorf("RetryAfter = %v", ml.RetryAfter)
			}
		default:
			t.Errorf("mint: %v", err)
		}
	}
	if ok != limit || limited != tries-limit {
		t.Errorf("%d minted, %d limited; want %d, %d", ok, limited, limit, tries-limit)
	}
	// Another client has its own budget; the window slides.
	if err := s.MintTrial(ctx, testKey("x", 100), state.Mint{Client: 8, Limit: limit, Window: 24 * time.Hour, At: t0}); err != nil {
		t.Errorf("other client: %v", err)
	}
	if err := s.MintTrial(ctx, testKey("y", 101), state.Mint{Client: 7, Limit: limit, Window: 24 * time.Hour, At: t0.Add(25 * time.Hour)}); err != nil {
		t.Errorf("after the window: %v", err)
	}
}

func TestFlushAndUsage(t *testing.T) {
	t.Parallel()
	backends(t, testFlushAndUsage)
}

func testFlushAndUsage(t *testing.T, s state.Store) {
	ctx := context.Background()
	if err := s.CreateKey(ctx, testKey("k", 1)); err != nil {
		t.Fatal(err)
	}
	sk := make([]byte, 8)
	sk[1] = 3
	b := state.Batch{
		Keyless: []state.ClientCount{{"2026-05-14", 1, 5}, {"2026-05-14", 2, 1}, {"2026-05-13", 1, 9}},
		Usage: []state.UsageDelta{
			{state.Anonymous, "2026-05-14", "GET /v1/x", "he", 6, 1},
			{state.Anonymous, "2026-04-30", "GET /v1/y", "", 2, 2},
			{"k", "2026-05-14", "GET /v1/x", "be", 4, 0},
			{"k", "2026-05-01", "GET /v1/y", "be", 1, 1},
		},
		Sketches: []state.Sketch{{"2026-05", sk}},
		LastUsed: []state.KeyUse{{"k", t0}},
	}
	for range 2 { // flushing twice adds twice; sketches merge idempotently
		if err := s.Flush(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	got := map[uint64]int64{}
	s.KeylessDay(ctx, "2026-05-14", func(c uint64, n int64) { got[c] = n })
	if len(got) != 2 || got[1] != 10 || got[2] != 2 {
		t.Errorf("KeylessDay = %v", got)
	}
	c, err := s.KeyCounts(ctx, "k", "2026-05-14", "2026-05")
	if err != nil || c != (state.Counts{Today: 8, Month: 10, Total: 10}) {
		t.Errorf("KeyCounts = %+v, %v", c, err)
	}
	u, err := s.Usage(ctx, state.Anonymous, []string{"2026-04", "2026-05"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Periods[0] != (state.MonthUsage{"2026-04", 4, 4}) || u.Periods[1] != (state.MonthUsage{"2026-05", 12, 2}) {
		t.Errorf("periods = %+v", u.Periods)
	}
	if len(u.BL) != 1 || u.BL[0] != (state.BLCount{"he", 12}) || len(u.Endpoints) != 2 || u.Endpoints[0].Pattern != "GET /v1/x" {
		t.Errorf("distributions = %+v %+v", u.BL, u.Endpoints)
	}
	if len(u.Sketches) != 1 || u.Sketches[0][1] != 3 {
		t.Errorf("sketches = %v", u.Sketches)
	}
	if k, _ := s.Key(ctx, "k"); k.LastUsedAt == nil || !k.LastUsedAt.Equal(t0) {
		t.Errorf("last_used_at = %v", k.LastUsedAt)
	}
	if err := s.Flush(ctx, state.Batch{PruneBefore: "2026-05-14"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	s.KeylessDay(ctx, "2026-05-13", func(uint64, int64) { n++ })
	if n != 0 {
		t.Errorf("pruned day still has %d rows", n)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func TestFlushLarge(t *testing.T) {
	t.Parallel()
	backends(t, testFlushLarge)
}

// testFlushLarge: a flush of more statements than one batch run holds
// (Flush runs them 512 at a time) writes every row, twice over when
// flushed twice.
func testFlushLarge(t *testing.T, s state.Store) {
	ctx := context.Background()
	var b state.Batch
	for c := range 1300 {
		b.Keyless = append(b.Keyless, state.ClientCount{Day: "2026-05-14", Client: uint64(c) << 40, Calls: int64(c%7 + 1)})
	}
	for range 2 {
		if err := s.Flush(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	got := map[uint64]int64{}
	if err := s.KeylessDay(ctx, "2026-05-14", func(c uint64, n int64) { got[c] = n }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(b.Keyless) {
		t.Fatalf("%d clients stored, want %d", len(got), len(b.Keyless))
	}
	for _, c := range b.Keyless {
		if got[c.Client] != 2*c.Calls {
			t.Fatalf("client %x: %d calls, want %d", c.Client, got[c.Client], 2*c.Calls)
		}
	}
}

func TestAudit(t *testing.T) {
	t.Parallel()
	backends(t, testAudit)
}

// testAudit: every key change leaves exactly one event, written with the
// change (a refused change leaves none), in order, with its actor.
func testAudit(t *testing.T, s state.Store) {
	ctx := context.Background()
	admin, cli := state.WithActor(ctx, "admin-api"), state.WithActor(ctx, "cli")
	k := testKey("a", 1)
	k.Tier = "pro"
	if err := s.CreateKey(admin, k); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateKey(admin, testKey("a", 2)); !errors.Is(err, state.ErrExists) {
		t.Fatalf("duplicate: %v", err)
	}
	m := state.Mint{Client: 0xabc, Limit: 1, Window: time.Hour, At: t0}
	tk := testKey("t", 3)
	tk.Source = "fair"
	if err := s.MintTrial(state.WithActor(ctx, "client:0000000000000abc"), tk, m); err != nil {
		t.Fatal(err)
	}
	if err := s.MintTrial(ctx, testKey("t2", 4), m); !errors.Is(err, state.ErrMintLimit) {
		t.Fatalf("over the mint limit: %v", err)
	}
	if _, err := s.RevokeKey(cli, "a", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeKey(cli, "a", t0.Add(2*time.Hour)); err != nil { // no change, no event
		t.Fatal(err)
	}
	ev, err := s.Audit(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ action, key, actor, detail string }{
		{state.AuditKeyCreate, "a", "admin-api", `customer="c" tier="pro"`},
		{state.AuditKeyMint, "t", "client:0000000000000abc", `customer="c" tier="pro" source="fair"`},
		{state.AuditKeyRevoke, "a", "cli", ""},
	}
	if len(ev) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(ev), len(want), ev)
	}
	for i, w := range want {
		e := ev[i]
		if e.Action != w.action || e.KeyID != w.key || e.Actor != w.actor || e.Detail != w.detail {
			t.Errorf("event %d = %+v, want %+v", i, e, w)
		}
		if i > 0 && e.Seq <= ev[i-1].Seq {
			t.Errorf("seq not increasing: %d after %d", e.Seq, ev[i-1].Seq)
		}
	}
	if !ev[2].At.Equal(t0.Add(time.Hour)) {
		t.Errorf("revoke at %v", ev[2].At)
	}
	page, err := s.Audit(ctx, ev[0].Seq, 1)
	if err != nil || len(page) != 1 || page[0].Seq != ev[1].Seq {
		t.Errorf("page after %d: %+v, %v", ev[0].Seq, page, err)
	}
	if rest, _ := s.Audit(ctx, ev[2].Seq, 10); len(rest) != 0 {
		t.Errorf("after the last: %+v", rest)
	}
}
