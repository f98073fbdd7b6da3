// Package testtool lets interop tests find the independent tools (GDAL, PROJ,
// spatialite, gltf-validator, draco_decoder, the 3D Tiles validator) they
// cross-check against, and the shared sample files next to the repository.
//
// Locally a missing tool skips the test with a message naming what to
// install; under CI (CI=true) a missing tool fails the test, so a green CI
// run always means the cross-check ran. The same holds for ../shared: a fresh
// clone without it skips the real-sample tests, CI (which has it) runs them.
package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CI reports whether the tests run under CI (CI=true), where every interop
// tool must be present.
func CI() bool { return os.Getenv("CI") == "true" }

// missing skips the test locally and fails it under CI.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if CI() {
		t.Fatalf("CI=true requires it: "+format, args...)
	}
	t.Skipf("skipping: "+format, args...)
}

// Require returns the absolute path of the executable name, looked up in PATH
// and then in the project's node_modules/.bin. hint names what provides it
// (for example "apt-get install gdal-bin").
func Require(t testing.TB, name, hint string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if root, ok := ModuleRoot(); ok {
		p := filepath.Join(root, "node_modules", ".bin", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	missing(t, "interop tool %q not found: %s", name, hint)
	return ""
}

// Node returns the path of node after checking that every npm package in
// modules is installed in the project's node_modules (npm ci). A machine with
// node but without the modules skips (locally) instead of failing with the
// module loader's error.
func Node(t testing.TB, modules ...string) string {
	t.Helper()
	node := Require(t, "node", "apt-get install nodejs npm; npm ci")
	root, ok := ModuleRoot()
	if !ok {
		missing(t, "module root not found from the working directory")
	}
	var absent []string
	for _, m := range modules {
		if _, err := os.Stat(filepath.Join(root, "node_modules", m, "package.json")); err != nil {
			absent = append(absent, m)
		}
	}
	if len(absent) > 0 {
		missing(t, "npm packages %s not installed: run `npm ci` (or `make interop-tools`) in %s", strings.Join(absent, ", "), root)
	}
	return node
}

// NodeModules returns the project's node_modules directory (for scripts that
// resolve packages by path).
func NodeModules(t testing.TB) string {
	t.Helper()
	root, ok := ModuleRoot()
	if !ok {
		t.Fatal("module root not found from the working directory")
	}
	return filepath.Join(root, "node_modules")
}

// Shared returns the absolute path of rel inside the shared folder next to
// the repository (../shared: samples, tools), skipping locally when it is not
// there (a clone on its own) and failing under CI.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	root, ok := ModuleRoot()
	if !ok {
		missing(t, "module root not found from the working directory")
	}
	p := filepath.Join(filepath.Dir(root), "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, "%s not available (the shared samples and tools live in ../shared next to the repository): %v", rel, err)
	}
	return p
}

// TilesValidator returns the `validate` script of the official CesiumGS 3D
// Tiles validator shipped in ../shared/tools/3d-tiles-validator, after
// checking that its npm dependencies are installed (its `install` script).
func TilesValidator(t testing.TB) string {
	t.Helper()
	Require(t, "node", "apt-get install nodejs npm")
	dir := Shared(t, "tools/3d-tiles-validator")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".installed")); err != nil {
		missing(t, "3d-tiles-validator dependencies not installed: run %s", filepath.Join(dir, "install"))
	}
	return filepath.Join(dir, "validate")
}

// ModuleRoot walks up from the working directory to the directory holding go.mod.
func ModuleRoot() (string, bool) {
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

// File returns path when that file exists (a data file an interop test
// reads, such as a PROJ grid); hint names what provides it.
func File(t testing.TB, path, hint string) string {
	t.Helper()
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		missing(t, "file %s not found: %s", path, hint)
	}
	return path
}

// PythonGDAL returns a python interpreter that imports GDAL's bindings
// (Debian's python3-gdal lives in the system python, which a pyenv or venv
// python3 earlier in PATH does not see).
func PythonGDAL(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "from osgeo import gdal").Run() == nil {
			return py
		}
	}
	missing(t, "python3 with GDAL bindings not found: apt-get install python3-gdal")
	return ""
}

// PythonQGIS returns a python interpreter that imports QGIS's bindings
// (PyQGIS; Debian's python3-qgis, with the qgis package for its providers).
func PythonQGIS(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import qgis.core").Run() == nil {
			return py
		}
	}
	missing(t, "python3 with QGIS bindings not found: apt-get install --no-install-recommends qgis python3-qgis")
	return ""
}

// PMTilesCLI returns the protomaps `pmtiles` command line (installed by
// `go install github.com/protomaps/go-pmtiles@v1.31.2` as go-pmtiles, or a
// release binary named pmtiles), looked up in PATH and then in Go's bin
// directory (GOBIN, else GOPATH/bin), which a fresh shell may not have in
// PATH.
func PMTilesCLI(t testing.TB) string {
	t.Helper()
	dirs := []string{os.Getenv("GOBIN")}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, p := range filepath.SplitList(strings.TrimSpace(string(out))) {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	for _, name := range []string{"go-pmtiles", "pmtiles"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, d := range dirs {
			if p := filepath.Join(d, name); d != "" {
				if st, err := os.Stat(p); err == nil && !st.IsDir() {
					return p
				}
			}
		}
	}
	missing(t, "the pmtiles CLI not found: go install github.com/protomaps/go-pmtiles@v1.31.2 (or make interop-tools)")
	return ""
}
