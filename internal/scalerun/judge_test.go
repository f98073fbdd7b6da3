package scalerun

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestValidatorJudgeSeesDefects: the validator judge reports what a user's
// validator run would, on a product whose tileset JSON is fine but whose
// content files are broken binary glTF, and on one whose tileset JSON is broken (a
// negative geometric error); both in the full mode and in the sampled mode
// (tileset JSON whole, a sample of the content), where the broken content
// file is one of those sampled.
func TestValidatorJudgeSeesDefects(t *testing.T) {
	validate0 := testtool.TilesValidator(t)
	node := testtool.Require(t, "node", "apt-get install nodejs npm")
	j := Judges{Validator: filepath.Dir(validate0), Node: node}
	data := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(data, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const region = `{"region":[0.13,0.89,0.131,0.891,0,100]}`
	write("badcontent/tileset.json", `{"asset":{"version":"1.1"},"geometricError":100,"root":{"boundingVolume":`+region+`,"geometricError":10,"refine":"ADD","children":[
	{"boundingVolume":`+region+`,"geometricError":0,"content":{"uri":"tiles/a.glb"}},
	{"boundingVolume":`+region+`,"geometricError":0,"content":{"uri":"tiles/b.glb"}}]}}`)
	// The glTF magic and version, then a length and chunks that are not.
	write("badcontent/tiles/a.glb", "glTF\x02\x00\x00\x00\xff\x00\x00\x00 no chunks here")
	write("badcontent/tiles/b.glb", "glTF\x02\x00\x00\x00\x10\x00\x00\x00 nor here")
	write("badjson/tileset.json", `{"asset":{"version":"1.1"},"geometricError":-1,"root":{"boundingVolume":`+region+`,"geometricError":-5,"refine":"ADD"}}`)
	products := []TSInfo{{Product: "badcontent"}, {Product: "badjson"}}
	for _, sample := range []int{0, 1} {
		j.SampleContent = sample
		var rep JudgeReport
		if err := validate(context.Background(), j, data, products, &rep); err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Products {
			t.Logf("sample %d: %s: %d errors, %d of %d content files: %q", sample, p.Product, p.ValidatorErrors, p.ContentValidated, p.ContentFiles, p.ValidatorIssues)
			if !p.Validated || p.ValidatorErrors == 0 || len(p.ValidatorIssues) == 0 {
				t.Errorf("sample %d: %s: validated %v with %d errors, want the defect reported", sample, p.Product, p.Validated, p.ValidatorErrors)
			}
		}
		if c := rep.Products[0]; sample == 1 && (c.ContentValidated != 1 || c.ContentFiles != 2) {
			t.Errorf("sampled mode validated %d of %d content files, want 1 of 2", c.ContentValidated, c.ContentFiles)
		}
	}
}

func TestEvenly(t *testing.T) {
	files := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	for _, c := range []struct {
		n    int
		want []string
	}{{1, []string{"0"}}, {2, []string{"0", "9"}}, {4, []string{"0", "3", "6", "9"}}, {10, files}, {20, files}} {
		if got := evenly(files, c.n); !slices.Equal(got, c.want) {
			t.Errorf("evenly(10 files, %d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestFindJudgesAbsolute: make bench-scale passes ../shared relative to
// the repository; the validator's modules are required from a temporary
// script, so FindJudges must hand back absolute paths (a relative one made
// node fail with "Cannot find module").
func TestFindJudgesAbsolute(t *testing.T) {
	shared := testtool.Shared(t, ".")
	root, _ := testtool.ModuleRoot()
	rel, err := filepath.Rel(mustGetwd(t), shared)
	if err != nil {
		t.Fatal(err)
	}
	j := FindJudges(root, rel)
	if j.Validator == "" {
		t.Skipf("validator not found: %s", j.SkipValidator)
	}
	if !filepath.IsAbs(j.Validator) {
		t.Errorf("FindJudges(%q) gave the validator %q, want an absolute path", rel, j.Validator)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
