package testtool

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SumMark prefixes the SHA-256 values MarkSums writes.
const SumMark = "marked:"

// MarkSums rewrites every "sha256" value in the JSON files of a published
// pack directory dir (the sidecars named, then manifest.json, whose sizes
// of the sidecars it updates) as SumMark+value. A later build or import
// that takes the SHA-256 of a file hard-linked from this pack out of its
// manifest, instead of reading the file, carries the mark into its own
// manifest; one that reads the file does not: that tells the two apart
// without timing anything.
func MarkSums(t testing.TB, dir string, sidecars ...string) {
	t.Helper()
	sizes := map[string]int64{}
	for _, name := range sidecars {
		sizes[name] = markFile(t, filepath.Join(dir, filepath.FromSlash(name)), nil)
	}
	markFile(t, filepath.Join(dir, "manifest.json"), sizes)
}

// markFile marks the sums in the JSON file p, sets the "size" of the
// objects whose "path" sizes names, and returns the file's new size.
func markFile(t testing.TB, p string, sizes map[string]int64) int64 {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // sizes stay integers when written back
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	markSums(doc, sizes)
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

func markSums(v any, sizes map[string]int64) {
	switch x := v.(type) {
	case map[string]any:
		if p, ok := x["path"].(string); ok {
			if n, ok := sizes[p]; ok {
				x["size"] = n
			}
		}
		for k, e := range x {
			if s, ok := e.(string); ok && k == "sha256" && s != "" {
				x[k] = SumMark + s
				continue
			}
			markSums(e, sizes)
		}
	case []any:
		for _, e := range x {
			markSums(e, sizes)
		}
	}
}

// MarkedFiles returns the paths of the files whose SHA-256 in the manifest
// of the pack in dir carries SumMark, and how many files it lists.
func MarkedFiles(t testing.TB, dir string) (marked []string, files int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Files []struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if strings.HasPrefix(f.SHA256, SumMark) {
			marked = append(marked, f.Path)
		}
	}
	return marked, len(m.Files)
}
