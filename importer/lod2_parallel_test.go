package importer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
)

// stampRE matches the import times SQLite and the importer write
// (svc_metadata import_finished_at, SpatiaLite's statistics and history
// stamps): the only bytes of a pack that may differ between two imports of
// the same files.
var stampRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z`)

// maskStamps replaces the digits of every time stamp by zeros.
func maskStamps(b []byte) []byte {
	return stampRE.ReplaceAllFunc(b, func(m []byte) []byte {
		return regexp.MustCompile(`\d`).ReplaceAll(m, []byte("0"))
	})
}

// TestImportLoD2WorkersSameBytes imports the real NRW and Berlin tiles, cut
// into 14 files of different sizes whose borders repeat buildings (as
// neighbouring tiles do), with 1, 2 and 7 workers: the SpatiaLite file
// (time stamps masked, see stampRE) and the search file must be identical
// byte for byte, and so must the summary. A writer taking files in the
// order the workers finish them keeps another copy of a repeated building
// and numbers buildings differently, and fails.
func TestImportLoD2WorkersSameBytes(t *testing.T) {
	for _, tc := range []struct{ bl, src string }{{"nrw", sampleNRW}, {"be", sampleBE}} {
		t.Run(tc.bl, func(t *testing.T) {
			requireSample(t, tc.src)
			paths, _ := splitSample(t, tc.src, t.TempDir(), splitOptions{Parts: 7, Replicas: 2, Overlap: 3})
			var first []byte
			var firstSearch []byte
			var firstSum LoD2Summary
			for _, workers := range []int{1, 2, 7} {
				data := t.TempDir()
				var sum LoD2Summary
				c := Common{DataDir: data, BL: tc.bl, Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0", Workers: workers, Summary: &sum}
				m, err := LoD2(context.Background(), c, paths)
				if err != nil {
					t.Fatal(err)
				}
				if sum.Duplicates == 0 {
					t.Fatal("the cut files repeat no building: the test would not see the order")
				}
				dir := filepath.Join(data, "lod2", tc.bl, m.Snapshot)
				db, err := os.ReadFile(filepath.Join(dir, LoD2File))
				if err != nil {
					t.Fatal(err)
				}
				search, err := os.ReadFile(filepath.Join(dir, LoD2File+lod2store.SearchFileSuffix))
				if err != nil {
					t.Fatal(err)
				}
				db = maskStamps(db)
				if first == nil {
					first, firstSearch, firstSum = db, search, sum
					t.Logf("%d files, %d buildings, %d repeated, %d invalid", len(paths), m.LoD2.BuildingCount, sum.Duplicates, len(sum.Invalid))
					continue
				}
				if d := firstDiff(first, db); d != "" {
					t.Errorf("workers %d: %s differs from workers 1: %s", workers, LoD2File, d)
				}
				if d := firstDiff(firstSearch, search); d != "" {
					t.Errorf("workers %d: search file differs from workers 1: %s", workers, d)
				}
				if !reflect.DeepEqual(firstSum, sum) {
					t.Errorf("workers %d: summary differs from workers 1", workers)
				}
			}
		})
	}
}

// firstDiff describes the first difference of a and b, "" when equal.
func firstDiff(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d (page %d of 8 KiB) of %d/%d bytes", i, i/8192+1, len(a), len(b))
		}
	}
	return fmt.Sprintf("lengths %d and %d, equal up to %d", len(a), len(b), n)
}
