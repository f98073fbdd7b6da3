// Package metrics counts HTTP requests by route pattern and status, with a
// latency histogram per route, and writes them, the Go runtime's and the
// process's metrics in the Prometheus text exposition format 0.0.4. The
// hot path (Observe) touches only atomics once a series exists.
package metrics

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-geodata/svc/pack"
)

// latencyBuckets are the upper bounds (seconds) of the request latency
// histogram: fine below 10 ms, where most API answers land.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10}

// Requests counts requests by route pattern and status and keeps a latency
// histogram per route; the hot path touches only atomics after the first
// request of a series. Create it with New; it is safe for concurrent use.
type Requests struct {
	mu     sync.Mutex // serialises adding series
	series atomic.Pointer[metricSeries]
}

// metricSeries is replaced, never changed, when a series is added: the hot
// path reads it without a lock (a read lock's shared counter is written by
// every core on every request).
type metricSeries struct {
	counts map[seriesKey]*atomic.Int64
	hists  map[string]*histogram
}

type seriesKey struct {
	route  string
	status int
}

type histogram struct {
	buckets []atomic.Int64 // cumulative on export, per-bucket here
	count   atomic.Int64
	sumNs   atomic.Int64
}

// New returns an empty request counter.
func New() *Requests {
	m := &Requests{}
	m.series.Store(&metricSeries{counts: map[seriesKey]*atomic.Int64{}, hists: map[string]*histogram{}})
	return m
}

// Observe counts one request of the route pattern answered with status
// after d.
func (m *Requests) Observe(route string, status int, d time.Duration) {
	k := seriesKey{route, status}
	s := m.series.Load()
	c, h := s.counts[k], s.hists[route]
	if c == nil || h == nil {
		m.mu.Lock()
		s = m.series.Load()
		next := &metricSeries{counts: make(map[seriesKey]*atomic.Int64, len(s.counts)+1), hists: make(map[string]*histogram, len(s.hists)+1)}
		for kk, v := range s.counts {
			next.counts[kk] = v
		}
		for kk, v := range s.hists {
			next.hists[kk] = v
		}
		if c = next.counts[k]; c == nil {
			c = new(atomic.Int64)
			next.counts[k] = c
		}
		if h = next.hists[route]; h == nil {
			h = &histogram{buckets: make([]atomic.Int64, len(latencyBuckets))}
			next.hists[route] = h
		}
		m.series.Store(next)
		m.mu.Unlock()
	}
	c.Add(1)
	sec := d.Seconds()
	for i, ub := range latencyBuckets {
		if sec <= ub {
			h.buckets[i].Add(1)
			break
		}
	}
	h.count.Add(1)
	h.sumNs.Add(int64(d))
}

// Write renders the request counters and histograms and the published
// federal states (per product, and totalBL of any product) in the
// Prometheus text exposition format 0.0.4.
func (m *Requests) Write(w io.Writer, publishedBL map[pack.Product]int, totalBL int) {
	type count struct {
		k seriesKey
		v int64
	}
	type hist struct {
		route string
		h     *histogram
	}
	ser := m.series.Load()
	counts := make([]count, 0, len(ser.counts))
	for k, c := range ser.counts {
		counts = append(counts, count{k, c.Load()})
	}
	hists := make([]hist, 0, len(ser.hists))
	for r, h := range ser.hists {
		hists = append(hists, hist{r, h})
	}
	sort.Slice(counts, func(i, j int) bool {
		if counts[i].k.route != counts[j].k.route {
			return counts[i].k.route < counts[j].k.route
		}
		return counts[i].k.status < counts[j].k.status
	})
	sort.Slice(hists, func(i, j int) bool { return hists[i].route < hists[j].route })

	fmt.Fprintln(w, "# HELP svc_http_requests_total HTTP requests by route pattern and status code.")
	fmt.Fprintln(w, "# TYPE svc_http_requests_total counter")
	for _, c := range counts {
		fmt.Fprintf(w, "svc_http_requests_total{route=%s,status=\"%d\"} %d\n", strconv.Quote(c.k.route), c.k.status, c.v)
	}
	fmt.Fprintln(w, "# HELP svc_http_request_duration_seconds Request latency by route pattern.")
	fmt.Fprintln(w, "# TYPE svc_http_request_duration_seconds histogram")
	for _, e := range hists {
		h := e.h
		q := strconv.Quote(e.route)
		var cum int64
		for i, ub := range latencyBuckets {
			cum += h.buckets[i].Load()
			fmt.Fprintf(w, "svc_http_request_duration_seconds_bucket{route=%s,le=\"%g\"} %d\n", q, ub, cum)
		}
		n := h.count.Load()
		fmt.Fprintf(w, "svc_http_request_duration_seconds_bucket{route=%s,le=\"+Inf\"} %d\n", q, n)
		fmt.Fprintf(w, "svc_http_request_duration_seconds_sum{route=%s} %g\n", q, float64(h.sumNs.Load())/1e9)
		fmt.Fprintf(w, "svc_http_request_duration_seconds_count{route=%s} %d\n", q, n)
	}
	fmt.Fprintln(w, "# HELP svc_published_bl Federal states with at least one published pack of the product (\"all\": of any product).")
	fmt.Fprintln(w, "# TYPE svc_published_bl gauge")
	fmt.Fprintf(w, "svc_published_bl{product=\"all\"} %d\n", totalBL)
	for _, p := range pack.Products() {
		fmt.Fprintf(w, "svc_published_bl{product=%q} %d\n", string(p), publishedBL[p])
	}
}
