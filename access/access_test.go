package access

import (
	"context"
	"errors"
	"net/netip"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/svc-geodata/svc/state"
	"github.com/svc-geodata/svc/state/sqlite"
)

// clock is an injected, settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func openStore(t testing.TB) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "svc.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func newService(t testing.TB, st state.Store, clk *clock, limit int) *Service {
	t.Helper()
	s, err := New(context.Background(), Options{Store: st, Now: clk.Now, KeylessLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClientOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"192.0.2.1", "::ffff:192.0.2.1", true},
		{"192.0.2.1", "192.0.2.2", false},
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9", true}, // same /64
		{"2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{"0.0.0.1", "::1", false},
	} {
		t.Run(tc.a+"~"+tc.b, func(t *testing.T) {
			ca, cb := ClientOf(netip.MustParseAddr(tc.a)), ClientOf(netip.MustParseAddr(tc.b))
			if (ca == cb) != tc.same {
				t.Errorf("ClientOf(%s)=%x, ClientOf(%s)=%x; same want %v", tc.a, ca, tc.b, cb, tc.same)
			}
		})
	}
}

func TestKeylessLimitAndRollover(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	clk := &clock{t: time.Date(2026, 5, 14, 23, 59, 0, 0, time.UTC)}
	s := newService(t, st, clk, 5)
	c := Client(42)
	for i := 1; i <= 5; i++ {
		if d := s.Keyless(c); !d.Allowed || d.Remaining != 5-i {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d := s.Keyless(c)
	if d.Allowed || d.Remaining != 0 || d.RetryAfter != time.Minute || d.Limit != 5 {
		t.Fatalf("6th request: %+v", d)
	}
	if got := s.KeylessRemaining(Client(43)); got != 5 {
		t.Errorf("other client remaining %d", got)
	}
	clk.Set(time.Date(2026, 5, 15, 0, 0, 0, 0, time.UTC)) // 00:00 UTC
	if d := s.Keyless(c); !d.Allowed || d.Remaining != 4 {
		t.Errorf("after midnight: %+v", d)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	days := map[string]int64{}
	for _, day := range []string{"2026-05-14", "2026-05-15"} {
		st.KeylessDay(context.Background(), day, func(cl uint64, n int64) { days[day] += n })
	}
	if days["2026-05-14"] != 6 || days["2026-05-15"] != 1 {
		t.Errorf("stored per day = %v, want 6 (saturated) and 1", days)
	}
}

func TestRestartKeepsCounts(t *testing.T) {
	t.Parallel()
	st, path := openStore(t)
	clk := &clock{t: time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)}
	s := newService(t, st, clk, 10)
	for range 7 {
		s.Keyless(1)
		s.Record(state.Anonymous, "GET /v1/x", "he", 200)
	}
	k, err := s.CreateKey(context.Background(), CreateRequest{CustomerName: "c", Tier: "pro"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Authenticate(context.Background(), k.Plaintext)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s.CountKey(context.Background(), p)
		s.Record(p.ID, "GET /v1/x", "", 200)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st2, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	s2 := newService(t, st2, clk, 10)
	if got := s2.KeylessRemaining(1); got != 3 {
		t.Errorf("remaining after restart = %d, want 3", got)
	}
	p2, err := s2.Authenticate(context.Background(), k.Plaintext)
	if err != nil {
		t.Fatal(err)
	}
	q, err := s2.CountKey(context.Background(), p2)
	if err != nil || q.MonthUsed != 4 || q.MonthLimit != nil {
		t.Errorf("quota after restart = %+v, %v; want 4 used, unlimited", q, err)
	}
	rep, err := s2.Usage(context.Background(), state.Anonymous, 1)
	if err != nil || rep.TotalCalls != 7 || rep.UniqueClients != 1 || len(rep.BL) != 1 {
		t.Errorf("anonymous report = %+v, %v", rep, err)
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	clk := &clock{t: time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)}
	s := newService(t, st, clk, 10)
	ctx := context.Background()
	trial, err := s.MintTrial(ctx, MintRequest{Client: 1})
	if err != nil {
		t.Fatal(err)
	}
	pro, _ := s.CreateKey(ctx, CreateRequest{CustomerName: "c", Tier: "pro"})
	unknown := newPlaintext()
	for _, tc := range []struct {
		name, key string
		at        time.Duration
		want      error
	}{
		{"trial", trial.Plaintext, 0, nil},
		{"pro", pro.Plaintext, 0, nil},
		{"empty", "", 0, ErrKeyMalformed},
		{"short", trial.Plaintext[:20], 0, ErrKeyMalformed},
		{"bad char", trial.Plaintext[:35] + "!", 0, ErrKeyMalformed},
		{"unknown", unknown, 0, ErrKeyUnknown},
		{"trial just before expiry", trial.Plaintext, TrialLifetime - time.Second, nil},
		{"trial expired", trial.Plaintext, TrialLifetime, ErrKeyExpired},
		{"pro never expires", pro.Plaintext, 400 * 24 * time.Hour, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.Set(time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC).Add(tc.at))
			_, err := s.Authenticate(ctx, tc.key)
			if !errors.Is(err, tc.want) {
				t.Errorf("Authenticate = %v, want %v", err, tc.want)
			}
		})
	}
	clk.Set(time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC))
	if _, err := s.RevokeKey(ctx, pro.Key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, pro.Plaintext); !errors.Is(err, ErrKeyRevoked) {
		t.Errorf("revoked key (cached before) = %v", err)
	}
	// A revocation by another process reaches the cache with the next refresh.
	if _, err := st.RevokeKey(ctx, trial.Key.ID, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.keys.refresh(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, trial.Plaintext); !errors.Is(err, ErrKeyRevoked) {
		t.Errorf("key revoked elsewhere = %v", err)
	}
}

func TestTrialQuota(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	clk := &clock{t: time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)}
	s := newService(t, st, clk, 10)
	ctx := context.Background()
	k, _ := s.MintTrial(ctx, MintRequest{Client: 1})
	p, _ := s.Authenticate(ctx, k.Plaintext)
	var q Quota
	for range 61 {
		q, _ = s.CountKey(ctx, p)
	}
	if q.MonthUsed != 61 || q.MonthLimit == nil || *q.MonthLimit != 35000 || len(q.Exceeded) != 1 || q.Exceeded[0] != "minute" {
		t.Errorf("after 61 calls in a minute: %+v", q)
	}
	clk.Set(clk.Now().Add(time.Minute))
	if q, _ = s.CountKey(ctx, p); len(q.Exceeded) != 0 {
		t.Errorf("next minute still exceeded: %+v", q)
	}
	st1, err := s.TrialStatusOf(ctx, k.Plaintext)
	if err != nil || st1.RequestsToday != 62 || st1.RequestsTotal != 62 || st1.Status != StatusActive ||
		st1.SecondsRemaining != int64((TrialLifetime-time.Minute)/time.Second) {
		t.Errorf("status = %+v, %v", st1, err)
	}
	if _, err := s.TrialStatusOf(ctx, newPlaintext()); !errors.Is(err, ErrKeyUnknown) {
		t.Errorf("unknown status: %v", err)
	}
}

func TestMintValidation(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	s := newService(t, st, &clock{t: time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)}, 10)
	str := func(v string) *string { return &v }
	long := make([]byte, 65)
	for i := range long {
		long[i] = 'a'
	}
	for _, tc := range []struct {
		name          string
		source, email *string
		field         string
	}{
		{"none", nil, nil, ""},
		{"good", str("newsletter_2026-05"), str("me@example.org"), ""},
		{"source upper", str("News"), nil, "source"},
		{"source empty", str(""), nil, "source"},
		{"source long", str(string(long)), nil, "source"},
		{"email no at", nil, str("me.example.org"), "email"},
		{"email display name", nil, str("Me <me@example.org>"), "email"},
		{"email no dot", nil, str("me@localhost"), "email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := st.ListKeys(context.Background())
			_, err := s.MintTrial(context.Background(), MintRequest{Client: Client(len(tc.name)), Source: tc.source, Email: tc.email})
			var fe *FieldError
			if tc.field == "" && err != nil || tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field) {
				t.Fatalf("MintTrial = %v, want field %q", err, tc.field)
			}
			after, _ := st.ListKeys(context.Background())
			if minted := len(after) - len(before); minted != map[bool]int{true: 1, false: 0}[tc.field == ""] {
				t.Errorf("%d keys minted", minted)
			}
		})
	}
}

