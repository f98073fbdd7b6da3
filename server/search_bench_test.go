package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// discardWriter is a ResponseWriter that keeps the headers and counts the
// body, as a connection's buffered writer does: the benchmark then measures
// what the handler chain allocates, not a recorder growing a copy of the
// body (httptest.ResponseRecorder).
type discardWriter struct {
	h    http.Header
	code int
	n    int
	head []byte // the first bytes of the body, to check the answer
}

func (w *discardWriter) Header() http.Header  { return w.h }
func (w *discardWriter) WriteHeader(code int) { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) {
	if len(w.head) < 256 {
		w.head = append(w.head, p[:min(len(p), 256-len(w.head))]...)
	}
	w.n += len(p)
	return len(p), nil
}

// BenchmarkSearchPage runs the bbox search of issue 24 point 5 through the
// whole handler chain over the demo pack: the 1 km² box of scripts/load.sh
// with limit 100, and a page of limit 1000 (the route's maximum). Compare
// B/op and allocs/op: they decide how often the garbage collector runs
// under load.
func BenchmarkSearchPage(b *testing.B) {
	ts, err := demoServer()
	if err != nil {
		b.Fatal(err)
	}
	h := ts.Config.Handler
	for _, tc := range []struct{ name, query, count string }{
		{"limit100", "bbox=8.6700,50.1040,8.6840,50.1130&limit=100", `"count":100,`},
		{"limit1000", "bbox=8.6700,50.1040,8.6840,50.1130&limit=1000", `"count":1000,`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/v1/buildings?"+tc.query, nil)
			head := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				w := &discardWriter{h: http.Header{}, head: head[:0]}
				h.ServeHTTP(w, req)
				if w.code != 0 && w.code != 200 || !bytes.Contains(w.head, []byte(tc.count)) {
					b.Fatalf("%d: %s", w.code, w.head)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "searches/s")
		})
	}
}
