package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestImportDGMProgressLinesAndBadFiles imports three DGM tiles and a
// damaged one with stderr not a terminal: the import writes plain progress
// lines (no bar redraws) like the LoD2 import's, the last one with every
// file done and the damaged one counted as bad; the summary and --report
// name the bad file as the LoD2 import names its bad files.
func TestImportDGMProgressLinesAndBadFiles(t *testing.T) {
	dir := t.TempDir()
	src, data := filepath.Join(dir, "src"), filepath.Join(dir, "data")
	os.Mkdir(src, 0o755)
	paths := writeDGMTiles(t, src, 3)
	b, _ := os.ReadFile(paths[0])
	damaged := filepath.Join(src, "damaged.tif")
	os.WriteFile(damaged, b[:len(b)/4], 0o644)
	report := filepath.Join(dir, "report.tsv")
	out, err := runCLI(t, "import", "dgm", "--data", data, "--bl", "HE", "--snapshot", "2026-07-20", "--license", "dl-de-by-2.0",
		"--workers", "2", "--progress-interval", "1ns", "--report", report, src)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^import dgm: (\d+)/4 files, [\d.]+/[\d.]+ MB \(\d+ %\), [\d.]+ MB/s, \d+ tiles(, \d+ bad files)?, ETA \S+.*$`)
	lines := line.FindAllString(out, -1)
	if len(lines) == 0 {
		t.Fatalf("no progress lines off-terminal:\n%s", out)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "import dgm: 4/4 files") || !strings.Contains(last, "3 tiles, 1 bad files") || !strings.Contains(last, "done in") {
		t.Errorf("the last progress line is %q, want all 4 files done, 3 tiles, 1 bad", last)
	}
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("progress redraws in non-terminal output:\n%q", out)
	}
	if !strings.Contains(out, "1 files skipped as bad") || !strings.Contains(out, "\n  "+damaged+": ") {
		t.Errorf("the summary does not list the bad file as the LoD2 import does:\n%s", out)
	}
	rep, err := os.ReadFile(report)
	if err != nil || !regexp.MustCompile(`(?m)^\tbad-file\t`+regexp.QuoteMeta(damaged)+`\t\S.*$`).Match(rep) {
		t.Errorf("--report lacks a bad-file line for %s: %v\n%s", damaged, err, rep)
	}
}

// TestImportRunFlagsSame: lod2, dgm and vegetation take --workers,
// --resume, --strict, --report and --progress-interval with the same
// defaults and help texts.
func TestImportRunFlagsSame(t *testing.T) {
	root := newRoot()
	var first map[string]string
	for _, name := range []string{"lod2", "dgm", "vegetation"} {
		c, _, err := root.Find([]string{"import", name})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range []string{"workers", "resume", "strict", "report", "progress-interval"} {
			fl := c.Flags().Lookup(f)
			if fl == nil {
				t.Errorf("import %s has no --%s", name, f)
				continue
			}
			got[f] = fl.DefValue + " | " + fl.Usage
		}
		if first == nil {
			first = got
			continue
		}
		for f, v := range got {
			if v != first[f] {
				t.Errorf("import %s --%s: %q; import lod2: %q", name, f, v, first[f])
			}
		}
	}
	// osm reads one file: --workers (its decoder goroutines, the same
	// default) and --progress-interval (the same) and --report (what
	// became of the coastline) mean something; its help says why
	// --resume and --strict do not apply.
	c, _, err := root.Find([]string{"import", "osm"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"workers", "progress-interval", "report"} {
		fl := c.Flags().Lookup(f)
		switch {
		case fl == nil:
			t.Errorf("import osm has no --%s", f)
		case f == "progress-interval" && fl.DefValue+" | "+fl.Usage != first[f]:
			t.Errorf("import osm --%s: %q; import lod2: %q", f, fl.DefValue+" | "+fl.Usage, first[f])
		case f == "workers" && fl.DefValue+" | " != first[f][:len(fl.DefValue)+3]:
			t.Errorf("import osm --workers defaults to %s; import lod2: %q", fl.DefValue, first[f])
		}
	}
	for _, f := range []string{"resume", "strict"} {
		if c.Flags().Lookup(f) != nil {
			t.Errorf("import osm takes --%s, which means nothing for one file", f)
		}
		if !strings.Contains(c.Long, "--resume and --strict") || !strings.Contains(c.Long, "do not apply") {
			t.Errorf("import osm's help does not say why --%s does not apply:\n%s", f, c.Long)
		}
	}
}

// TestImportOSMProgressLines imports an OSM extract with stderr not a
// terminal: the import writes plain progress lines (no bar redraws) like
// the other imports', counting the bytes of its four passes, the last one
// with the file done, and --workers 1 and 3 give the same features.
func TestImportOSMProgressLines(t *testing.T) {
	helgoland := testtool.Shared(t, "samples/osm/helgoland.osm.pbf")
	fi, err := os.Stat(helgoland)
	if err != nil {
		t.Fatal(err)
	}
	var features [][]byte
	for _, workers := range []string{"1", "3"} {
		data := t.TempDir()
		out, err := runCLI(t, "import", "osm", "--data", data, "--bl", "sh", "--snapshot", "2026-07-20",
			"--workers", workers, "--progress-interval", "1ns", helgoland)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		line := regexp.MustCompile(`(?m)^import osm: ([01])/1 files, [\d.]+/([\d.]+) MB \(\d+ %\), [\d.]+ MB/s, (\d+) features, ETA \S+.*$`)
		lines := line.FindAllStringSubmatch(out, -1)
		if len(lines) < 2 {
			t.Fatalf("--workers %s: %d progress lines off-terminal, want several:\n%s", workers, len(lines), out)
		}
		if want := fmt.Sprintf("%.1f", 4*float64(fi.Size())/1e6); lines[0][2] != want {
			t.Errorf("progress counts %s MB in all, want %s (four passes over the file)", lines[0][2], want)
		}
		if last := lines[len(lines)-1]; last[1] != "1" || last[3] == "0" || !strings.Contains(last[0], "done in") {
			t.Errorf("the last progress line is %q, want the file done with its features", last[0])
		}
		if strings.ContainsAny(out, "\r\x1b") {
			t.Errorf("progress redraws in non-terminal output:\n%q", out)
		}
		b, err := os.ReadFile(filepath.Join(data, "osm", "sh", "2026-07-20", importer.OSMFeaturesFile))
		if err != nil {
			t.Fatal(err)
		}
		features = append(features, b)
	}
	if !bytes.Equal(features[0], features[1]) {
		t.Errorf("--workers 1 and 3 wrote different features (%d and %d bytes)", len(features[0]), len(features[1]))
	}
}
