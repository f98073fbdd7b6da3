package access

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/svc-geodata/svc/state"
)

// Key format: "svc_" followed by 32 characters of unpadded base64url (24
// random bytes, 192 bits). The first PrefixLen characters are the
// key_prefix shown in listings and logs; the rest is never stored.
const (
	keyScheme = "svc_"
	keyLen    = len(keyScheme) + 32
	PrefixLen = 12
)

// Tiers are the key tiers. Trial keys expire after TrialLifetime and carry
// TrialLimits; the others have no expiry and only their monthly quota.
var Tiers = []string{TierTrial, "pro", "business", "internal"}

// TierTrial is the tier of self-service trial keys.
const TierTrial = "trial"

// TrialLifetime is how long a trial key works after its mint (SPEC 8).
const TrialLifetime = 7 * 24 * time.Hour

// Limits are a key's declared soft limits; 0 means none.
type Limits struct {
	PerMinute, PerDay, PerMonth int64
}

// TrialLimits are the soft limits of trial keys (SPEC 8): counted and
// shown, never enforced.
var TrialLimits = Limits{PerMinute: 60, PerDay: 5000, PerMonth: 35000}

// newPlaintext returns a fresh random key.
func newPlaintext() string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return keyScheme + base64.RawURLEncoding.EncodeToString(b[:])
}

