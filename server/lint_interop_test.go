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
// allowed and printed).
func TestOpenAPILinters(t *testing.T) {
	testtool.Node(t, "@stoplight/spectral-cli", "@redocly/cli")
	f := newFixture(t)
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: f.cat})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	dir := t.TempDir()
	doc := filepath.Join(dir, "openapi.json")
	os.WriteFile(doc, rec.Body.Bytes(), 0o644)
	ruleset := filepath.Join(dir, ".spectral.yaml")
	os.WriteFile(ruleset, []byte("extends: [\"spectral:oas\"]\n"), 0o644)
	bin := filepath.Join(testtool.NodeModules(t), ".bin")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"spectral", []string{filepath.Join(bin, "spectral"), "lint", "--ruleset", ruleset, "--fail-severity", "error", doc}},
		{"redocly", []string{filepath.Join(bin, "redocly"), "lint", "--format", "stylish", doc}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(tc.args[0], tc.args[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s reports errors: %v\n%s", tc.name, err, out)
			}
			if !strings.Contains(string(out), map[string]string{"spectral": "No results with a severity of 'error'", "redocly": "validated"}[tc.name]) {
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
