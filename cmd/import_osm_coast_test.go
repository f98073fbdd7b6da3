package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestImportOSMCoastline: what `svc import osm` says about the sea of a
// cut extract. The Helgoland sample cut by a polygon with osmium (simple
// strategy: the main island's coastline way is cut) and the .poly given
// with --clip-poly gets its sea, its chains closed along that polygon. An
// extract whose coastline stops in the middle (a gap, not a cut) says
// which way and why, on the summary and in --report. A broken .poly is
// one line naming the file and the line.
func TestImportOSMCoastline(t *testing.T) {
	osmium := testtool.Require(t, "osmium", "apt-get install osmium-tool")
	src := testtool.Shared(t, "samples/osm/helgoland.osm.pbf")
	dir := t.TempDir()
	poly := filepath.Join(dir, "cut.poly")
	os.WriteFile(poly, []byte("cut\n1\n 7.872 54.16\n 7.93996 54.16\n 7.93996 54.19776\n 7.895 54.19776\n 7.872 54.185\nEND\nEND\n"), 0o644)
	cut := filepath.Join(dir, "cut.osm.pbf")
	if out, err := exec.Command(osmium, "extract", "-O", "-s", "simple", "--polygon", poly, "-o", cut, src).CombinedOutput(); err != nil {
		t.Fatalf("osmium extract: %v\n%s", err, out)
	}
	t.Run("polygon cut", func(t *testing.T) {
		out, err := runCLI(t, "import", "osm", "--data", t.TempDir(), "--bl", "sh", "--snapshot", "2026-11-20", "--clip-poly", poly, cut)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var polys int
		var km2 float64
		i := strings.Index(out, "sea: ")
		if i < 0 {
			t.Fatalf("no sea line:\n%s", out)
		}
		fmt.Sscanf(out[i:], "sea: %d polygons, %f km²", &polys, &km2)
		// The polygon's 17.64 km² less the islands' 1.71 km² inside it.
		if polys != 1 || km2 < 15.9 || km2 > 15.96 || !strings.Contains(out, "closed along the clip polygon") || strings.Contains(out, "NOT CLOSED") {
			t.Errorf("sea line wrong:\n%s", out)
		}
	})
	t.Run("a gap in the coastline", func(t *testing.T) {
		// A coastline from the west edge of the extract to a way end 556 m
		// from its north edge (no node missing: a gap), and a road spanning
		// the extract.
		xml := `<?xml version="1.0"?><osm version="0.6">
<node id="1" version="1" lat="54.30" lon="10.10"/><node id="2" version="1" lat="54.34" lon="10.16"/>
<node id="3" version="1" lat="54.335" lon="10.10"/><node id="4" version="1" lat="54.335" lon="10.115"/><node id="5" version="1" lat="54.335" lon="10.13"/>
<way id="100" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="track"/></way>
<way id="201" version="1"><nd ref="5"/><nd ref="4"/><tag k="natural" v="coastline"/></way>
<way id="202" version="1"><nd ref="4"/><nd ref="3"/><tag k="natural" v="coastline"/></way>
</osm>`
		file := filepath.Join(dir, "gap.osm")
		os.WriteFile(file, []byte(xml), 0o644)
		report := filepath.Join(dir, "report.tsv")
		out, err := runCLI(t, "import", "osm", "--data", t.TempDir(), "--bl", "sh", "--snapshot", "2026-11-20", "--report", report, file)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, want := range []string{"NOT CLOSED, left out of the sea: 1 chains", "ways 201, 202 starts 556 m inside the extract's boundary where its way starts", "(a gap, not a cut)", "pass it with --clip-poly"} {
			if !strings.Contains(out, want) {
				t.Errorf("summary lacks %q:\n%s", want, out)
			}
		}
		rep, err := os.ReadFile(report)
		if err != nil || !strings.Contains(string(rep), "coastline-not-closed\t201, 202\t10.13") {
			t.Errorf("report (%v):\n%s", err, rep)
		}
	})
	t.Run("a broken poly", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.poly")
		os.WriteFile(bad, []byte("cut\n1\n 7.872 54.16 3\nEND\nEND\n"), 0o644)
		_, err := runCLI(t, "import", "osm", "--data", t.TempDir(), "--bl", "sh", "--snapshot", "2026-11-20", "--clip-poly", bad, cut)
		if msg := errorText(err); err == nil || !strings.Contains(msg, "bad.poly") || !strings.Contains(msg, "line 3") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("error %q", msg)
		}
	})
}