func TestOverflowBounded(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	s, err := New(context.Background(), Options{Store: st, KeylessLimit: 3, MaxClients: 64 * 4,
		Now: func() time.Time { return time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for c := range Client(2000) {
		for i := range 4 {
			d := s.Keyless(c)
			if d.Allowed != (i < 3) {
				t.Fatalf("client %d request %d: %+v", c, i, d)
			}
		}
	}
	total := 0
	for i := range s.keyless.shards {
		if n := len(s.keyless.shards[i].counts); n > 4 {
			t.Fatalf("shard %d holds %d clients, cap 4", i, n)
		}
		total += len(s.keyless.shards[i].counts)
	}
	if total > 256 {
		t.Errorf("%d exact clients, cap 256", total)
	}
}

// TestMemoryMillionClients checks that a million distinct keyless IPs in a
// day stay within a fixed memory budget.
func TestMemoryMillionClients(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a million counters")
	}
	st, _ := openStore(t)
	s := newService(t, st, &clock{t: time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)}, 1000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range uint32(1_000_000) {
		s.Keyless(ClientOf(netip.AddrFrom4([4]byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("1M clients: heap +%.1f MB", float64(grew)/1e6)
	if grew > 64<<20 {
		t.Errorf("heap grew %d MB for 1M clients; budget 64 MB", grew>>20)
	}
	sk := s.keyless.drainSketches()
	if n := estimate([][]byte{sk[0].Registers}); len(sk) != 1 || n < 980_000 || n > 1_020_000 {
		t.Errorf("unique clients estimate %d, want 1M +- 2%%", n)
	}
}

func FuzzAuthenticate(f *testing.F) {
	st, _ := openStore(f)
	s := newService(f, st, &clock{t: time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)}, 10)
	k, err := s.CreateKey(context.Background(), CreateRequest{CustomerName: "c", Tier: "pro"})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"", "svc_", k.Plaintext, k.Plaintext[:35], "svc_" + string(make([]byte, 32)), "\xff\xfe"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		p, err := s.Authenticate(context.Background(), key)
		if (err == nil) != (key == k.Plaintext) {
			t.Fatalf("Authenticate(%q) = %v, %v", key, p, err)
		}
		if err == nil {
			return
		}
		if !errors.Is(err, ErrKeyMalformed) && !errors.Is(err, ErrKeyUnknown) {
			t.Fatalf("unexpected error %v", err)
		}
		if WellFormed(key) == errors.Is(err, ErrKeyMalformed) {
			t.Fatalf("WellFormed(%q)=%v but err %v", key, WellFormed(key), err)
		}
	})
}

// TestKeylessN counts a batch as several calls: within the budget it is
// allowed with the remaining count reduced by its weight, past it refused,
// and the stored count saturates at the limit plus one.
func TestKeylessN(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	clk := &clock{t: time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)}
	s := newService(t, st, clk, 10)
	c := Client(7)
	if d := s.KeylessN(c, 4); !d.Allowed || d.Remaining != 6 {
		t.Fatalf("4 calls: %+v", d)
	}
	if d := s.Keyless(c); !d.Allowed || d.Remaining != 5 {
		t.Fatalf("then 1 call: %+v", d)
	}
	if d := s.KeylessN(c, 6); d.Allowed || d.Remaining != 0 {
		t.Fatalf("6 more calls past a budget of 5: %+v", d)
	}
	if d := s.KeylessN(c, 1000); d.Allowed {
		t.Fatalf("refused client allowed: %+v", d)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var n int64
	st.KeylessDay(context.Background(), "2026-05-14", func(cl uint64, calls int64) { n += calls })
	if n != 11 {
		t.Errorf("stored %d calls, want 11 (limit + 1)", n)
	}
}
