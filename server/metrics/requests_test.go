package metrics

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-geodata/svc/pack"
)

// TestRequests counts from many goroutines, as the middleware does, and
// reads the exposition a Prometheus server scrapes: counters per route and
// status, cumulative buckets, and the published states.
func TestRequests(t *testing.T) {
	m := New()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				m.Observe("GET /v1/buildings", 200, 3*time.Millisecond)
				if i == 0 {
					m.Observe("GET /v1/buildings", 422, 20*time.Second)
				}
			}
		})
	}
	wg.Wait()
	var b strings.Builder
	m.Write(&b, map[pack.Product]int{pack.Products()[0]: 3}, 5)
	out := b.String()
	for _, want := range []string{
		`svc_http_requests_total{route="GET /v1/buildings",status="200"} 800` + "\n",
		`svc_http_requests_total{route="GET /v1/buildings",status="422"} 100` + "\n",
		`svc_http_request_duration_seconds_bucket{route="GET /v1/buildings",le="0.0025"} 0` + "\n",
		`svc_http_request_duration_seconds_bucket{route="GET /v1/buildings",le="0.005"} 800` + "\n",
		`svc_http_request_duration_seconds_bucket{route="GET /v1/buildings",le="10"} 800` + "\n",
		`svc_http_request_duration_seconds_bucket{route="GET /v1/buildings",le="+Inf"} 900` + "\n",
		`svc_http_request_duration_seconds_count{route="GET /v1/buildings"} 900` + "\n",
		`svc_published_bl{product="all"} 5` + "\n",
		`svc_published_bl{product="` + string(pack.Products()[0]) + `"} 3` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
}

// TestWriteRuntime writes the runtime metrics client_golang users look for.
func TestWriteRuntime(t *testing.T) {
	var b strings.Builder
	WriteRuntime(&b)
	for _, want := range []string{"\ngo_goroutines ", "\ngo_info{version=", "\nprocess_start_time_seconds "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("runtime metrics lack %q", want)
		}
	}
}

// BenchmarkObserve is the hot path: an existing series, many cores.
func BenchmarkObserve(b *testing.B) {
	m := New()
	m.Observe("GET /v1/terrain/datasets", 200, time.Millisecond)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Observe("GET /v1/terrain/datasets", 200, time.Millisecond)
		}
	})
}
