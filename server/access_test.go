package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/state/sqlite"
)

// testClock is an injected, settable time source.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// accFixture is a server with the access layer over a fresh side database.
type accFixture struct {
	*fixture
	acc   *access.Service
	st    *sqlite.Store
	dbDir string
	clk   *testClock
	logs  *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

type accOpts struct {
	limit      int
	mintOff    bool
	noProxy    bool
	adminToken *string
}

func newAccFixture(t testing.TB, o accOpts) *accFixture {
	t.Helper()
	if o.limit == 0 {
		o.limit = 5
	}
	data := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(data, "svc.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &testClock{t: time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)}
	acc, err := access.New(context.Background(), access.Options{Store: st, Now: clk.Now, KeylessLimit: o.limit})
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Options{Dir: data})
	if _, err := cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	cfg := Config{BaseURL: "http://api.test", AdminToken: testToken, TrialMintingOff: o.mintOff,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	if o.noProxy {
		cfg.TrustedProxies = nil
	}
	if o.adminToken != nil {
		cfg.AdminToken = *o.adminToken
	}
	srv, err := New(cfg, Deps{Catalog: cat, Access: acc, Now: clk.Now,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Reload: func() (*catalog.View, error) { return cat.Reload(context.Background()) }})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &accFixture{fixture: &fixture{data: data, cat: cat, ts: ts}, acc: acc, st: st, dbDir: data, clk: clk, logs: logs}
}

// send makes a request with an optional body.
func (f *accFixture) send(t testing.TB, method, path, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func (f *accFixture) admin(t testing.TB, method, path, body string) (*http.Response, map[string]any) {
	t.Helper()
	resp, b := f.send(t, method, path, body, map[string]string{"X-Svc-Admin-Token": testToken, "Content-Type": "application/json"})
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp, m
}

func (f *accFixture) mint(t *testing.T, body string, hdr map[string]string) string {
	t.Helper()
	if hdr == nil {
		hdr = map[string]string{}
	}
	if body != "" {
		hdr["Content-Type"] = "application/json"
	}
	resp, b := f.send(t, "POST", "/v1/keys/trial", body, hdr)
	if resp.StatusCode != 200 {
		t.Fatalf("mint: %d %s", resp.StatusCode, b)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m["key"].(string)
}

func TestKeylessLimit(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{limit: 3})
	xff := map[string]string{"X-Forwarded-For": "198.51.100.7"}
	// 404, 405 and 200 all count; exempt routes never do.
	for i, tc := range []struct {
		method, path string
		status, rem  int
	}{
		{"GET", "/v1/terrain/datasets", 200, 2},
		{"GET", "/v1/datasets", 200, 2}, // exempt
		{"GET", "/v1/nope", 404, 1},
		{"GET", "/v1/attribution", 200, 1},       // exempt
		{"GET", "/v1/keys/trial/xyz", 404, 1},    // exempt
		{"POST", "/v1/terrain/datasets", 405, 0}, // counts
		{"GET", "/healthz", 200, -1},             // not /v1: no header
		{"GET", "/v1/terrain/datasets", 429, 0},
		{"GET", "/v1/datasets", 200, 0}, // exempt still works
	} {
		resp, body := f.send(t, tc.method, tc.path, "", xff)
		if resp.StatusCode != tc.status {
			t.Fatalf("%d %s %s: status %d, want %d: %s", i, tc.method, tc.path, resp.StatusCode, tc.status, body)
		}
		got := resp.Header.Get("X-Keyless-Remaining")
		if tc.rem < 0 && got != "" || tc.rem >= 0 && got != itoa(tc.rem) {
			t.Errorf("%d %s %s: X-Keyless-Remaining %q, want %d", i, tc.method, tc.path, got, tc.rem)
		}
		if tc.status == 429 {
			p := checkProblem(t, resp, body, 429, "keyless-daily-limit")
			// 12:00 UTC: 12 hours to midnight.
			if p["title"] != "Too Many Requests" || p["limit"] != float64(3) || p["retry_after"] != float64(43200) ||
				p["key_url"] != "http://api.test/docs#trial-keys" || p["docs_url"] != "http://api.test/docs" ||
				!strings.Contains(p["detail"].(string), "3 requests") {
				t.Errorf("429 problem = %v", p)
			}
			if resp.Header.Get("Retry-After") != "43200" {
				t.Errorf("Retry-After = %q", resp.Header.Get("Retry-After"))
			}
		}
	}
	// Another client has its own budget; a client-written entry left of the
	// proxy's is ignored.
	resp, _ := f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-Forwarded-For": "198.51.100.7, 203.0.113.9"})
	if resp.StatusCode != 200 || resp.Header.Get("X-Keyless-Remaining") != "2" {
		t.Errorf("other client: %d %q", resp.StatusCode, resp.Header.Get("X-Keyless-Remaining"))
	}
	// Rollover at 00:00 UTC.
	f.clk.Set(time.Date(2026, 5, 15, 0, 0, 0, 0, time.UTC))
	resp, _ = f.send(t, "GET", "/v1/terrain/datasets", "", xff)
	if resp.StatusCode != 200 || resp.Header.Get("X-Keyless-Remaining") != "2" {
		t.Errorf("after midnight: %d %q", resp.StatusCode, resp.Header.Get("X-Keyless-Remaining"))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestUntrustedPeerCannotBuyBudget(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{limit: 2, noProxy: true})
	for i, want := range []int{200, 200, 429} {
		// A fresh X-Forwarded-For each time: ignored, the peer is not a proxy.
		resp, _ := f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-Forwarded-For": "192.0.2." + itoa(i)})
		if resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
}

func TestKeyedRequests(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{limit: 1})
	trial := f.mint(t, "", nil)
	_, created := f.admin(t, "POST", "/v1/admin/api-keys", `{"customer_name":"ACME","tier":"pro"}`)
	pro := created["plaintext_key"].(string)
	_, quoted := f.admin(t, "POST", "/v1/admin/api-keys", `{"customer_name":"B","tier":"business","monthly_call_quota":10}`)
	bus := quoted["plaintext_key"].(string)
	for range 3 { // far past the keyless limit of 1
		for _, tc := range []struct {
			key, limit string
		}{{trial, "35000"}, {pro, ""}, {bus, "10"}} {
			resp, body := f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-API-Key": tc.key})
			if resp.StatusCode != 200 {
				t.Fatalf("keyed: %d %s", resp.StatusCode, body)
			}
			h := resp.Header
			if h.Get("X-Keyless-Remaining") != "" || h.Get("X-Svc-Quota-Used") == "" || h.Get("X-Svc-Quota-Limit") != tc.limit {
				t.Errorf("keyed headers: %v", h)
			}
			if _, ok := h["X-Svc-Quota-Limit"]; ok != (tc.limit != "") {
				t.Errorf("X-Svc-Quota-Limit presence wrong for limit %q", tc.limit)
			}
		}
	}
	resp, _ := f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-API-Key": pro})
	if resp.Header.Get("X-Svc-Quota-Used") != "4" {
		t.Errorf("quota used = %q, want 4", resp.Header.Get("X-Svc-Quota-Used"))
	}
	for _, tc := range []struct{ name, key, detail string }{
		{"malformed", "abc", "well-formed"},
		{"empty", "", "well-formed"},
		{"unknown", "svc_" + strings.Repeat("A", 32), "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", f.ts.URL+"/v1/terrain/datasets", nil)
			req.Header["X-Api-Key"] = []string{tc.key}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			p := checkProblem(t, resp, body, 401, "unauthorized")
			if !strings.Contains(p["detail"].(string), tc.detail) || resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 = %v %v", p, resp.Header)
			}
		})
	}
	// Revoked: 401 at once; expired: 401 after 7 days.
	f.admin(t, "DELETE", "/v1/admin/api-keys/"+created["api_key_id"].(string), "")
	resp, body := f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-API-Key": pro})
	if p := checkProblem(t, resp, body, 401, "unauthorized"); !strings.Contains(p["detail"].(string), "revoked") {
		t.Errorf("revoked: %v", p)
	}
	f.clk.Set(f.clk.Now().Add(access.TrialLifetime))
	resp, body = f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-API-Key": trial})
	if p := checkProblem(t, resp, body, 401, "unauthorized"); !strings.Contains(p["detail"].(string), "expired") {
		t.Errorf("expired: %v", p)
	}
}

func TestMintTrial(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{})
	ip := func(n string) map[string]string { return map[string]string{"X-Forwarded-For": "192.0.2." + n} }
	json := func(h map[string]string) map[string]string { h["Content-Type"] = "application/json"; return h }
	for _, tc := range []struct {
		name   string
		body   string
		hdr    map[string]string
		status int
		slug   string
	}{
		{"no body", "", ip("1"), 200, ""},
		{"json", `{"source":"newsletter","email":"me@example.org"}`, json(ip("2")), 200, ""},
		{"unknown fields", `{"emial":"x","foo":[1]}`, json(ip("3")), 200, ""},
		{"null members", `{"source":null,"email":null}`, json(ip("4")), 200, ""},
		{"bad source", `{"source":"Not A Slug"}`, json(ip("5")), 422, "validation-error"},
		{"bad email", `{"email":"nope"}`, json(ip("6")), 422, "validation-error"},
		{"wrong type", `{"email":5}`, json(ip("7")), 422, "validation-error"},
		{"not object", `[1]`, json(ip("7")), 422, "validation-error"},
		{"broken json", `{"email":`, json(ip("8")), 400, "bad-request"},
		{"text body", `source=x`, map[string]string{"Content-Type": "text/plain"}, 415, "unsupported-media"},
		{"huge body", `{"source":"` + strings.Repeat("a", 5000) + `"}`, json(ip("9")), 413, "payload-too-large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := f.st.ListKeys(context.Background())
			resp, body := f.send(t, "POST", "/v1/keys/trial", tc.body, tc.hdr)
			after, _ := f.st.ListKeys(context.Background())
			if tc.status != 200 {
				checkProblem(t, resp, body, tc.status, tc.slug)
				if len(after) != len(before) {
					t.Errorf("a key was minted on %d", tc.status)
				}
				return
			}
			if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
			}
			if strings.Contains(string(body), "example.org") {
				t.Errorf("e-mail echoed: %s", body)
			}
			var k struct {
				Key       string         `json:"key"`
				Tier      string         `json:"tier"`
				ExpiresAt string         `json:"expires_at"`
				Limits    map[string]int `json:"limits"`
				Scopes    []string       `json:"scopes"`
				DocsURL   string         `json:"docs_url"`
			}
			if err := jsonUnmarshal(body, &k); err != nil || !access.WellFormed(k.Key) || k.Tier != "trial" ||
				k.ExpiresAt != "2026-05-21T12:00:00Z" || k.Limits["requests_per_minute"] != 60 || k.Limits["requests_per_day"] != 5000 ||
				len(k.Scopes) != 1 || k.Scopes[0] != "read" || k.DocsURL != "http://api.test/docs" {
				t.Errorf("mint response %s (%v)", body, err)
			}
		})
	}
	// The e-mail shows as contact_email in the admin list.
	_, list := f.admin(t, "GET", "/v1/admin/api-keys", "")
	found := false
	for _, it := range list["api_keys"].([]any) {
		if m := it.(map[string]any); m["contact_email"] == "me@example.org" && m["tier"] == "trial" {
			found = true
		}
	}
	if !found {
		t.Errorf("trial key with e-mail not listed with contact_email: %v", list)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func TestMintLimitConcurrent(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{})
	var wg sync.WaitGroup
	codes := make(chan *http.Response, 12)
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := f.send(t, "POST", "/v1/keys/trial", "", map[string]string{"X-Forwarded-For": "192.0.2.50"})
			codes <- resp
		}()
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for resp := range codes {
		n[resp.StatusCode]++
		if resp.StatusCode == 429 && (resp.Header.Get("Retry-After") != "86400") {
			t.Errorf("Retry-After = %q", resp.Header.Get("Retry-After"))
		}
	}
	if n[200] != access.DefaultMintsPerClient || n[429] != 12-access.DefaultMintsPerClient {
		t.Errorf("status counts %v", n)
	}
	resp, body := f.send(t, "POST", "/v1/keys/trial", "", map[string]string{"X-Forwarded-For": "192.0.2.50"})
	p := checkProblem(t, resp, body, 429, "trial-mint-limit")
	if p["retry_after"] != float64(86400) {
		t.Errorf("retry_after = %v", p["retry_after"])
	}
}

