package pack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePack(t *testing.T, data string, key Key, files map[string]string) {
	t.Helper()
	w, err := Create(data, key)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for name, body := range files {
		p := filepath.Join(w.Dir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(context.Background(), Manifest{LicenseID: "dl-de-zero-2.0"}); err != nil {
		t.Fatal(err)
	}
}

func TestCommitAndRead(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	key := Key{Terrain, "he", "2026-07-20"}
	writePack(t, data, key, map[string]string{"tiles/a.tif": "abc", "index.json": "{}"})
	m, err := ReadManifest(filepath.Join(data, "terrain", "he", "2026-07-20"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Key() != key || m.ImportFinishedAt == nil || len(m.Files) != 2 {
		t.Fatalf("manifest = %+v", m)
	}
	// sha256 of the three bytes the test wrote ("abc").
	if f := m.Files[1]; f.Path != "tiles/a.tif" || f.Size != 3 || len(f.SHA256) != 64 {
		t.Errorf("files = %+v", m.Files)
	}
	left, _ := filepath.Glob(filepath.Join(data, "terrain", "he", ".*"))
	if len(left) != 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

func TestRecommitReplaces(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	key := Key{Terrain, "be", "2026-07-20"}
	writePack(t, data, key, map[string]string{"old.tif": "1"})
	writePack(t, data, key, map[string]string{"new.tif": "22"})
	dir := filepath.Join(data, "terrain", "be", "2026-07-20")
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].Path != "new.tif" {
		t.Fatalf("files = %+v", m.Files)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.tif")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old file survived: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(data, "terrain", "be", ".*"))
	if len(left) != 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	w, err := Create(data, Key{LoD2, "nrw", "2026-01-02"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir(), "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	entries, _ := os.ReadDir(filepath.Join(data, "lod2", "nrw"))
	if len(entries) != 0 {
		t.Errorf("abort left %d entries", len(entries))
	}
}

func TestCreateRejectsBadKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		key  Key
	}{
		{"product", Key{"dem", "he", "2026-01-01"}},
		{"bl", Key{Terrain, "xx", "2026-01-01"}},
		{"bl case", Key{Terrain, "HE", "2026-01-01"}},
		{"bl escape", Key{Terrain, "../he", "2026-01-01"}},
		{"snapshot", Key{Terrain, "he", "2026-13-01"}},
		{"snapshot form", Key{Terrain, "he", "20260101"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Create(t.TempDir(), tc.key); !errors.Is(err, ErrInvalid) {
				t.Errorf("Create(%v) = %v, want ErrInvalid", tc.key, err)
			}
		})
	}
}

func TestReadManifestRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, dir string)
		want   error
	}{
		{"no manifest", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, ManifestName)) }, ErrIncomplete},
		{"truncated file", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, "a.bin"), []byte("x"), 0o644) }, ErrCorrupt},
		{"missing file", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "a.bin")) }, ErrCorrupt},
		{"garbage manifest", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ManifestName), []byte("{\"format\":"), 0o644)
		}, ErrCorrupt},
		{"unfinished", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"format":"svc-pack/1","product":"terrain","bl":"he","snapshot":"2026-07-20","import_finished_at":null}`), 0o644)
		}, ErrIncomplete},
		{"wrong identity", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"format":"svc-pack/1","product":"terrain","bl":"nrw","snapshot":"2026-07-20","import_finished_at":"2026-07-21T00:00:00Z"}`), 0o644)
		}, ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			writePack(t, data, Key{Terrain, "he", "2026-07-20"}, map[string]string{"a.bin": "hello"})
			dir := filepath.Join(data, "terrain", "he", "2026-07-20")
			tc.mutate(t, dir)
			if _, err := ReadManifest(dir); !errors.Is(err, tc.want) {
				t.Errorf("ReadManifest = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestSweep: the temporary directory of a running import (its writer holds
// the lock) survives a sweep; those of dead imports go, wherever they are.
func TestSweep(t *testing.T) {
	data := t.TempDir()
	live, err := Create(data, Key{Product: LoD2, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	os.WriteFile(filepath.Join(live.Dir(), "lod2.sqlite"), []byte("half"), 0o644)
	dead := filepath.Join(data, "terrain", "be", ".tmp-2026-07-16-deadbeef0000")
	os.MkdirAll(filepath.Join(dead, "tiles"), 0o755)
	os.WriteFile(filepath.Join(dead, "tiles", "a.tif"), make([]byte, 1000), 0o644)
	// A dead writer's lock file without a holder (a kill -9 drops the lock).
	os.WriteFile(filepath.Join(dead, lockName), nil, 0o644)
	got, err := Sweep(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Dir != dead || got[0].Bytes != 1000 {
		t.Fatalf("swept %+v", got)
	}
	if _, err := os.Stat(live.Dir()); err != nil {
		t.Errorf("the running import's directory was removed: %v", err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("dead directory still there: %v", err)
	}
	m, err := live.Commit(context.Background(), Manifest{LicenseID: "cc-by-4.0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if f.Path == lockName {
			t.Error("the lock file is listed in the manifest")
		}
	}
	if _, err := os.Stat(filepath.Join(data, "lod2", "he", "2026-07-20", lockName)); !os.IsNotExist(err) {
		t.Error("the lock file stayed in the published pack")
	}
}

// TestVerify: a pack verifies clean; a changed byte, a truncated file and a
// missing file are each reported by path.
func TestVerify(t *testing.T) {
	data := t.TempDir()
	w, err := Create(data, Key{Product: Terrain, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.Dir(), "tiles"), 0o755)
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(w.Dir(), "tiles", n+".tif"), []byte("content of "+n), 0o644)
	}
	m, err := w.Commit(context.Background(), Manifest{LicenseID: "cc-by-4.0"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "terrain", "he", "2026-07-20")
	if d, err := Verify(context.Background(), dir, m); err != nil || len(d) != 0 {
		t.Fatalf("clean pack: %v %v", d, err)
	}
	os.WriteFile(filepath.Join(dir, "tiles", "a.tif"), []byte("content of x"), 0o644) // same size
	os.WriteFile(filepath.Join(dir, "tiles", "b.tif"), []byte("cont"), 0o644)
	os.Remove(filepath.Join(dir, "tiles", "c.tif"))
	d, err := Verify(context.Background(), dir, m)
	if err != nil || len(d) != 3 || d[0].Path != "tiles/a.tif" || !strings.Contains(d[0].Problem, "checksum") ||
		!strings.Contains(d[1].Problem, "bytes") || d[2].Problem != "missing" {
		t.Errorf("damage = %+v, %v", d, err)
	}
	if l := List(data); len(l) != 1 || l[0].Key.BL != "he" {
		t.Errorf("List = %+v", l)
	}
}
