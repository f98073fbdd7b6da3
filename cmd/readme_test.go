package cmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestReadmeTryIt runs every shell command of the README's "Try it"
// section, as printed, against `svc serve` on the demo pack (the address
// rewritten to the test server's, curl told to fail on HTTP errors), so the
// README cannot promise a request that does not work.
func TestReadmeTryIt(t *testing.T) {
	root, ok := modRoot()
	if !ok {
		t.Skip("skipping: README.md not found")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	i := strings.Index(section, "<!-- try-it")
	if i < 0 {
		t.Fatal("README has no try-it section")
	}
	section = section[i:]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) < 2 {
		t.Fatalf("%d sh blocks in the try-it section", len(blocks))
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("skipping: bash not found")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("skipping: curl not found: apt-get install curl")
	}
	data := demoData(t)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, "serve", "--data", data, "--addr", addr, "--admin-token", "change-me", "--log-level", "warn", "--quiet")
		done <- err
	}()
	defer func() { cancel(); <-done }()
	waitUp(t, "http://"+addr+"/healthz")
	dir := t.TempDir()
	n := 0
	for i, b := range blocks {
		script := strings.ReplaceAll(b[1], "localhost:8080", addr)
		script = strings.ReplaceAll(script, "curl -s ", "curl -sSf ")
		// A block for GDAL's tools needs them: locally a missing GDAL skips
		// that block alone, under CI it fails.
		t.Run(fmt.Sprintf("block%d", i+1), func(t *testing.T) {
			for _, tool := range []string{"ogrinfo", "ogr2ogr", "gdalinfo", "gdallocationinfo"} {
				if regexp.MustCompile(`(?m)^\s*` + tool + `\b`).MatchString(script) {
					testtool.Require(t, tool, "apt-get install gdal-bin")
				}
			}
			n += strings.Count(script, "curl ")
			cmd := exec.Command(bash, "-euo", "pipefail", "-c", script)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("README commands failed: %v\n--- script\n%s\n--- output\n%s", err, script, tail(string(out), 3000))
			}
		})
	}
	glb, err := os.ReadFile(filepath.Join(dir, "buildings.glb"))
	if err != nil || len(glb) < 12 || string(glb[:4]) != "glTF" {
		t.Errorf("buildings.glb: %v, %d bytes", err, len(glb))
	}
	t.Logf("%d README curl commands answered", n)
}

func modRoot() (string, bool) {
	dir, err := os.Getwd()
	for err == nil {
		if _, e := os.Stat(filepath.Join(dir, "go.mod")); e == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}
