package cmd

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestImportReportSaysWhy: every building --report lists as invalid comes
// with why, one line per failed polygon: the source line where the
// building starts (checked against the file), the surface (its gml:id
// found in the file), the failed check, and a coordinate inside the
// tile. Real NRW and Berlin tiles.
func TestImportReportSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name, sample, bl       string
		minE, minN, maxE, maxN float64
	}{
		{"nrw", "samples/real/LoD2_32_280_5659_1_NW.gml", "nrw", 280000, 5659000, 281000, 5660000},
		{"be", "samples/real/3910_5817.gml", "be", 391000, 5817000, 392000, 5818000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sample := testtool.Shared(t, tc.sample)
			src, _ := os.ReadFile(sample)
			lines := strings.Split(string(src), "\n")
			report := filepath.Join(t.TempDir(), "report.tsv")
			out, err := runCLI(t, "import", "lod2", "--data", t.TempDir(), "--bl", tc.bl, "--snapshot", "2026-01-01",
				"--license", "dl-de-zero-2.0", "--report", report, sample)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			m := regexp.MustCompile(`(\d+) buildings failed geometric validation`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no invalid buildings reported:\n%s", out)
			}
			want, _ := strconv.Atoi(m[1])
			if !regexp.MustCompile(`failed geometric validation \(kept, flagged\): \S+ \((not closed|too few points|repeated points|non-planar|degenerate)`).MatchString(out) {
				t.Errorf("the summary names no failed check:\n%s", out)
			}
			f, err := os.Open(report)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			why := regexp.MustCompile(`^(\S+) (\S+) of (\S+) polygon \d+: (not closed|too few points|repeated points|non-planar|degenerate)[^@]* at (\S+) (\S+) (\S+)$`)
			ids := map[string]bool{}
			sc := bufio.NewScanner(f)
			for n := 0; sc.Scan(); n++ {
				if n == 0 {
					continue // header
				}
				cols := strings.Split(sc.Text(), "\t")
				if len(cols) != 4 || cols[1] != "invalid" {
					t.Errorf("line %d: %q", n+1, sc.Text())
					continue
				}
				ids[cols[0]] = true
				file, line, _ := strings.Cut(cols[2], ":")
				ln, _ := strconv.Atoi(line)
				if file != sample || ln < 1 || ln > len(lines) || !strings.Contains(lines[ln-1], `gml:id="`+cols[0]+`"`) {
					t.Errorf("line %d: source %s does not start building %s", n+1, cols[2], cols[0])
				}
				w := why.FindStringSubmatch(cols[3])
				if w == nil {
					t.Errorf("line %d: reason %q names no surface, check and coordinate", n+1, cols[3])
					continue
				}
				if !strings.Contains(string(src), `gml:id="`+w[2]+`"`) {
					t.Errorf("line %d: surface %s is not in the file", n+1, w[2])
				}
				e, _ := strconv.ParseFloat(w[5], 64)
				nn, _ := strconv.ParseFloat(w[6], 64)
				if e < tc.minE || e > tc.maxE || nn < tc.minN || nn > tc.maxN {
					t.Errorf("line %d: coordinate %s %s outside the tile", n+1, w[5], w[6])
				}
			}
			if len(ids) != want {
				t.Errorf("report explains %d buildings, the import flagged %d", len(ids), want)
			}
		})
	}
}
