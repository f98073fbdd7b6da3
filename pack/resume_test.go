package pack

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCreateResumable: a second writer of the same key fails while the
// first holds the directory; after Suspend the files are there for the
// next one, which is not fresh; Sweep leaves the directory alone; Commit
// publishes it and Clear empties it.
func TestCreateResumable(t *testing.T) {
	data := t.TempDir()
	key := Key{Product: LoD2, BL: "he", Snapshot: "2026-07-20"}
	w, fresh, err := CreateResumable(data, key)
	if err != nil || !fresh {
		t.Fatalf("first: fresh %v, %v", fresh, err)
	}
	if _, _, err := CreateResumable(data, key); err == nil {
		t.Fatal("a second writer of the same key got the directory")
	}
	os.WriteFile(filepath.Join(w.Dir(), "part.bin"), []byte("work"), 0o644)
	w.Suspend()
	if gone, err := Sweep(data); err != nil || len(gone) != 0 {
		t.Fatalf("sweep removed %v (%v)", gone, err)
	}
	w, fresh, err = CreateResumable(data, key)
	if err != nil || fresh {
		t.Fatalf("after Suspend: fresh %v, %v", fresh, err)
	}
	if b, err := os.ReadFile(filepath.Join(w.Dir(), "part.bin")); err != nil || string(b) != "work" {
		t.Fatalf("the suspended work is gone: %q %v", b, err)
	}
	if err := w.Clear(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "part.bin")); !os.IsNotExist(err) {
		t.Errorf("Clear left part.bin: %v", err)
	}
	os.WriteFile(filepath.Join(w.Dir(), "data.bin"), []byte("pack"), 0o644)
	if _, err := w.Commit(context.Background(), Manifest{LicenseID: "dl-de-by-2.0"}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(data, "lod2", "he", "2026-07-20"))
	if err != nil || len(m.Files) != 1 || m.Files[0].Path != "data.bin" {
		t.Fatalf("published %+v %v", m.Files, err)
	}
	if _, err := os.Stat(filepath.Join(data, "lod2", "he", ResumePrefix+"2026-07-20")); !os.IsNotExist(err) {
		t.Errorf("the resumable directory is still there: %v", err)
	}
}
