package importer

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestImportLoD2QuickCheck edits two of 8 files of a snapshot in place,
// keeping their size (a building moved by 1 m): one gets a new
// modification time, the other has its time put back (touch -d). The
// next snapshot's import re-imports the first (its building moved in the
// pack) and, like rsync, takes the second as unchanged without reading it
// (its building where it was), reading no other file either; with
// Checksum (--checksum, rsync -c) it hashes every file, and the second
// building moves too, patching the pack patched before. The packs are
// compared, building by building, with full imports of the old and the
// new files, the last one whole.
func TestImportLoD2QuickCheck(t *testing.T) {
	requireSample(t, sampleNRW)
	src := t.TempDir()
	paths, _ := splitSample(t, sampleNRW, src, splitOptions{Parts: 4, Replicas: 2})
	addAddress(t, paths[3], "Hauptstraße", "5") // for dumpVisible
	addAddress(t, paths[5], "Kirchstraße", "12a")
	run := func(data, snap string, checksum bool) LoD2Summary {
		t.Helper()
		var sum LoD2Summary
		c := Common{DataDir: data, BL: "nrw", Snapshot: snap, LicenseID: "dl-de-zero-2.0", Workers: 2, Summary: &sum, Checksum: checksum}
		if _, err := LoD2(context.Background(), c, []string{src}); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	file := func(data, snap string) string { return filepath.Join(data, "lod2", "nrw", snap, LoD2File) }
	data := t.TempDir()
	run(data, "2026-01-01", false)
	oldFull := file(data, "2026-01-01")
	// The edits: the first roof of each file moved up to 1 m north, in
	// place (the metres digit of its northings, 9s kept).
	touched, kept := paths[1], paths[6]
	ids := map[string]string{}
	for _, p := range []string{touched, kept} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(p)
		r0 := bytes.Index(raw, []byte("<bldg:RoofSurface"))
		at := r0 + bytes.Index(raw[r0:], []byte("<gml:posList"))
		end := at + bytes.Index(raw[at:], []byte("</gml:posList>"))
		ids[p] = lastBuildingID(t, raw[:at])
		edited := bytes.Clone(raw)
		copy(edited[at:end], moveNorth.ReplaceAllFunc(raw[at:end], func(m []byte) []byte {
			if d := m[len(m)-1]; d < '9' {
				m = append(bytes.Clone(m[:len(m)-1]), d+1)
			}
			return m
		}))
		if err := os.WriteFile(p, edited, 0o644); err != nil {
			t.Fatal(err)
		}
		mtime := st.ModTime().Add(time.Hour)
		if p == kept {
			mtime = st.ModTime() // touch -d "<the old time>"
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	full := t.TempDir()
	run(full, "2028-01-01", false)
	newFull := file(full, "2028-01-01")

	for _, id := range ids {
		if buildingRows(t, newFull, id) == buildingRows(t, oldFull, id) {
			t.Fatalf("the edit left building %s as it was", id)
		}
	}

	sum := run(data, "2027-01-01", false)
	if !sum.Patched || sum.ParsedFiles != 1 || sum.UnreadFiles != len(paths)-1 {
		t.Errorf("quick check: parsed %d, not read %d of %d files, patched %v (%s); want the file with a new time parsed, the %d others not read",
			sum.ParsedFiles, sum.UnreadFiles, len(paths), sum.Patched, sum.NoPatch, len(paths)-1)
	}
	quick := file(data, "2027-01-01")
	if got, want := buildingRows(t, quick, ids[touched]), buildingRows(t, newFull, ids[touched]); got != want {
		t.Errorf("building %s of the file with a new time: not re-imported", ids[touched])
	}
	if got, want := buildingRows(t, quick, ids[kept]), buildingRows(t, oldFull, ids[kept]); got != want {
		t.Errorf("building %s of the file with the same size and time: not taken from the previous snapshot", ids[kept])
	}

	sum = run(data, "2028-01-01", true)
	if !sum.Patched || sum.ParsedFiles != 1 || sum.UnreadFiles != 0 {
		t.Errorf("--checksum: parsed %d, not read %d, patched %v (%s); want 1 parsed (the edit the quick check missed), every file read",
			sum.ParsedFiles, sum.UnreadFiles, sum.Patched, sum.NoPatch)
	}
	sumed := file(data, "2028-01-01")
	for _, id := range ids {
		if got, want := buildingRows(t, sumed, id), buildingRows(t, newFull, id); got != want {
			t.Errorf("--checksum: building %s differs from a full import of the edited files", id)
		}
	}
	if got, old := buildingRows(t, sumed, ids[kept]), buildingRows(t, oldFull, ids[kept]); got == old {
		t.Errorf("--checksum: building %s still as before the edit", ids[kept])
	}
	// A pack patched twice (the file re-imported by the first patch kept
	// by the second, its rows' ids now after the others') is what a full
	// import gives.
	if da, db := dumpVisible(t, sumed), dumpVisible(t, newFull); da != db {
		t.Errorf("the pack patched twice differs from a full import: %s", firstLineDiff(da, db))
	}
}

// moveNorth finds the northings of the NRW sample, up to the metres.
var moveNorth = regexp.MustCompile(` 5659\d\d\d`)

// lastBuildingID is the gml:id of the last bldg:Building opened in raw.
func lastBuildingID(t *testing.T, raw []byte) string {
	t.Helper()
	all := regexp.MustCompile(`<bldg:Building gml:id="([^"]+)"`).FindAllSubmatch(raw, -1)
	if len(all) == 0 {
		t.Fatal("no building before the edit")
	}
	return string(all[len(all)-1][1])
}

// buildingRows is what GIS tools read of building id: its surfaces'
// classes and geometry.
func buildingRows(t *testing.T, path, id string) string {
	t.Helper()
	return testtool.SQLRows(t, path, `SELECT s.gmlid, s.surface_class, hex(s.geom) FROM surfaces s JOIN buildings b USING (building_id)
WHERE b.gmlid = '`+id+`' ORDER BY s.surface_id`)
}

// TestImportLoD2QuickCheckOlderPack imports a snapshot whose pack lacks
// the quick check's columns (written before them: dropped here) and
// then the same files again: every file is hashed (none taken unread),
// all are reused and the pack is patched, and the patched pack records
// the files' paths and times, so the next import reads none of them.
func TestImportLoD2QuickCheckOlderPack(t *testing.T) {
	requireSample(t, sampleNRW)
	src := t.TempDir()
	paths, _ := splitSample(t, sampleNRW, src, splitOptions{Parts: 4, Replicas: 1})
	data := t.TempDir()
	run := func(snap string) LoD2Summary {
		t.Helper()
		var sum LoD2Summary
		c := Common{DataDir: data, BL: "nrw", Snapshot: snap, LicenseID: "dl-de-zero-2.0", Workers: 2, Summary: &sum}
		if _, err := LoD2(context.Background(), c, []string{src}); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	run("2026-01-01")
	db, err := sql.Open("sqlite", filepath.Join(data, "lod2", "nrw", "2026-01-01", LoD2File))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"rel", "mtime_ns", "input_index"} {
		if _, err := db.Exec(`ALTER TABLE source_files DROP COLUMN ` + c); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, tc := range []struct {
		snap   string
		unread int
	}{{"2027-01-01", 0}, {"2028-01-01", len(paths)}} {
		s := run(tc.snap)
		if !s.Patched || s.ReusedFiles != len(paths) || s.UnreadFiles != tc.unread || s.ParsedFiles != 0 {
			t.Errorf("%s: patched %v (%s), reused %d, not read %d, parsed %d; want all %d reused, %d not read",
				tc.snap, s.Patched, s.NoPatch, s.ReusedFiles, s.UnreadFiles, s.ParsedFiles, len(paths), tc.unread)
		}
	}
}
