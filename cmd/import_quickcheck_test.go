package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestImportLoD2QuickCheckCLI drives `svc import lod2` over 4 tiles: after
// the first snapshot two tiles get a building renamed in place (same
// size), one of them with its modification time put back by `touch -d`.
// The next import reads only the tile with a new time (its building
// renamed in the pack), takes the other as unchanged without reading it,
// as rsync does (the old name stays); --checksum reads every tile and
// catches the second edit.
func TestImportLoD2QuickCheckCLI(t *testing.T) {
	touch := testtool.Require(t, "touch", "apt-get install coreutils")
	dir := t.TempDir()
	data, tiles := filepath.Join(dir, "data"), filepath.Join(dir, "tiles")
	os.Mkdir(tiles, 0o755)
	for i := range 4 {
		var bs []demo.Building
		for j := range 50 {
			k := i*50 + j
			bs = append(bs, demo.Building{ID: fmt.Sprintf("DEHEDM%08d", k+1), X: 470000 + float64(k%20)*25, Y: 5550000 + float64(k/20)*25,
				Z0: 100, Length: 10, Depth: 8, Height: 6, PitchDeg: 35, Roof: demo.RoofKind(k % 3)})
		}
		var b bytes.Buffer
		if err := demo.WriteCityGML(&b, demo.CityGMLOptions{EPSG: 25832, Version: 2}, bs); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(tiles, fmt.Sprintf("t%d.gml", i)), b.Bytes(), 0o644)
	}
	imp := func(snap string, extra ...string) string {
		t.Helper()
		args := append([]string{"import", "lod2", "--data", data, "--bl", "he", "--snapshot", snap, "--license", "dl-de-by-2.0", "--workers", "2", tiles}, extra...)
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("import %s: %v\n%s", snap, err, out)
		}
		return out
	}
	has := func(snap, gmlid string) bool {
		t.Helper()
		return strings.TrimSpace(testtool.SQLRows(t, filepath.Join(data, "lod2", "he", snap, "lod2.sqlite"),
			`SELECT count(*) FROM buildings WHERE gmlid = '`+gmlid+`'`)) == "1"
	}
	imp("2026-07-20")
	// Tile 1: building 51 renamed, a new time. Tile 2: building 101
	// renamed, its time put back.
	for _, e := range []struct {
		file, from, to string
		keepTime       bool
	}{{"t1.gml", "DEHEDM00000051", "DEHEDX00000051", false}, {"t2.gml", "DEHEDM00000101", "DEHEDX00000101", true}} {
		p := filepath.Join(tiles, e.file)
		st, _ := os.Stat(p)
		raw, _ := os.ReadFile(p)
		os.WriteFile(p, bytes.ReplaceAll(raw, []byte(e.from), []byte(e.to)), 0o644)
		when := fmt.Sprintf("@%d.%09d", st.ModTime().Unix(), st.ModTime().Nanosecond())
		if !e.keepTime {
			when = fmt.Sprintf("@%d", st.ModTime().Unix()+3600)
		}
		if out, err := exec.Command(touch, "-d", when, p).CombinedOutput(); err != nil {
			t.Fatalf("touch: %v\n%s", err, out)
		}
	}
	out := imp("2026-08-01")
	if !strings.Contains(out, "reused 3 unchanged files of snapshot 2026-07-20") || !strings.Contains(out, "3 not read") || !strings.Contains(out, "parsed 1\n") {
		t.Errorf("quick check: want 3 tiles reused unread, 1 parsed:\n%s", out)
	}
	if !has("2026-08-01", "DEHEDX00000051") || !has("2026-08-01", "DEHEDM00000101") {
		t.Errorf("quick check: the tile with a new time must be imported again, the one with its time put back taken as it was")
	}
	out = imp("2026-09-01", "--checksum")
	if !strings.Contains(out, "0 not read") || !strings.Contains(out, "parsed 1\n") {
		t.Errorf("--checksum: want every tile read, the one edited with its time put back parsed:\n%s", out)
	}
	if !has("2026-09-01", "DEHEDX00000101") || has("2026-09-01", "DEHEDM00000101") {
		t.Errorf("--checksum: the edit of the tile with its time put back is missing")
	}
}
