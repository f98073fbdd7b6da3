// Package access decides and counts who may call the data API: the keyless
// budget per client and UTC day, API key authentication, trial-key minting,
// key management and usage reports (SPEC 2.14-2.16, 3, 5, 8).
//
// Counting happens in memory; Run flushes the counters to the state store
// in one batch per interval (default 1 s) and Close flushes the rest, so no
// request waits for a disk write. After a clean shutdown every counter is
// exact; after a crash at most the last interval of counts is lost. Keys are
// written to the store before the call that creates them returns. The
// package knows nothing of HTTP and never logs.
package access

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/svc-geodata/svc/state"
)

// Sentinel errors of the package.
var (
	ErrKeyMalformed = errors.New("access: malformed API key")
	ErrKeyUnknown   = errors.New("access: unknown API key")
	ErrKeyExpired   = errors.New("access: API key expired")
	ErrKeyRevoked   = errors.New("access: API key revoked")
	ErrInvalid      = errors.New("access: invalid value")
	ErrNotFound     = state.ErrNotFound
	ErrMintLimit    = state.ErrMintLimit
)

// FieldError names the field of a request that failed validation; it
// matches ErrInvalid.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return fmt.Sprintf("access: %s: %s", e.Field, e.Reason) }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// Defaults of Options.
const (
	DefaultKeylessLimit   = 1000
	DefaultMintsPerClient = 3
	DefaultMintWindow     = 24 * time.Hour
	DefaultMaxClients     = 2_000_000
	DefaultFlushInterval  = time.Second
)

// Options configure a Service. Zero values take the defaults above.
type Options struct {
	Store          state.Store // required
	Now            func() time.Time
	KeylessLimit   int           // keyless requests per client and UTC day
	MintsPerClient int           // trial mints per client within MintWindow
	MintWindow     time.Duration // sliding window of the mint limit
	// MaxClients caps the exactly counted keyless clients per day; beyond it
	// clients share a fixed-size count-min sketch, so memory stays bounded
	// (about 80 MB at the default) whatever the number of distinct IPs.
	MaxClients    int
	FlushInterval time.Duration
	// OnError receives flush failures of Run (the counts are retried).
	OnError func(error)
}

// Service is the access component. Create it with New; it is safe for
// concurrent use.
type Service struct {
	opts    Options
	store   state.Store
	now     func() time.Time
	keyless *keyless
	usage   *usage
	keys    *keyCache
	// shared is set when the store is shared by replicas (exact keyless
	// counting there); clock then follows the store's clock.
	shared SharedCounter
	clock  clockOffset

	flushMu   sync.Mutex
	pending   state.Batch // a batch whose flush failed, retried next time
	lastPrune string
	closeOnce sync.Once
}

