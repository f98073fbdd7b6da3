package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestPublishedLimitIsServed: for every operation of /openapi.json, what
// the document and /docs say about the keyless limit is what a keyless
// client meets. An operation is counted when two keyless requests from one
// client IP see X-Keyless-Remaining go down; then, and only then, the
// document says x-keyless-limit: true, lists a 429 of type keyless-daily-limit,
// and /docs shows the "keyless limit" badge. (The counted /ogc and
// /opentopodata operations were published as not counted.)
func TestPublishedLimitIsServed(t *testing.T) {
	f := newAccFixture(t, accOpts{limit: 1000})
	resp, body := f.send(t, "GET", "/openapi.json", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("openapi.json: %d", resp.StatusCode)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OpID      string                     `json:"operationId"`
			Limit     *bool                      `json:"x-keyless-limit"`
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	resp, page := f.send(t, "GET", "/docs", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("docs: %d", resp.StatusCode)
	}
	// The head of each operation's block on /docs: method, path, badges.
	badges := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?s)<div class="op" id="([^"]+)"><div>(.*?)</div>`).FindAllSubmatch(page, -1) {
		badges[string(m[1])] = strings.Contains(string(m[2]), ">keyless limit<")
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	var paths []string
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	ip, ops, counted := 0, 0, 0
	for _, p := range paths {
		for method, op := range doc.Paths[p] {
			ip++
			client := map[string]string{"X-Forwarded-For": fmt.Sprintf("10.23.%d.%d", ip>>8, ip&255)}
			u := param.ReplaceAllString(p, "x")
			remaining := func() (int, bool) {
				resp, _ := f.send(t, strings.ToUpper(method), u, "", client)
				n, err := strconv.Atoi(resp.Header.Get("X-Keyless-Remaining"))
				return n, err == nil
			}
			a, okA := remaining()
			b, okB := remaining()
			served := okA && okB && b < a
			if op.Limit == nil {
				t.Errorf("%s %s: no x-keyless-limit", method, p)
				continue
			}
			var r429 struct {
				Types []string `json:"x-problem-types"`
			}
			_ = json.Unmarshal(op.Responses["429"], &r429)
			has429 := slices.ContainsFunc(r429.Types, func(s string) bool { return strings.HasSuffix(s, "/keyless-daily-limit") })
			shown, onDocs := badges[op.OpID]
			if !onDocs {
				t.Errorf("%s %s: operation %s not on /docs", method, p, op.OpID)
			}
			if *op.Limit != served || has429 != served || shown != served {
				t.Errorf("%s %s: counted %v (X-Keyless-Remaining %d then %d), but x-keyless-limit %v, 429 keyless-daily-limit listed %v, /docs badge %v",
					method, p, served, a, b, *op.Limit, has429, shown)
			}
			ops++
			if served {
				counted++
			}
		}
	}
	if ops < 40 || counted < 10 {
		t.Errorf("%d operations, %d counted: the walk missed routes", ops, counted)
	}
}

// TestUnmatchedPathPolicy: a request no route matches is answered under
// the policy of its path's surface (pathSurfaces): counted below /v1 and
// /ogc, free below /v1/keys and outside the API, in opentopodata's form
// below /opentopodata.
func TestUnmatchedPathPolicy(t *testing.T) {
	f := newAccFixture(t, accOpts{limit: 1000})
	for i, tc := range []struct {
		method, path string
		counted      bool
		access       bool // X-Keyless-Remaining shown
		otdForm      bool // the detail also in "error"
	}{
		{"GET", "/v1/nope", true, true, false},
		{"DELETE", "/v1/buildings", true, true, false},
		{"GET", "/ogc/nope", true, true, false},
		{"GET", "/opentopodata/nope", true, true, true},
		{"DELETE", "/opentopodata/v1/x", true, true, true},
		{"GET", "/v1/keys/nope", false, true, false},
		{"GET", "/v1/admin/nope", false, true, false},
		{"GET", "/nope", false, false, false},
		{"POST", "/healthz", false, false, false},
	} {
		client := map[string]string{"X-Forwarded-For": fmt.Sprintf("10.24.0.%d", i+1)}
		r1, _ := f.send(t, tc.method, tc.path, "", client)
		r2, body := f.send(t, tc.method, tc.path, "", client)
		a, errA := strconv.Atoi(r1.Header.Get("X-Keyless-Remaining"))
		b, errB := strconv.Atoi(r2.Header.Get("X-Keyless-Remaining"))
		var p map[string]any
		_ = json.Unmarshal(body, &p)
		_, otd := p["error"]
		if r2.StatusCode != 404 && r2.StatusCode != 405 || (errA == nil && errB == nil) != tc.access ||
			(tc.access && (b < a) != tc.counted) || otd != tc.otdForm || r2.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: %d, X-Keyless-Remaining %q then %q, body %s", tc.method, tc.path, r2.StatusCode,
				r1.Header.Get("X-Keyless-Remaining"), r2.Header.Get("X-Keyless-Remaining"), body)
		}
	}
}