// WellFormed reports whether s has the shape of a key. It reveals nothing
// about which keys exist.
func WellFormed(s string) bool {
	if len(s) != keyLen || s[:len(keyScheme)] != keyScheme {
		return false
	}
	for i := len(keyScheme); i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// HashKey is the SHA-256 of a plaintext key, the only form that is stored.
func HashKey(plaintext string) [32]byte { return sha256.Sum256([]byte(plaintext)) }

// Principal is an authenticated key as the request path needs it.
type Principal struct {
	ID     string
	Prefix string
	Tier   string
	// Quota is the monthly call quota; nil means unlimited.
	Quota     *int64
	Limits    Limits
	expiresAt *time.Time
	revokedAt *time.Time
}

func principalOf(k state.Key) *Principal {
	p := &Principal{ID: k.ID, Prefix: k.Prefix, Tier: k.Tier, Quota: k.MonthlyCallQuota,
		expiresAt: k.ExpiresAt, revokedAt: k.RevokedAt}
	if k.Tier == TierTrial {
		p.Limits = TrialLimits
		if p.Quota == nil {
			q := TrialLimits.PerMonth
			p.Quota = &q
		}
	} else if p.Quota != nil {
		p.Limits.PerMonth = *p.Quota
	}
	return p
}

// keyCache keeps authenticated key records by hash, and live counters by
// key ID. Records are dropped when the store's keys version changes (any
// process created or revoked a key) and on revocation through Service.
type keyCache struct {
	mu      sync.RWMutex
	version int64
	byHash  map[[32]byte]*Principal
	liveMu  sync.Mutex
	live    map[string]*keyLive
}

// maxCachedKeys bounds the cache; it is emptied when full.
const maxCachedKeys = 100_000

func newKeyCache() *keyCache {
	return &keyCache{byHash: map[[32]byte]*Principal{}, live: map[string]*keyLive{}}
}

func (c *keyCache) refresh(ctx context.Context, st state.Store) error {
	v, err := st.KeysVersion(ctx)
	if err != nil {
		return fmt.Errorf("access: %w", err)
	}
	c.mu.Lock()
	if v != c.version {
		c.version, c.byHash = v, map[[32]byte]*Principal{}
	}
	c.mu.Unlock()
	return nil
}

func (c *keyCache) drop(hash [32]byte) {
	c.mu.Lock()
	delete(c.byHash, hash)
	c.mu.Unlock()
}

// Authenticate checks the plaintext key of a request. It hashes the key
// first and looks it up by hash only, so its timing does not depend on how
// much of the key matches a stored one. Errors: ErrKeyMalformed,
// ErrKeyUnknown, ErrKeyExpired, ErrKeyRevoked, or a store failure.
func (s *Service) Authenticate(ctx context.Context, plaintext string) (*Principal, error) {
	hash := HashKey(plaintext)
	if !WellFormed(plaintext) {
		return nil, ErrKeyMalformed
	}
	s.keys.mu.RLock()
	p := s.keys.byHash[hash]
	s.keys.mu.RUnlock()
	if p == nil {
		k, err := s.store.KeyByHash(ctx, hash)
		if errors.Is(err, state.ErrNotFound) {
			return nil, ErrKeyUnknown
		}
		if err != nil {
			return nil, fmt.Errorf("access: authenticate: %w", err)
		}
		p = principalOf(k)
		s.keys.mu.Lock()
		if len(s.keys.byHash) >= maxCachedKeys {
			s.keys.byHash = map[[32]byte]*Principal{}
		}
		s.keys.byHash[hash] = p
		s.keys.mu.Unlock()
	}
	now := s.now()
	switch {
	case p.revokedAt != nil:
		return nil, ErrKeyRevoked
	case p.expiresAt != nil && !now.Before(*p.expiresAt):
		return nil, ErrKeyExpired
	}
	return p, nil
}

// keyLive are the running counts of one key: the stored totals loaded on
// first use plus every request since.
type keyLive struct {
	mu                sync.Mutex
	loaded            bool
	day               int32
	month             string
	minute            int64
	today, mon, total int64
	minuteN           int64
}

// Quota is a key's usage after counting a request, for the response
// headers: MonthUsed calls this month, MonthLimit the quota (nil:
// unlimited), Exceeded the names of soft limits now exceeded ("minute",
// "day", "month").
type Quota struct {
	MonthUsed  int64
	MonthLimit *int64
	Exceeded   []string
}

// CountKey counts one request of p and returns its quota state.
func (s *Service) CountKey(ctx context.Context, p *Principal) (Quota, error) {
	return s.CountKeyN(ctx, p, 1)
}

// CountKeyN counts n calls of p at once (a batch request).
func (s *Service) CountKeyN(ctx context.Context, p *Principal, n int) (Quota, error) {
	n = max(n, 1)
	now := s.now()
	l, err := s.live(ctx, p.ID, now)
	if err != nil {
		return Quota{}, err
	}
	l.mu.Lock()
	l.roll(now)
	l.today += int64(n)
	l.mon += int64(n)
	l.total += int64(n)
	l.minuteN += int64(n)
	q := Quota{MonthUsed: l.mon, MonthLimit: p.Quota}
	lim := p.Limits
	for _, e := range []struct {
		name     string
		n, limit int64
	}{{"minute", l.minuteN, lim.PerMinute}, {"day", l.today, lim.PerDay}, {"month", l.mon, lim.PerMonth}} {
		if e.limit > 0 && e.n > e.limit {
			q.Exceeded = append(q.Exceeded, e.name)
		}
	}
	l.mu.Unlock()
	return q, nil
}

// roll starts a new minute, day or month; the caller holds l.mu.
func (l *keyLive) roll(now time.Time) {
	if m := now.Unix() / 60; m != l.minute {
		l.minute, l.minuteN = m, 0
	}
	if d := dayOf(now); d != l.day {
		l.day, l.today = d, 0
		if m := monthString(now); m != l.month {
			l.month, l.mon = m, 0
		}
	}
}

// live returns the running counts of key id, loading the stored totals on
// first use.
func (s *Service) live(ctx context.Context, id string, now time.Time) (*keyLive, error) {
	c := s.keys
	c.liveMu.Lock()
	l := c.live[id]
	if l == nil {
		l = &keyLive{}
		c.live[id] = l
	}
	c.liveMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.loaded {
		return l, nil
	}
	day, month := dayOf(now), monthString(now)
	cnt, err := s.store.KeyCounts(ctx, id, dayString(day), month)
	if err != nil {
		return nil, fmt.Errorf("access: counts of key %s: %w", id, err)
	}
	l.loaded, l.day, l.month, l.minute = true, day, month, now.Unix()/60
	l.today, l.mon, l.total = cnt.Today, cnt.Month, cnt.Total
	return l, nil
}