// New builds the service and restores today's keyless counters from the
// store, so a restart does not hand out fresh budgets.
func New(ctx context.Context, opts Options) (*Service, error) {
	if opts.Store == nil {
		return nil, errors.New("access: no store")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.KeylessLimit = positive(opts.KeylessLimit, DefaultKeylessLimit)
	opts.MintsPerClient = positive(opts.MintsPerClient, DefaultMintsPerClient)
	opts.MaxClients = positive(opts.MaxClients, DefaultMaxClients)
	if opts.MintWindow <= 0 {
		opts.MintWindow = DefaultMintWindow
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	s := &Service{opts: opts, store: opts.Store, now: opts.Now,
		keyless: newKeyless(opts.KeylessLimit, opts.MaxClients), usage: newUsage(), keys: newKeyCache()}
	if sc, ok := opts.Store.(SharedCounter); ok {
		s.shared = sc
		local := opts.Now
		if err := s.clock.refresh(ctx, sc, local); err != nil {
			return nil, fmt.Errorf("access: store clock: %w", err)
		}
		s.now = func() time.Time { return s.clock.now(local) }
	}
	day := dayOf(s.now())
	err := s.store.KeylessDay(ctx, dayString(day), func(c uint64, calls int64) {
		s.keyless.restore(day, Client(c), calls)
	})
	if err != nil {
		return nil, fmt.Errorf("access: restore keyless counters: %w", err)
	}
	if s.keys.version, err = s.store.KeysVersion(ctx); err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	return s, nil
}

func positive(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// KeylessLimit is the configured keyless requests per client and UTC day.
func (s *Service) KeylessLimit() int { return s.opts.KeylessLimit }

// Run flushes the counters every FlushInterval and drops cached key records
// when another process changed keys, until ctx ends. With a shared store
// (several replicas) the keys version is polled every SharedKeysInterval, so
// a key revoked on one replica is refused by all within that time. Failures
// go to Options.OnError; their counts are retried at the next tick.
func (s *Service) Run(ctx context.Context) {
	t := time.NewTicker(s.opts.FlushInterval)
	defer t.Stop()
	var keysTick <-chan time.Time
	if s.shared != nil {
		kt := time.NewTicker(SharedKeysInterval)
		defer kt.Stop()
		keysTick = kt.C
	}
	report := func(err error) {
		if err != nil && s.opts.OnError != nil && ctx.Err() == nil {
			s.opts.OnError(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-keysTick:
			report(s.keys.refresh(ctx, s.store))
			continue
		case <-t.C:
		}
		err := s.Flush(ctx)
		if err == nil {
			err = s.keys.refresh(ctx, s.store)
		}
		if err == nil && s.shared != nil {
			err = s.clock.refresh(ctx, s.shared, s.opts.Now)
		}
		report(err)
	}
}

// SharedKeysInterval is how often replicas sharing a store look for key
// changes (a revocation elsewhere takes effect within it).
const SharedKeysInterval = 250 * time.Millisecond

// maxPending caps the rows kept for retry while the store fails, so an
// outage cannot grow memory without bound; beyond it counts are dropped.
const maxPending = 1 << 20

// Flush writes the counters gathered since the last flush in one batch.
// On failure the batch is kept (up to a cap) and retried by the next Flush.
func (s *Service) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	b := s.pending
	s.pending = state.Batch{}
	b.Keyless = s.keyless.drain(b.Keyless)
	b.Sketches = append(b.Sketches, s.keyless.drainSketches()...)
	b.Usage, b.LastUsed = s.usage.drain(b.Usage, b.LastUsed)
	// Only today's per-client rows are needed to restore limits after a
	// restart; yesterday's stay one more day for late flushes.
	if prune := dayString(dayOf(s.now()) - 1); prune != s.lastPrune {
		b.PruneBefore = prune
	}
	if b.Empty() {
		return nil
	}
	if err := s.store.Flush(ctx, b); err != nil {
		if len(b.Keyless)+len(b.Usage) <= maxPending {
			s.pending = b
		}
		return fmt.Errorf("access: flush: %w", err)
	}
	if b.PruneBefore != "" {
		s.lastPrune = b.PruneBefore
	}
	return nil
}

// Close flushes what is left; call it after the HTTP server stopped. The
// store stays open (its owner closes it).
func (s *Service) Close(ctx context.Context) error {
	var err error
	s.closeOnce.Do(func() { err = s.Flush(ctx) })
	return err
}

// Ping checks that the state store answers and accepts writes.
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

// Days are counted since the Unix epoch; Unix time has no leap seconds, so
// the division gives the UTC calendar day.
func dayOf(t time.Time) int32 { return int32(t.Unix() / 86400) }

func dayString(d int32) string { return time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly) }

func monthString(t time.Time) string { return t.UTC().Format("2006-01") }

// untilMidnight is the time from t to the next 00:00 UTC, at least 1 s.
func untilMidnight(t time.Time) time.Duration {
	next := time.Unix((int64(dayOf(t))+1)*86400, 0)
	return max(next.Sub(t), time.Second)
}

// MintsPerClient is the configured number of trial mints per client within
// the mint window.
func (s *Service) MintsPerClient() int { return s.opts.MintsPerClient }
