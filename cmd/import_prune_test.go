package cmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/pack"
)

// TestInterruptedImportListedAndPruned interrupts a real DGM import after
// its first tile: `svc verify` lists its work directory with size and age;
// `svc import prune` keeps it while it is recent, and removes it once it
// has not been written for longer than --older-than, leaving the
// published snapshot alone.
func TestInterruptedImportListedAndPruned(t *testing.T) {
	dir := t.TempDir()
	src, data := filepath.Join(dir, "src"), filepath.Join(dir, "data")
	os.Mkdir(src, 0o755)
	paths := writeDGMTiles(t, src, 3)
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0", Workers: 1}
	if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, paths[:1]); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.Snapshot = "2027-07-20"
	c.Progress = func(p importer.Progress) {
		if p.Tiles >= 1 {
			cancel()
		}
	}
	if _, err := importer.DGM(ctx, c, importer.DGMOptions{}, paths); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted import: %v", err)
	}
	work := filepath.Join(data, "terrain", "he", pack.ResumePrefix+"2027-07-20")

	out, err := runCLI(t, "verify", "--data", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^INTERRUPTED terrain/he/2027-07-20: [1-9][\d.]* MB, last written \d+s ago \(` + regexp.QuoteMeta(work) + `\)$`).MatchString(out) {
		t.Errorf("svc verify does not list the interrupted import with size and age:\n%s", out)
	}
	out, err = runCLI(t, "import", "prune", "--data", data)
	if err != nil || !strings.Contains(out, "0 interrupted imports removed") {
		t.Fatalf("prune of a recent work directory: %v\n%s", err, out)
	}
	if _, err := os.Stat(work); err != nil {
		t.Fatalf("prune removed a recent work directory: %v", err)
	}

	tenDays := time.Now().Add(-240 * time.Hour)
	filepath.WalkDir(work, func(p string, _ fs.DirEntry, _ error) error { return os.Chtimes(p, tenDays, tenDays) })
	out, err = runCLI(t, "verify", "--data", data)
	if err != nil || !strings.Contains(out, "INTERRUPTED terrain/he/2027-07-20: ") || !strings.Contains(out, "last written 10d0h ago") {
		t.Errorf("svc verify after ten days: %v\n%s", err, out)
	}
	out, err = runCLI(t, "import", "prune", "--data", data, "--older-than", "168h")
	if err != nil || !strings.Contains(out, "removed "+work+" (") || !strings.Contains(out, "1 interrupted imports removed") {
		t.Fatalf("prune: %v\n%s", err, out)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("the abandoned work directory is still there: %v", err)
	}
	if _, err := pack.ReadManifest(filepath.Join(data, "terrain", "he", "2026-07-20")); err != nil {
		t.Errorf("prune touched the published snapshot: %v", err)
	}
}
