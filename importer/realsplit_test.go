package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// memberRE finds the start and end tags of a cityObjectMember, with or
// without a namespace prefix.
var memberRE = regexp.MustCompile(`<(/?)([A-Za-z0-9_]+:)?cityObjectMember>`)

// idRE finds gml:id values and local xlink:href references to them.
var idRE = regexp.MustCompile(`((?:gml:id|xlink:href)="#?[^"]*)"`)

// splitOptions says how splitSample cuts a real tile into many files.
type splitOptions struct {
	// Parts is how many files each replica is cut into; part sizes differ
	// (part i gets a share growing with i) so that workers finish out of
	// order.
	Parts int
	// Replicas repeats the tile with its gml:ids (and the xlink:hrefs
	// pointing at them) suffixed "_r<k>", so the buildings stay unique and
	// keep their AdV BL prefix.
	Replicas int
	// Overlap repeats the last Overlap buildings of each part at the start
	// of the next one, as neighbouring tiles repeat border buildings: the
	// first occurrence must win, which makes the file order matter.
	Overlap int
}

// splitSample writes the buildings of the CityGML file src as o.Parts x
// o.Replicas well-formed files under dir (names sorted in cutting order)
// and returns their paths and total size. Only the test's temporary copy
// is written; the shared sample is read.
func splitSample(t testing.TB, src, dir string, o splitOptions) ([]string, int64) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	locs := memberRE.FindAllSubmatchIndex(raw, -1)
	if len(locs) < 2 || len(locs)%2 != 0 {
		t.Fatalf("%s: %d cityObjectMember tags", src, len(locs))
	}
	head, tail := raw[:locs[0][0]], raw[locs[len(locs)-1][1]:]
	var members [][]byte
	for i := 0; i < len(locs); i += 2 {
		members = append(members, raw[locs[i][0]:locs[i+1][1]])
	}
	// Cumulative shares 1, 1+2, 1+2+3, ... of the members per part.
	weights := o.Parts * (o.Parts + 1) / 2
	var paths []string
	var total int64
	for r := range o.Replicas {
		suffix := []byte(fmt.Sprintf("${1}_r%d\"", r))
		start, acc := 0, 0
		for p := range o.Parts {
			acc += p + 1
			end := len(members) * acc / weights
			from := max(0, start-o.Overlap)
			if p == 0 {
				from = 0
			}
			var b bytes.Buffer
			b.Write(head)
			for _, m := range members[from:end] {
				if r > 0 {
					m = idRE.ReplaceAll(m, suffix)
				}
				b.Write(m)
				b.WriteByte('\n')
			}
			b.Write(tail)
			path := filepath.Join(dir, fmt.Sprintf("r%02d_p%03d.gml", r, p))
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, path)
			total += int64(b.Len())
			start = end
		}
	}
	return paths, total
}
