package importer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
)

// TestImportLoD2ReusesUnchangedFiles imports the real NRW tile cut into 20
// files (with repeated border buildings) as one snapshot, changes one file
// (5 %) and imports the next snapshot: only the changed file and the one
// that repeats buildings of its predecessor are parsed, the others are
// copied from the first snapshot, and the pack has the same rows, R*Tree
// and search file, and the summary the same entries, as a full import of
// the same files into an empty data directory.
func TestImportLoD2ReusesUnchangedFiles(t *testing.T) {
	requireSample(t, sampleNRW)
	src := t.TempDir()
	paths, _ := splitSample(t, sampleNRW, src, splitOptions{Parts: 4, Replicas: 5, Overlap: 0})
	// One overlap, so one file repeats gml:ids and is never reused.
	first, _ := os.ReadFile(paths[0])
	head, _, _ := strings.Cut(string(first), "<core:cityObjectMember>")
	i := strings.Index(string(first), "<core:cityObjectMember>")
	j := strings.Index(string(first), "</core:cityObjectMember>") + len("</core:cityObjectMember>")
	repeat := filepath.Join(src, "r00_p000a.gml")
	os.WriteFile(repeat, []byte(head+string(first[i:j])+"\n</core:CityModel>\n"), 0o644)
	data := t.TempDir()
	common := func(data, snap string, sum *LoD2Summary) Common {
		return Common{DataDir: data, BL: "nrw", Snapshot: snap, LicenseID: "dl-de-zero-2.0", Workers: 2, Summary: sum}
	}
	var sum1 LoD2Summary
	if _, err := LoD2(context.Background(), common(data, "2026-01-01", &sum1), []string{src}); err != nil {
		t.Fatal(err)
	}
	if sum1.Duplicates == 0 || sum1.ReusedFiles != 0 {
		t.Fatalf("first import: %d repeats, %d reused", sum1.Duplicates, sum1.ReusedFiles)
	}
	// The yearly update: one file changed (a building moved by 1 m).
	changed := paths[7]
	raw, _ := os.ReadFile(changed)
	raw = bytes.Replace(raw, []byte(" 5659"), []byte(" 5658"), 1)
	os.WriteFile(changed, raw, 0o644)

	var sum2 LoD2Summary
	m2, err := LoD2(context.Background(), common(data, "2027-01-01", &sum2), []string{src})
	if err != nil {
		t.Fatal(err)
	}
	n := len(paths) + 1
	if sum2.ReusedFrom != "2026-01-01" || sum2.ParsedFiles != 2 || sum2.ReusedFiles != n-2 {
		t.Errorf("parsed %d and reused %d of %d files (from %q), want 2 parsed: the changed file and the one repeating ids",
			sum2.ParsedFiles, sum2.ReusedFiles, n, sum2.ReusedFrom)
	}
	full := t.TempDir()
	var sumF LoD2Summary
	mF, err := LoD2(context.Background(), common(full, "2027-01-01", &sumF), []string{src})
	if err != nil {
		t.Fatal(err)
	}
	if sumF.ParsedFiles != n {
		t.Errorf("full import parsed %d of %d files", sumF.ParsedFiles, n)
	}
	a := filepath.Join(data, "lod2", "nrw", "2027-01-01", LoD2File)
	b := filepath.Join(full, "lod2", "nrw", "2027-01-01", LoD2File)
	if da, db := dumpStore(t, a), dumpStore(t, b); da != db {
		t.Errorf("rows differ from the full import's: %s", firstDiff([]byte(da), []byte(db)))
	}
	sa, _ := os.ReadFile(a + lod2store.SearchFileSuffix)
	sb, _ := os.ReadFile(b + lod2store.SearchFileSuffix)
	if d := firstDiff(sa, sb); d != "" {
		t.Errorf("search file differs from the full import's: %s", d)
	}
	for _, s := range []*LoD2Summary{&sum2, &sumF} {
		s.ParsedFiles, s.ReusedFiles, s.ReusedFrom = 0, 0, ""
	}
	if !reflect.DeepEqual(sum2, sumF) {
		t.Errorf("summary differs from the full import's:\n%+v\n%+v", sum2, sumF)
	}
	if m2.LoD2.BuildingCount != mF.LoD2.BuildingCount || *m2.LoD2.ValidationPassPct != *mF.LoD2.ValidationPassPct {
		t.Errorf("manifest %+v, full import %+v", m2.LoD2, mF.LoD2)
	}
}

// dumpStore returns the rows of every table of a LoD2 file but its time
// stamps and the source file summaries, in key order.
func dumpStore(t *testing.T, path string) string {
	t.Helper()
	return testtool.SQLRows(t, path,
		`SELECT surface_id, building_id, gmlid, surface_class, hex(geom) FROM surfaces ORDER BY surface_id`,
		`SELECT building_id, gmlid, surface_count, valid FROM buildings ORDER BY building_id`,
		`SELECT gmlid, building_id FROM building_ids ORDER BY gmlid`,
		`SELECT nodeno, hex(data) FROM idx_surfaces_geom_node ORDER BY nodeno`,
		`SELECT rowid, nodeno FROM idx_surfaces_geom_rowid ORDER BY rowid`,
		`SELECT name, size, sha256, first_building, buildings, first_surface, surfaces, duplicates FROM source_files ORDER BY file_id`,
		`SELECT key, value FROM svc_metadata WHERE key <> 'import_finished_at' ORDER BY key`)
}
