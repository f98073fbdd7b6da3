// Package testtool lets interop tests find the independent tools (GDAL, PROJ,
// spatialite, gltf-validator, draco_decoder) they cross-check against.
//
// Locally a missing tool skips the test with a message naming the package to
// install; under CI (CI=true) a missing tool fails the test, so a green CI run
// always means the cross-check ran.
package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Require returns the absolute path of the executable name, looked up in PATH
// and then in the project's node_modules/.bin. hint names what provides it
// (for example "apt-get install gdal-bin").
func Require(t testing.TB, name, hint string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if root, ok := moduleRoot(); ok {
		p := filepath.Join(root, "node_modules", ".bin", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("interop tool %q not found (CI=true requires it): %s", name, hint)
	}
	t.Skipf("interop tool %q not found, skipping: %s", name, hint)
	return ""
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
