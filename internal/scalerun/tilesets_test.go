package scalerun

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTilesetsRoots counts a hierarchical product (external tilesets in a
// subdirectory that sorts before the root's tileset.json) once, with every
// content file below its root.
func TestTilesetsRoots(t *testing.T) {
	data := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(data, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("buildings/nrw/2026-01-01/tileset.json", `{"root":{}}`)
	write("buildings/nrw/2026-01-01/tiles/0/tileset.json", `{}`)
	write("buildings/nrw/2026-01-01/tiles/0/a.glb", "x")
	write("buildings/nrw/2026-01-01/tiles/b.glb", "x")
	write("veg/nrw/2026-01-01/trees/tileset.json", `{}`)
	write("veg/nrw/2026-01-01/trees/t.glb", "x")
	write("veg/nrw/2026-01-01/cdsm/x.tif", "x")
	got := tilesets(data)
	want := []TSInfo{{"buildings/nrw/2026-01-01", 11, 2}, {"veg/nrw/2026-01-01/trees", 2, 1}}
	if len(got) != len(want) {
		t.Fatalf("tilesets = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tilesets[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestSummary picks the command's result line.
func TestSummary(t *testing.T) {
	out := "veg/nrw/2026-01-01 cdsm: 17 tiles\nveg/nrw/2026-01-01 trees: 17 tiles\nbuilt veg/nrw/2026-01-01 in 23.6s\n"
	if got := summary(out); got != "built veg/nrw/2026-01-01 in 23.6s" {
		t.Errorf("summary = %q", got)
	}
}
