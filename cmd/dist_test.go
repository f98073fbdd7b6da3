package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestDist runs `make dist` under CI: static binaries for linux/amd64,
// linux/arm64, darwin/arm64 and windows/amd64 must build (file locking,
// renames, memory maps and signals differ per platform) and their SHA256SUMS
// must verify. Locally it is skipped (two minutes of cross builds on two
// cores); run `make dist` yourself.
func TestDist(t *testing.T) {
	if !testtool.CI() {
		t.Skip("skipping: cross builds run in CI (CI=true); locally run make dist")
	}
	root, ok := testtool.ModuleRoot()
	if !ok {
		t.Fatal("no module root")
	}
	cmd := exec.Command("make", "-s", "dist")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	for _, name := range []string{"svc-linux-amd64", "svc-linux-arm64", "svc-darwin-arm64", "svc-windows-amd64.exe"} {
		if st, err := os.Stat(filepath.Join(root, "dist", name)); err != nil || st.Size() < 1<<20 {
			t.Errorf("%s: %v", name, err)
		}
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = filepath.Join(root, "dist")
	if out, err := check.CombinedOutput(); err != nil || strings.Count(string(out), ": OK") != 4 {
		t.Errorf("sha256sum -c: %v\n%s", err, out)
	}
}
