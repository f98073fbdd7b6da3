package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/server/httpapi"
)

func FuzzMintBody(f *testing.F) {
	for _, s := range []string{"", "null", "{}", `{"source":"a","email":"a@b.c"}`, `{"email":5}`, `[`, `"x"`, `{"source":"x"} {}`,
		`{"SOURCE":"x"}`, `{"source":"a","Source":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMintBody(b)
		if err != nil {
			he := httpapi.ToHTTPError(err)
			if he.Status != 400 && he.Status != 422 {
				t.Fatalf("parseMintBody error %v", err)
			}
			return
		}
		if m.Source != nil && m.Email != nil && len(*m.Source)+len(*m.Email) > len(b)*6 {
			t.Fatalf("members longer than the input")
		}
		// Only a member named exactly source or email fills them.
		var members map[string]json.RawMessage
		_ = json.Unmarshal(b, &members)
		for name, got := range map[string]*string{"source": m.Source, "email": m.Email} {
			var want *string
			if raw, ok := members[name]; ok {
				_ = json.Unmarshal(raw, &want)
			}
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("%q: %s is %v, the body's exact member %v", b, name, got, want)
			}
		}
	})
}

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
