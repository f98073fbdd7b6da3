package access

import (
	"sync"
	"time"

	"github.com/svc-geodata/svc/state"
)

// usage gathers per-request usage (subject, day, route pattern, BL) between
// flushes. Its size is bounded by the distinct combinations per flush
// interval: patterns come from the route table, BL codes from the catalog.
type usage struct {
	mu   sync.Mutex
	m    map[usageKey]*callCount
	used map[string]time.Time // key ID -> last use since the last flush
}

type usageKey struct {
	subject, pattern, bl string
	day                  int32
}

type callCount struct{ calls, errors int64 }

func newUsage() *usage { return &usage{m: map[usageKey]*callCount{}, used: map[string]time.Time{}} }

// Record counts one finished request for the usage reports. subject is
// state.Anonymous for keyless traffic or the key's ID; pattern is the
// route pattern (never a raw path); bl is the federal state that answered
// ("" when none); status >= 400 counts as an error.
func (s *Service) Record(subject, pattern, bl string, status int) {
	now := s.now()
	k := usageKey{subject: subject, pattern: pattern, bl: bl, day: dayOf(now)}
	u := s.usage
	u.mu.Lock()
	c := u.m[k]
	if c == nil {
		c = &callCount{}
		u.m[k] = c
	}
	c.calls++
	if status >= 400 {
		c.errors++
	}
	if subject != state.Anonymous {
		u.used[subject] = now
	}
	u.mu.Unlock()
}

// drain appends the usage since the last call to dst and used.
func (u *usage) drain(dst []state.UsageDelta, used []state.KeyUse) ([]state.UsageDelta, []state.KeyUse) {
	u.mu.Lock()
	m, last := u.m, u.used
	if len(m) > 0 || len(last) > 0 {
		u.m, u.used = map[usageKey]*callCount{}, map[string]time.Time{}
	}
	u.mu.Unlock()
	for k, c := range m {
		dst = append(dst, state.UsageDelta{Subject: k.subject, Day: dayString(k.day), Pattern: k.pattern, BL: k.bl,
			Calls: c.calls, Errors: c.errors})
	}
	for id, at := range last {
		used = append(used, state.KeyUse{ID: id, At: at})
	}
	return dst, used
}
