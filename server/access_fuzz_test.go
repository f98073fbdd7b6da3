package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func FuzzKeyHeader(f *testing.F) {
	fx := newAccFixture(f, accOpts{limit: 1 << 20})
	_, c := fx.admin(f, "POST", "/v1/admin/api-keys", `{"customer_name":"f","tier":"pro"}`)
	valid := c["plaintext_key"].(string)
	srv := fx.ts.Config.Handler
	for _, s := range []string{"", "svc_", valid, valid[:35] + "A", "svc_" + strings.Repeat("A", 32), "\x00\xff", strings.Repeat("k", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		req := httptest.NewRequest("GET", "/v1/terrain/datasets", nil)
		req.Header["X-Api-Key"] = []string{key}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		want := http.StatusUnauthorized
		if key == valid {
			want = http.StatusOK
		}
		if rec.Code != want {
			t.Fatalf("key %q: status %d, want %d: %s", key, rec.Code, want, rec.Body)
		}
		if want == 401 && (rec.Header().Get("Content-Type") != "application/problem+json" || len(key) >= 8 && strings.Contains(rec.Body.String(), key)) {
			t.Fatalf("401 for %q: %v %s", key, rec.Header(), rec.Body)
		}
	})
}