func TestMintingOff(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{mintOff: true})
	resp, body := f.send(t, "POST", "/v1/keys/trial", "", nil)
	checkProblem(t, resp, body, 503, "service-unavailable")
	resp, _ = f.send(t, "OPTIONS", "/v1/keys/trial", "", map[string]string{"Origin": "https://x.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
	if resp.StatusCode != 204 || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight %d %v", resp.StatusCode, resp.Header)
	}
}

func TestTrialStatus(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{})
	key := f.mint(t, "", nil)
	for range 2 {
		f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-API-Key": key})
	}
	f.clk.Set(f.clk.Now().Add(time.Hour))
	resp, body := f.send(t, "GET", "/v1/keys/trial/"+key, "", nil)
	var st map[string]any
	json.Unmarshal(body, &st)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" || st["status"] != "active" ||
		st["key_prefix"] != key[:access.PrefixLen] || st["requests_today"] != float64(2) || st["requests_total"] != float64(2) ||
		st["seconds_remaining"] != float64(6*86400+23*3600) || st["created_at"] != "2026-05-14T12:00:00Z" {
		t.Errorf("status %d: %s", resp.StatusCode, body)
	}
	resp, body = f.send(t, "GET", "/v1/keys/trial/svc_"+strings.Repeat("x", 32), "", nil)
	checkProblem(t, resp, body, 404, "not-found")
	if strings.Contains(f.logs.String(), key) || strings.Contains(f.logs.String(), key[access.PrefixLen:]) {
		t.Errorf("plaintext key in logs:\n%s", f.logs.String())
	}
}

