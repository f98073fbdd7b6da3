package pack

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRemoveInterrupted: ListInterrupted names the work directory of a
// suspended (interrupted) import with its size and last write, and the one
// an import holds as running; RemoveInterrupted keeps the one written
// recently, the running one and the published snapshot, and removes the
// interrupted one once it is older than the limit.
func TestRemoveInterrupted(t *testing.T) {
	data := t.TempDir()
	old := Key{Product: Terrain, BL: "he", Snapshot: "2026-07-20"}
	w, _, err := CreateResumable(data, old)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w.Dir(), "tile.tif"), make([]byte, 5000), 0o644)
	w.Suspend()
	live, _, err := CreateResumable(data, Key{Product: LoD2, BL: "nrw", Snapshot: "2026-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	pub := filepath.Join(data, "terrain", "he", "2025-07-20")
	os.MkdirAll(pub, 0o755)

	list, err := ListInterrupted(data)
	if err != nil || len(list) != 2 {
		t.Fatalf("listed %+v, %v; want 2", list, err)
	}
	byKey := map[Key]Interrupted{list[0].Key: list[0], list[1].Key: list[1]}
	if in := byKey[old]; in.Running || in.Bytes < 5000 || time.Since(in.LastWrite) > time.Minute {
		t.Errorf("interrupted import listed as %+v; want not running, 5000 bytes or more, written just now", in)
	}
	if !byKey[live.Key()].Running {
		t.Errorf("the import holding its directory is not listed as running: %+v", byKey[live.Key()])
	}

	if gone, err := RemoveInterrupted(data, 24*time.Hour, time.Now()); err != nil || len(gone) != 0 {
		t.Fatalf("removed %v (%v) written less than a day ago", gone, err)
	}
	gone, err := RemoveInterrupted(data, 24*time.Hour, time.Now().Add(25*time.Hour))
	if err != nil || len(gone) != 1 || gone[0].Dir != byKey[old].Dir || gone[0].Bytes < 5000 {
		t.Fatalf("removed %+v (%v); want the interrupted import's directory only", gone, err)
	}
	for _, d := range []string{live.Dir(), pub} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if _, err := os.Stat(byKey[old].Dir); !os.IsNotExist(err) {
		t.Errorf("the interrupted import's directory is still there: %v", err)
	}
}

// TestCommitReusedHash: Commit takes the SHA-256 given to Reuse for a hard
// link that is still the published file, and hashes a file that replaced
// the link; the manifest then verifies against the files.
func TestCommitReusedHash(t *testing.T) {
	data := t.TempDir()
	ctx := t.Context()
	w, err := Create(data, Key{Product: Buildings3D, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w.Dir(), "a.glb"), []byte("leaf a"), 0o644)
	os.WriteFile(filepath.Join(w.Dir(), "b.glb"), []byte("leaf b"), 0o644)
	prev, err := w.Commit(ctx, Manifest{LicenseID: "dl-de-by-2.0"})
	if err != nil {
		t.Fatal(err)
	}
	prevDir := filepath.Join(data, "buildings", "he", "2026-07-20")
	w, err = Create(data, Key{Product: Buildings3D, BL: "he", Snapshot: "2026-08-01"})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a.glb", "b.glb"} {
		src, dst := filepath.Join(prevDir, name), filepath.Join(w.Dir(), name)
		if err := os.Link(src, dst); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		fi, _ := os.Stat(src)
		// A wrong hash shows whether Commit took it or read the file.
		w.Reuse(dst, fi, "taken-"+prev.Files[i].SHA256[:8])
	}
	// b.glb replaced after the link: no longer the published file.
	os.Remove(filepath.Join(w.Dir(), "b.glb"))
	os.WriteFile(filepath.Join(w.Dir(), "b.glb"), []byte("leaf B"), 0o644)
	m, err := w.Commit(ctx, Manifest{LicenseID: "dl-de-by-2.0"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Files[0].SHA256 != "taken-"+prev.Files[0].SHA256[:8] {
		t.Errorf("a.glb (still the linked file): %s; want the hash given to Reuse", m.Files[0].SHA256)
	}
	if want, _ := fileSHA256(filepath.Join(data, "buildings", "he", "2026-08-01", "b.glb")); m.Files[1].SHA256 != want {
		t.Errorf("b.glb (replaced): %s; want its own hash %s", m.Files[1].SHA256, want)
	}
}
