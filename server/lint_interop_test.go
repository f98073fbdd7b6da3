package server

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestOpenAPILinters runs the two linters API tooling users meet on the
// published description: Spectral with its spectral:oas ruleset and Redocly
// with its recommended ruleset. Both must report no error (warnings are
// allowed and printed). The OGC API's own description at /ogc/api is
// linted the same way.
func TestOpenAPILinters(t *testing.T) {
	testtool.Node(t, "@stoplight/spectral-cli", "@redocly/cli")
	f := newFixture(t)
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: f.cat})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ruleset := filepath.Join(dir, ".spectral.yaml")
	os.WriteFile(ruleset, []byte("extends: [\"spectral:oas\"]\n"), 0o644)
	bin := filepath.Join(testtool.NodeModules(t), ".bin")
	type lint struct {
		name string
		args []string
	}
	var lints []lint
	for _, path := range []string{"/openapi.json", "/ogc/api"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		doc := filepath.Join(dir, strings.ReplaceAll(strings.Trim(path, "/"), "/", "-")+".json")
		os.WriteFile(doc, rec.Body.Bytes(), 0o644)
		lints = append(lints,
			lint{"spectral " + path, []string{filepath.Join(bin, "spectral"), "lint", "--ruleset", ruleset, "--fail-severity", "error", doc}},
			lint{"redocly " + path, []string{filepath.Join(bin, "redocly"), "lint", "--format", "stylish", doc}})
	}
	for _, tc := range lints {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(tc.args[0], tc.args[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s reports errors: %v\n%s", tc.name, err, out)
			}
			tool, _, _ := strings.Cut(tc.name, " ")
			if !strings.Contains(string(out), map[string]string{"spectral": "No results with a severity of 'error'", "redocly": "validated"}[tool]) {
				t.Fatalf("%s did not report on the document:\n%s", tc.name, out)
			}
			t.Logf("%s: no errors\n%s", tc.name, tail(string(out), 1500))
		})
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// TestMetricsPromtool checks /metrics with Prometheus's own linter
// (promtool check metrics) after traffic on several routes, and that the Go
// runtime and process metrics are there.
func TestMetricsPromtool(t *testing.T) {
	promtool := testtool.Require(t, "promtool", "apt-get install prometheus")
	f := rasterFix(t)
	for _, p := range []string{"/healthz", "/v1/datasets", "/v1/terrain/elevation?lat=50.1&lon=8.6", "/v1/nope", qmeshTileURL()} {
		f.srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", p, nil))
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{"go_goroutines ", "go_memstats_heap_alloc_bytes ", "process_start_time_seconds ", "go_info{",
		`svc_http_request_duration_seconds_bucket{route="GET /v1/datasets",le="0.001"}`, "svc_packs_published{", "svc_qmesh_tiles_built_total "} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