func TestAdminKeys(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{})
	resp, c := f.admin(t, "POST", "/v1/admin/api-keys", `{"customer_name":"ACME","tier":"pro","contact_email":"ops@acme.example","monthly_call_quota":1000,"notes":"n","payment_customer_id":"cus_1"}`)
	if resp.StatusCode != 201 || c["plaintext_key"] == nil || c["key_prefix"] != c["plaintext_key"].(string)[:access.PrefixLen] ||
		c["monthly_call_quota"] != float64(1000) || c["created_at"] != "2026-05-14T12:00:00Z" {
		t.Fatalf("create %d %v", resp.StatusCode, c)
	}
	plain, id := c["plaintext_key"].(string), c["api_key_id"].(string)
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"missing tier", `{"customer_name":"x"}`, 422},
		{"bad tier", `{"customer_name":"x","tier":"gold"}`, 422},
		{"unknown member", `{"customer_name":"x","tier":"pro","quota":5}`, 422},
		{"bad email", `{"customer_name":"x","tier":"pro","contact_email":"x"}`, 422},
		{"zero quota", `{"customer_name":"x","tier":"pro","monthly_call_quota":0}`, 422},
		{"broken", `{`, 400},
		{"trailing garbage", `{"customer_name":"x","tier":"pro"} garbage`, 400},
		{"member name in another case", `{"Customer_Name":"x","tier":"pro"}`, 422},
		{"second object", `{"customer_name":"x","tier":"pro"}{"customer_name":"y","tier":"pro"}`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := f.admin(t, "POST", "/v1/admin/api-keys", tc.body)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
	f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-API-Key": plain})
	f.send(t, "GET", "/v1/nope", "", map[string]string{"X-API-Key": plain})
	resp, u := f.admin(t, "GET", "/v1/admin/api-keys/"+id+"/usage?window_months=2", "")
	periods, _ := u["periods"].([]any)
	eps, _ := u["top_endpoints"].([]any)
	if resp.StatusCode != 200 || u["total_calls"] != float64(2) || u["current_month_calls"] != float64(2) || len(periods) != 2 ||
		u["monthly_call_quota"] != float64(1000) || len(eps) != 2 {
		t.Fatalf("usage %d %v", resp.StatusCode, u)
	}
	if p := periods[1].(map[string]any); p["month"] != "2026-05" || p["start"] != "2026-05-01" || p["end"] != "2026-05-31" || p["error_count"] != float64(1) {
		t.Errorf("period = %v", p)
	}
	r1, rv1 := f.admin(t, "DELETE", "/v1/admin/api-keys/"+id, "")
	f.clk.Set(f.clk.Now().Add(time.Minute))
	_, rv2 := f.admin(t, "DELETE", "/v1/admin/api-keys/"+id, "")
	if r1.StatusCode != 200 || rv1["revoked_at"] != "2026-05-14T12:00:00Z" || rv2["revoked_at"] != rv1["revoked_at"] || rv1["customer_name"] != "ACME" {
		t.Errorf("revoke %v then %v", rv1, rv2)
	}
	for _, p := range []string{"/v1/admin/api-keys/nope", "/v1/admin/api-keys/nope/usage"} {
		m := "GET"
		if !strings.HasSuffix(p, "usage") {
			m = "DELETE"
		}
		if resp, _ := f.admin(t, m, p, ""); resp.StatusCode != 404 {
			t.Errorf("%s %s: %d", m, p, resp.StatusCode)
		}
	}
	_, list := f.admin(t, "GET", "/v1/admin/api-keys", "")
	item := list["api_keys"].([]any)[0].(map[string]any)
	if list["count"] != float64(1) || item["revoked_at"] == nil || item["contact_email"] != "ops@acme.example" || item["last_used_at"] == nil {
		t.Errorf("list = %v", list)
	}
	// The plaintext is nowhere but in the create response.
	lb, _ := json.Marshal(list)
	if err := f.acc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	db, _ := os.ReadFile(filepath.Join(f.dbDir, "svc.db"))
	wal, _ := os.ReadFile(filepath.Join(f.dbDir, "svc.db-wal"))
	for where, b := range map[string][]byte{"listing": lb, "database": db, "wal": wal, "logs": []byte(f.logs.String())} {
		if bytes.Contains(b, []byte(plain)) || bytes.Contains(b, []byte(plain[access.PrefixLen:])) {
			t.Errorf("plaintext key found in %s", where)
		}
	}
}

