package access

import (
	"context"
	"sync/atomic"
	"time"
)

// SharedCounter is implemented by state stores that several svc replicas
// share (PostgreSQL). With such a store the keyless budget is counted
// exactly across replicas: every keyless request adds one to the client's
// row of the day in one atomic statement and is decided on the total it
// returns, so no interleaving of replicas admits more than the limit and no
// update is lost. A client refused once is refused locally for the rest of
// the day without asking the store again.
type SharedCounter interface {
	// KeylessHit adds calls calls of client on day, saturating at ceiling, and
	// returns the stored total including it.
	KeylessHit(ctx context.Context, day string, client uint64, calls, ceiling int64) (int64, error)
	// Now is the store's clock: day windows follow one clock for all replicas.
	Now(ctx context.Context) (time.Time, error)
}

// sharedHitTimeout bounds the store call of one keyless request; past it the
// request is answered 503 (Decision.Unavailable) instead of hanging.
const sharedHitTimeout = 2 * time.Second

// clockOffset is the store clock minus the local clock, in nanoseconds,
// refreshed by Run; the local clock plus it gives the shared day.
type clockOffset struct{ ns atomic.Int64 }

func (o *clockOffset) now(local func() time.Time) time.Time {
	return local().Add(time.Duration(o.ns.Load()))
}

func (o *clockOffset) refresh(ctx context.Context, sc SharedCounter, local func() time.Time) error {
	t0 := local()
	db, err := sc.Now(ctx)
	if err != nil {
		return err
	}
	// The store read its clock somewhere in the round trip: take the middle.
	mid := t0.Add(local().Sub(t0) / 2)
	o.ns.Store(int64(db.Sub(mid)))
	return nil
}

// sharedKeyless decides a keyless request on the store's exact total.
func (s *Service) sharedKeyless(c Client, calls int) Decision {
	now := s.now()
	day := dayOf(now)
	limit := s.keyless.limit
	if s.keyless.peek(day, c) > limit {
		return Decision{Limit: int(limit), RetryAfter: untilMidnight(now)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedHitTimeout)
	defer cancel()
	n, err := s.shared.KeylessHit(ctx, dayString(day), uint64(c), int64(calls), int64(limit)+1)
	if err != nil {
		return Decision{Limit: int(limit), Unavailable: true, RetryAfter: 5 * time.Second, Err: err}
	}
	s.keyless.remember(day, c, n)
	if n == int64(calls) {
		s.keyless.hll.add(day, c)
	}
	d := Decision{Allowed: n <= int64(limit), Limit: int(limit), Remaining: max(0, int(limit)-int(n))}
	if !d.Allowed {
		d.RetryAfter = untilMidnight(now)
	}
	return d
}

// remember records c's stored total on day for the local fast path, as
// flushed (nothing is written again). Beyond the exact cap nothing is kept:
// such clients always ask the store.
func (k *keyless) remember(d int32, c Client, calls int64) {
	n := uint64(min(calls, int64(k.limit)+1))
	sh := k.shard(c)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.rollover(d)
	if _, ok := sh.counts[c]; ok || len(sh.counts) < k.shardCap {
		sh.counts[c] = n<<32 | n
	}
}
