package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/tiles3d"
)

// TestBuildTilesetSaysOlderBuild: a building tileset over a previous build
// of the same BL reuses its leaves and says so; over a previous build made
// by an svc of another build version (an older one, whose
// build-inputs.json has no version and another recipe) it builds every
// leaf and the summary says why, instead of a bare "0 reused".
func TestBuildTilesetSaysOlderBuild(t *testing.T) {
	nrw := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	ctx := context.Background()
	data := t.TempDir()
	summary := regexp.MustCompile(`(\d+) tiles built, (\d+) reused`)
	build := func(snapshot string) string {
		t.Helper()
		for _, c := range [][]string{
			{"import", "lod2", "--data", data, "--bl", "nrw", "--snapshot", snapshot, "--license", "dl-de-zero-2.0", nrw},
			{"build", "tileset", "--data", data, "--bl", "nrw", "--max-per-tile", "20"},
		} {
			out, err := run(ctx, c...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", c, err, out)
			}
			if c[1] == "tileset" {
				return out
			}
		}
		return ""
	}
	build("2026-01-01")
	out := build("2026-02-01")
	if m := summary.FindStringSubmatch(out); m == nil || m[1] != "0" || m[2] == "0" {
		t.Errorf("rebuild of the same buildings: want 0 built, all reused:\n%s", out)
	}
	// The 2026-02-01 pack as an older svc wrote it.
	p := filepath.Join(data, "buildings", "nrw", "2026-02-01", tiles3d.InputsFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "version")
	doc["recipe"] = "0123456789abcdef"
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	rewriteFile(t, p, b)
	out = build("2026-03-01")
	if m := summary.FindStringSubmatch(out); m == nil || m[1] == "0" || m[2] != "0" {
		t.Errorf("over an older svc's build: want all built, none reused:\n%s", out)
	}
	if !regexp.MustCompile(`previous build not reused: built by another svc \(build version older, this one \S+\); every tile built again`).MatchString(out) {
		t.Errorf("the summary does not say why nothing was reused:\n%s", out)
	}
}

// rewriteFile writes b to the file p of a pack and its size and SHA-256
// into the pack's manifest, as if the pack had been committed so.
func rewriteFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(filepath.Dir(p), pack.ManifestName)
	raw, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	for _, f := range m["files"].([]any) {
		if f := f.(map[string]any); f["path"] == filepath.Base(p) {
			f["size"], f["sha256"] = len(b), hex.EncodeToString(sum[:])
		}
	}
	if raw, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
