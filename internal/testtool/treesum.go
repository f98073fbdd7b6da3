package testtool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TreeSums returns the SHA-256 of every regular file under dir by its
// slash path relative to dir. Manifests (manifest.json) are hashed with the
// members that change from run to run removed: every key ending in "_at"
// (import, build and generation times), tileset_id and the files' list
// (whose checksums are of files compared on their own).
func TreeSums(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == "manifest.json" {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			delete(m, "files")
			stripVolatile(m)
			if b, err = json.Marshal(m); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func stripVolatile(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.HasSuffix(k, "_at") || k == "tileset_id" {
				delete(x, k)
				continue
			}
			stripVolatile(e)
		}
	case []any:
		for _, e := range x {
			stripVolatile(e)
		}
	}
}

// SameTrees fails t naming every file that differs between the trees a
// and b (TreeSums), or is in one only; what says which runs they are.
func SameTrees(t testing.TB, what string, a, b map[string]string) {
	t.Helper()
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	bad := 0
	for _, n := range names {
		if a[n] != b[n] {
			if bad < 10 {
				t.Errorf("%s: %s differs (%.12s vs %.12s)", what, n, a[n], b[n])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d files differ", what, bad, len(names))
	}
	if len(names) == 0 {
		t.Errorf("%s: no files", what)
	}
}
