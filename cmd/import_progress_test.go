package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestImportLoD2SkipsBadFileWithProgress imports the real NRW tile with a
// truncated copy of it and a file in another CRS, stderr not a terminal:
// the import publishes the good tile, names both bad files with why in the
// summary and in --report, and writes plain progress lines (no bar
// redraws) ending with every file done. With --strict it fails at the
// first bad file and publishes nothing.
func TestImportLoD2SkipsBadFileWithProgress(t *testing.T) {
	sample := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "a_good.gml")
	cut := filepath.Join(dir, "b_cut.gml")
	utm33 := filepath.Join(dir, "c_utm33.gml")
	os.WriteFile(good, raw, 0o644)
	os.WriteFile(cut, raw[:len(raw)/3], 0o644)
	other := strings.ReplaceAll(string(raw), "ETRS89_UTM32", "ETRS89_UTM33")
	other = regexp.MustCompile(`gml:id="DENW`).ReplaceAllString(other, `gml:id="DENX`) // not repeats of the good tile
	os.WriteFile(utm33, []byte(other), 0o644)
	data := filepath.Join(dir, "data")
	report := filepath.Join(dir, "report.tsv")
	args := []string{"import", "lod2", "--data", data, "--bl", "nrw", "--snapshot", "2026-01-01", "--license", "dl-de-zero-2.0",
		"--workers", "3", "--progress-interval", "1ns", "--report", report, dir}
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "imported lod2/nrw/2026-01-01: 109 buildings") {
		t.Errorf("the good tile was not imported whole:\n%s", out)
	}
	if !strings.Contains(out, "2 files skipped as bad") || !regexp.MustCompile(`(?m)^  \S+b_cut\.gml: \S+b_cut\.gml:\d+: .*`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  \S+c_utm33\.gml: .*EPSG:25833 but the import is in EPSG:25832`).MatchString(out) {
		t.Errorf("the summary does not name the bad files with why:\n%s", out)
	}
	rep, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{cut, utm33} {
		if !regexp.MustCompile(`(?m)^\tbad-file\t` + regexp.QuoteMeta(name) + `\t\S.*$`).Match(rep) {
			t.Errorf("--report lacks a bad-file line for %s:\n%s", name, rep)
		}
	}
	line := regexp.MustCompile(`(?m)^import lod2: (\d+)/3 files, [\d.]+/[\d.]+ MB \(\d+ %\), [\d.]+ MB/s, \d+ buildings(, \d+ bad files)?, ETA \S+.*$`)
	lines := line.FindAllStringSubmatch(out, -1)
	if len(lines) == 0 {
		t.Fatalf("no progress lines:\n%s", out)
	}
	if last := lines[len(lines)-1][0]; !strings.HasPrefix(last, "import lod2: 3/3 files") || !strings.Contains(last, "2 bad files") || !strings.Contains(last, "done in") {
		t.Errorf("the last progress line is %q, want all 3 files done, 2 bad", last)
	}
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("progress redraws in non-terminal output:\n%q", out)
	}
	args[7] = "2026-02-01"
	out, err = runCLI(t, append(args, "--strict")...)
	if err == nil || !strings.Contains(err.Error(), "b_cut.gml") || !strings.Contains(err.Error(), "--strict") {
		t.Errorf("--strict: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(data, "lod2", "nrw", "2026-02-01")); !os.IsNotExist(err) {
		t.Errorf("--strict published the snapshot: %v", err)
	}
}