// TestAuditTrail: admin changes name their request, a trial mint its
// client (never the address), pages follow next_after, bad paging is a problem.
func TestAuditTrail(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{})
	resp, c := f.admin(t, "POST", "/v1/admin/api-keys", `{"customer_name":"ACME","tier":"pro"}`)
	if resp.StatusCode != 201 {
		t.Fatalf("create %d", resp.StatusCode)
	}
	createReq := resp.Header.Get("X-Request-Id")
	f.mint(t, `{"source":"fair"}`, map[string]string{"X-Forwarded-For": "198.51.100.7"})
	f.admin(t, "DELETE", "/v1/admin/api-keys/"+c["api_key_id"].(string), "")
	resp, a := f.admin(t, "GET", "/v1/admin/audit", "")
	ev, _ := a["events"].([]any)
	if resp.StatusCode != 200 || a["count"] != float64(3) || len(ev) != 3 || a["next_after"] != nil {
		t.Fatalf("audit %d %v", resp.StatusCode, a)
	}
	e0, e1, e2 := ev[0].(map[string]any), ev[1].(map[string]any), ev[2].(map[string]any)
	if e0["action"] != "key.create" || e0["actor"] != "admin-api request "+createReq || e0["api_key_id"] != c["api_key_id"] ||
		e0["at"] != "2026-05-14T12:00:00Z" {
		t.Errorf("create event = %v", e0)
	}
	if e1["action"] != "key.mint" || !strings.HasPrefix(e1["actor"].(string), "client:") || strings.Contains(e1["actor"].(string), "198.51") ||
		!strings.Contains(e1["detail"].(string), `source="fair"`) {
		t.Errorf("mint event = %v", e1)
	}
	if e2["action"] != "key.revoke" || !strings.HasPrefix(e2["actor"].(string), "admin-api request ") {
		t.Errorf("revoke event = %v", e2)
	}
	_, p1 := f.admin(t, "GET", "/v1/admin/audit?limit=2", "")
	_, p2 := f.admin(t, "GET", "/v1/admin/audit?limit=2&after="+fmt.Sprint(p1["next_after"]), "")
	if p1["count"] != float64(2) || p1["next_after"] != e1["seq"] || p2["count"] != float64(1) || p2["next_after"] != nil {
		t.Errorf("pages: %v then %v", p1, p2)
	}
	for q, want := range map[string]int{"?limit=0": 422, "?limit=1001": 422, "?after=-1": 422, "?after=x": 400} {
		if resp, _ := f.admin(t, "GET", "/v1/admin/audit"+q, ""); resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", q, resp.StatusCode, want)
		}
	}
	if resp, _ := f.send(t, "GET", "/v1/admin/audit", "", nil); resp.StatusCode != 401 {
		t.Errorf("without token: %d", resp.StatusCode)
	}
}

