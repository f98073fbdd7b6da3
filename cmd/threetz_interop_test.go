package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestExport3TZ exports the demo building 3D Tiles as 3TZ archives (the
// Hessen bbox: one state; a bbox over Germany: all five, under a root
// tileset) and judges them with the CesiumGS tools: the official 3D Tiles
// validator reads the archive through its index (0 errors, 0 warnings,
// "Zip index is valid"), and 3d-tiles-tools `convert` unpacks it into a
// tileset whose content files are byte for byte the pack's.
func TestExport3TZ(t *testing.T) {
	validate := testtool.TilesValidator(t)
	node := testtool.Require(t, "node", "apt-get install nodejs npm")
	tools := filepath.Join(filepath.Dir(validate), "node_modules", "3d-tiles-tools", "build", "src", "cli.mjs")
	if _, err := os.Stat(tools); err != nil {
		t.Fatalf("3d-tiles-tools of the validator's install: %v", err)
	}
	data := demoData(t)
	for _, c := range []struct {
		name, bbox string
		states     []string
	}{{"one state", pmtilesBBox, []string{"he"}}, {"five states", "5.8,47.2,15.1,55.1", []string{"bb", "be", "he", "nrw", "sh"}}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			archive := filepath.Join(dir, "region.3tz")
			if out, err := run(context.Background(), "export", "3tz", "--data", data, "--bbox", c.bbox, archive); err != nil || !strings.Contains(out, "wrote ") {
				t.Fatalf("export 3tz: %v\n%s", err, out)
			}
			out, err := exec.Command(validate, archive).CombinedOutput()
			if err != nil || !strings.Contains(string(out), `"numWarnings": 0`) || !strings.Contains(string(out), "Zip index is valid") {
				t.Fatalf("validator: %v\n%.3000s", err, out)
			}
			unpacked := filepath.Join(dir, "unpacked")
			if out, err := exec.Command(node, tools, "convert", "-i", archive, "-o", unpacked).CombinedOutput(); err != nil {
				t.Fatalf("3d-tiles-tools convert: %v\n%s", err, out)
			}
			var ts struct {
				Root struct {
					Content  *struct{ URI string }
					Children []struct{ Content struct{ URI string } }
				}
			}
			b, err := os.ReadFile(filepath.Join(unpacked, "tileset.json"))
			if err != nil || json.Unmarshal(b, &ts) != nil {
				t.Fatalf("unpacked tileset.json: %v", err)
			}
			for _, st := range c.states {
				prefix := ""
				if len(c.states) > 1 {
					prefix = st + "/"
					found := false
					for _, ch := range ts.Root.Children {
						found = found || ch.Content.URI == st+"/tileset.json"
					}
					if !found {
						t.Fatalf("root tileset without %s/tileset.json: %s", st, b)
					}
				}
				packGLBs, _ := filepath.Glob(filepath.Join(data, "buildings", st, "*", "tiles", "*.glb"))
				if len(packGLBs) == 0 {
					t.Fatalf("no glb in the %s pack", st)
				}
				for _, g := range packGLBs {
					want, _ := os.ReadFile(g)
					got, err := os.ReadFile(filepath.Join(unpacked, prefix+"tiles", filepath.Base(g)))
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("%s: unpacked %d bytes (%v), pack %d", g, len(got), err, len(want))
					}
				}
			}
		})
	}
}
