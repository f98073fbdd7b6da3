package access

import (
	"context"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/pgtest"
	"github.com/svc-geodata/svc/state/postgres"
)

// replicas opens n Services on one PostgreSQL database, as n svc replicas
// behind a load balancer would.
func replicas(t *testing.T, n, limit int) ([]*Service, *pgtest.Cluster, string) {
	t.Helper()
	c := pgtest.Start(t)
	url := c.CreateDB(t, "svc")
	ctx := context.Background()
	var out []*Service
	for range n {
		st, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		s, err := New(ctx, Options{Store: st, KeylessLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if s.shared == nil {
			t.Fatal("PostgreSQL store not detected as shared")
		}
		out = append(out, s)
	}
	return out, c, url
}

// TestSharedKeylessExact: one client hammering three replicas at once gets
// exactly the limit admitted in total: no lost update, no double budget.
func TestSharedKeylessExact(t *testing.T) {
	const limit = 300
	reps, _, _ := replicas(t, 3, limit)
	client := ClientOf(netip.MustParseAddr("203.0.113.7"))
	var allowed, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := reps[i%3]
			for range 40 {
				d := s.Keyless(client)
				switch {
				case d.Unavailable:
					t.Errorf("unavailable: %v", d.Err)
				case d.Allowed:
					allowed.Add(1)
				default:
					refused.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != limit || refused.Load() != 12*40-limit {
		t.Errorf("allowed %d, refused %d; want exactly %d allowed", allowed.Load(), refused.Load(), limit)
	}
	// Sequential requests round-robin: the first request past the limit is
	// refused on whichever replica it lands.
	other := ClientOf(netip.MustParseAddr("198.51.100.1"))
	for i := range limit + 1 {
		d := reps[i%3].Keyless(other)
		if want := i < limit; d.Allowed != want {
			t.Fatalf("request %d on replica %d: allowed %v, want %v", i+1, i%3, d.Allowed, want)
		}
	}
	// The replica that refused knows; the others learn on their next request.
	if r := reps[limit%3].KeylessRemaining(other); r != 0 {
		t.Errorf("remaining after the limit = %d", r)
	}
}

// TestSharedOutage: with the database stopped, keyless requests answer
// Unavailable (503) instead of hanging or admitting; after a restart the
// same Services recover without being recreated.
func TestSharedOutage(t *testing.T) {
	reps, c, _ := replicas(t, 1, 1000)
	s := reps[0]
	client := ClientOf(netip.MustParseAddr("192.0.2.1"))
	if d := s.Keyless(client); !d.Allowed {
		t.Fatalf("first request: %+v", d)
	}
	c.Stop(t)
	start := time.Now()
	d := s.Keyless(client)
	if !d.Unavailable || d.Allowed || d.RetryAfter <= 0 {
		t.Errorf("during the outage: %+v", d)
	}
	if el := time.Since(start); el > sharedHitTimeout+time.Second {
		t.Errorf("outage answer took %v", el)
	}
	c.Restart(t)
	var ok bool
	for range 50 { // the pool reconnects on its own
		if d := s.Keyless(client); d.Allowed {
			ok = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !ok {
		t.Fatal("no recovery after the database restarted")
	}
}

// TestSharedKeylessN: a batch counted as n calls on one replica is seen by
// the others (the PostgreSQL upsert adds n, saturating at the limit + 1).
func TestSharedKeylessN(t *testing.T) {
	reps, _, _ := replicas(t, 2, 10)
	client := ClientOf(netip.MustParseAddr("192.0.2.7"))
	if d := reps[0].KeylessN(client, 4); !d.Allowed || d.Remaining != 6 {
		t.Fatalf("4 calls on replica 0: %+v", d)
	}
	if d := reps[1].KeylessN(client, 5); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("5 more on replica 1: %+v", d)
	}
	if d := reps[0].KeylessN(client, 3); d.Allowed || d.Remaining != 0 {
		t.Fatalf("3 more past the limit: %+v", d)
	}
}
