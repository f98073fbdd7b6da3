package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestImportOSMNamesSkipped: the cut issue 24 names (`osmium extract -s
// simple --bbox 7.8611,54.16,7.885,54.1977` of Helgoland) loses areas and
// multipolygons at the cut; `svc import osm` names each by id, where and
// why, the first three on the summary and all in --report. Judged by
// osmium: every way named as cut lacks in the file exactly the nodes
// `osmium check-refs` finds missing from it, and the member way a
// multipolygon is skipped for is a member of that relation in the uncut
// sample and lacks the nodes the reason says.
func TestImportOSMNamesSkipped(t *testing.T) {
	memberCut := regexp.MustCompile(`multipolygon: member way (\d+) is cut by the extract: (\d+) of its \d+ nodes missing`)
	osmium := testtool.Require(t, "osmium", "apt-get install osmium-tool")
	src := testtool.Shared(t, "samples/osm/helgoland.osm.pbf")
	dir := t.TempDir()
	cut := filepath.Join(dir, "issue.osm.pbf")
	if out, err := exec.Command(osmium, "extract", "-O", "-s", "simple", "--bbox", "7.8611,54.16,7.885,54.1977", "-o", cut, src).CombinedOutput(); err != nil {
		t.Fatalf("osmium extract: %v\n%s", err, out)
	}
	// The oracle: the nodes each way of the cut file lacks ("n1 in w2").
	refs, _ := exec.Command(osmium, "check-refs", "--show-ids", cut).CombinedOutput()
	missing := map[string]int{}
	for _, l := range strings.Split(string(refs), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[1] == "in" && strings.HasPrefix(f[2], "w") {
			missing[f[2][1:]]++
		}
	}
	if len(missing) == 0 {
		t.Fatalf("osmium check-refs found no way cut:\n%s", refs)
	}
	report := filepath.Join(dir, "report.tsv")
	out, err := runCLI(t, "import", "osm", "--data", t.TempDir(), "--bl", "sh", "--snapshot", "2026-11-20", "--report", report, cut)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var ways, rels int
	var named []string
	for _, l := range strings.Split(string(rep), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 5 || !strings.HasSuffix(f[0], "-skipped") {
			continue
		}
		id, reason := f[1], f[4]
		named = append(named, strings.TrimSuffix(f[0], "-skipped")+" "+id)
		var lon, lat float64
		if _, err := fmt.Sscan(f[2]+" "+f[3], &lon, &lat); err != nil || lon < 7.8611 || lon > 7.885 || lat < 54.16 || lat > 54.1977 {
			t.Errorf("%s: where %q %q is not a node inside the cut box", l, f[2], f[3])
		}
		switch f[0] {
		case "way-skipped":
			ways++
			var n, of int
			i := strings.Index(reason, "cut by the extract: ")
			if i < 0 {
				t.Errorf("way %s: reason %q does not say it is cut", id, reason)
				continue
			}
			fmt.Sscanf(reason[i:], "cut by the extract: %d of its %d nodes missing", &n, &of)
			if n == 0 || n != missing[id] {
				t.Errorf("way %s: the report says %d nodes missing, osmium check-refs %d (%q)", id, n, missing[id], reason)
			}
			if !strings.Contains(reason, "an area cannot be closed") && !strings.Contains(reason, "no two consecutive nodes") {
				t.Errorf("way %s: reason %q says not why it is skipped", id, reason)
			}
		case "relation-skipped":
			rels++
			m := memberCut.FindStringSubmatch(reason)
			if m == nil {
				t.Errorf("relation %s: reason %q", id, reason)
				continue
			}
			member, n := m[1], 0
			fmt.Sscan(m[2], &n)
			if n == 0 || n != missing[member] {
				t.Errorf("relation %s: member way %s %d nodes missing, osmium check-refs %d (%q)", id, member, n, missing[member], reason)
			}
			opl, err := exec.Command(osmium, "getid", "-f", "opl", src, "r"+id).Output()
			if err != nil || !strings.Contains(string(opl), "w"+member+"@") {
				t.Errorf("relation %s: way %s is not its member in the sample (%v)", id, member, err)
			}
		}
	}
	// Every skip is named: the counts on the summary are the rows.
	var sr, sw int
	if i := strings.Index(out, "; skipped "); i < 0 {
		t.Fatalf("no counts on the summary:\n%s", out)
	} else {
		fmt.Sscanf(out[i:], "; skipped %d relations and %d ways", &sr, &sw)
	}
	t.Logf("%d ways and %d relations named; osmium check-refs: %d ways lack nodes", ways, rels, len(missing))
	if ways != sw || rels != sr || ways < 20 || rels < 1 {
		t.Fatalf("report names %d ways and %d relations, the summary counts %d and %d:\n%s", ways, rels, sw, sr, rep)
	}
	want := fmt.Sprintf("skipped %d: %s", ways+rels, named[0])
	if !strings.Contains(out, want) || !strings.Contains(out, named[2]) || !strings.Contains(out, fmt.Sprintf("(%d more; --report FILE lists all)", ways+rels-3)) {
		t.Errorf("summary lacks %q, %q and the rest:\n%s", want, named[2], out)
	}
}
