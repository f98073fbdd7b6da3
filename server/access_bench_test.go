package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/state/sqlite"
)

// benchServer builds a server over an empty catalog, with the access layer
// when withAccess is set.
func benchServer(b *testing.B, withAccess bool) (*Server, *access.Service) {
	b.Helper()
	data := b.TempDir()
	cat := catalog.New(catalog.Options{Dir: data})
	deps := Deps{Catalog: cat}
	var acc *access.Service
	if withAccess {
		st, err := sqlite.Open(context.Background(), filepath.Join(data, "svc.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		if acc, err = access.New(context.Background(), access.Options{Store: st, KeylessLimit: 1 << 30}); err != nil {
			b.Fatal(err)
		}
		deps.Access = acc
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, deps)
	if err != nil {
		b.Fatal(err)
	}
	return srv, acc
}

// BenchmarkCheapRoute compares a cheap counted route without the access
// layer, keyless with it (10,000 client IPs), and with an API key.
func BenchmarkCheapRoute(b *testing.B) {
	for _, mode := range []string{"without-access", "keyless", "keyed"} {
		b.Run(mode, func(b *testing.B) {
			srv, acc := benchServer(b, mode != "without-access")
			key := ""
			if mode == "keyed" {
				c, err := acc.CreateKey(context.Background(), access.CreateRequest{CustomerName: "b", Tier: "pro"})
				if err != nil {
					b.Fatal(err)
				}
				key = c.Plaintext
			}
			reqs := make([]*http.Request, 10_000)
			for i := range reqs {
				reqs[i] = httptest.NewRequest("GET", "/v1/terrain/datasets", nil)
				reqs[i].RemoteAddr = "10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255) + ":4000"
				if key != "" {
					reqs[i].Header.Set("X-API-Key", key)
				}
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, reqs[n%len(reqs)])
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
				n++
				if acc != nil && n%10_000 == 0 {
					// The background flush runs once a second; at 10,000
					// requests/s that is one flush per 10,000 requests.
					if err := acc.Flush(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