func TestAnonymousUsageAndHealth(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{limit: 2})
	for i := range 4 {
		f.send(t, "GET", "/v1/terrain/datasets", "", map[string]string{"X-Forwarded-For": "192.0.2." + itoa(i%2)})
	}
	f.send(t, "GET", "/v1/missing", "", map[string]string{"X-Forwarded-For": "192.0.2.3"})
	resp, u := f.admin(t, "GET", "/v1/admin/usage/anonymous?window_months=1", "")
	if resp.StatusCode != 200 || u["total_calls"] != float64(5) || u["unique_ips"] != float64(3) || u["window_months"] != float64(1) {
		t.Fatalf("anonymous %d %v", resp.StatusCode, u)
	}
	eps := u["top_endpoints"].([]any)
	if top := eps[0].(map[string]any); top["endpoint_pattern"] != "GET /v1/terrain/datasets" || top["call_count"] != float64(4) || top["error_count"] != float64(0) {
		t.Errorf("top endpoint = %v", top)
	}
	for q, want := range map[string]int{"?window_months=0": 422, "?window_months=x": 400, "?window_months=24": 200} {
		if resp, _ := f.admin(t, "GET", "/v1/admin/usage/anonymous"+q, ""); resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", q, resp.StatusCode, want)
		}
	}
	_, h := f.admin(t, "GET", "/v1/admin/health", "")
	probe := h["probes"].([]any)[0].(map[string]any)
	if !strings.HasPrefix(probe["name"].(string), "side database") || probe["status"] != "ok" {
		t.Errorf("health probes = %v", h["probes"])
	}
	f.st.Close()
	_, h = f.admin(t, "GET", "/v1/admin/health", "")
	if h["status"] != "degraded" {
		t.Errorf("health with closed database = %v", h)
	}
}

func TestAdminNoToken(t *testing.T) {
	t.Parallel()
	empty := ""
	f := newAccFixture(t, accOpts{adminToken: &empty})
	resp, body := f.send(t, "GET", "/v1/admin/api-keys", "", nil)
	checkProblem(t, resp, body, 403, "forbidden")
	g := newAccFixture(t, accOpts{})
	resp, body = g.send(t, "GET", "/v1/admin/api-keys", "", map[string]string{"Authorization": "Bearer wrong"})
	checkProblem(t, resp, body, 401, "unauthorized")
	resp, _ = g.send(t, "GET", "/v1/admin/api-keys", "", map[string]string{"Authorization": "Bearer " + testToken})
	if resp.StatusCode != 200 {
		t.Errorf("bearer token: %d", resp.StatusCode)
	}
}
