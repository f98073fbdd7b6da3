package access

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/svc-geodata/svc/state"
)

// MaxWindowMonths caps the window of usage reports.
const MaxWindowMonths = 24

// TopEndpoints is the number of route patterns a report lists.
const TopEndpoints = 10

// Period is one calendar month (UTC) of a usage report: Start is its first
// day, End its last; the current month is included while it runs.
type Period struct {
	Month      string
	Start, End time.Time
	Calls      int64
	Errors     int64
}

// Report is the usage of one subject over WindowMonths calendar months
// ending with the current one.
type Report struct {
	WindowMonths      int
	TotalCalls        int64
	CurrentMonthCalls int64
	// UniqueClients estimates the distinct keyless clients (IPv4 addresses,
	// IPv6 /64s) in the window with HyperLogLog (about 1 % error); 0 for keys.
	UniqueClients int64
	Periods       []Period // oldest first
	BL            []state.BLCount
	Endpoints     []state.EndpointCount // the TopEndpoints busiest
}

// Usage flushes the counters and reports subject's usage (state.Anonymous
// for keyless traffic, else a key ID) over windowMonths (1 to
// MaxWindowMonths, else a *FieldError).
func (s *Service) Usage(ctx context.Context, subject string, windowMonths int) (Report, error) {
	if windowMonths < 1 || windowMonths > MaxWindowMonths {
		return Report{}, &FieldError{Field: "window_months", Reason: fmt.Sprintf("must be 1 to %d", MaxWindowMonths)}
	}
	if err := s.Flush(ctx); err != nil {
		return Report{}, err
	}
	now := s.now().UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	months := make([]string, windowMonths)
	starts := make([]time.Time, windowMonths)
	for i := range months {
		starts[i] = first.AddDate(0, i-windowMonths+1, 0)
		months[i] = starts[i].Format("2006-01")
	}
	u, err := s.store.Usage(ctx, subject, months)
	if err != nil {
		return Report{}, fmt.Errorf("access: usage: %w", err)
	}
	r := Report{WindowMonths: windowMonths, BL: u.BL, Endpoints: u.Endpoints}
	if len(r.Endpoints) > TopEndpoints {
		r.Endpoints = r.Endpoints[:TopEndpoints]
	}
	for i, p := range u.Periods {
		r.Periods = append(r.Periods, Period{Month: p.Month, Start: starts[i], End: starts[i].AddDate(0, 1, -1),
			Calls: p.Calls, Errors: p.Errors})
		r.TotalCalls += p.Calls
	}
	r.CurrentMonthCalls = u.Periods[len(u.Periods)-1].Calls
	if subject == state.Anonymous {
		r.UniqueClients = estimate(u.Sketches)
	}
	return r, nil
}

// estimate is the HyperLogLog cardinality of the union of sketches, with
// linear counting for small sets (Flajolet et al. 2007; Heule et al. 2013).
func estimate(sketches [][]byte) int64 {
	const m = 1 << hllP
	union := make([]byte, m)
	for _, s := range sketches {
		if len(s) != m {
			continue
		}
		for i, r := range s {
			union[i] = max(union[i], r)
		}
	}
	sum, zeros := 0.0, 0
	for _, r := range union {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	alpha := 0.7213 / (1 + 1.079/m)
	e := alpha * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(float64(m)/float64(zeros))
	}
	return int64(math.Round(e))
}
