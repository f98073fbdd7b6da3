package server

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestOpenAPIGolden keeps the published contract in testdata/openapi.json
// (shared with clients and reviewers at the top of the repository), so
// every change to a route, parameter or schema shows up in review. Run
// `go test ./server -run OpenAPIGolden -update` after an intended change.
func TestOpenAPIGolden(t *testing.T) {
	srv, err := New(Config{BaseURL: "https://api.example.org"}, Deps{Catalog: catalog.New(catalog.Options{Dir: t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	got := append(srv.openapi, '\n')
	path := filepath.Join("..", "testdata", "openapi.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("openapi.json differs from testdata at line %d:\n got: %s\nwant: %s\n(run with -update after an intended change)", i+1, g, w)
			}
		}
	}
}
