package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestExport3TZ exports the demo 3D Tiles as 3TZ archives (the buildings
// of the Hessen bbox: one state; of a bbox over Germany: all five, under a
// root tileset; the Hessen buildings, terrain mesh and OSM cover themes)
// and judges them with the CesiumGS tools: the official 3D Tiles
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
		name, bbox, content string
		states              []string
		children            []string // more children of the root tileset
	}{
		{"one state", pmtilesBBox, "buildings", []string{"he"}, nil},
		{"five states", "5.8,47.2,15.1,55.1", "buildings", []string{"bb", "be", "he", "nrw", "sh"}, nil},
		{"buildings, terrain mesh and OSM cover", pmtilesBBox, "buildings,terrain-mesh,osm-cover", []string{"he"},
			[]string{"terrain-mesh/he/tileset.json", "osm-cover/he/surface/tileset.json", "osm-cover/he/transport/tileset.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			archive := filepath.Join(dir, "region.3tz")
			if out, err := run(context.Background(), "export", "3tz", "--data", data, "--bbox", c.bbox, "--content", c.content, archive); err != nil || !strings.Contains(out, "wrote ") {
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
			hasChild := func(uri string) bool {
				return slices.ContainsFunc(ts.Root.Children, func(ch struct{ Content struct{ URI string } }) bool { return ch.Content.URI == uri })
			}
			for _, uri := range c.children {
				if !hasChild(uri) {
					t.Fatalf("root tileset without %s: %s", uri, b)
				}
			}
			for _, st := range c.states {
				prefix := ""
				if len(c.states) > 1 || c.children != nil {
					prefix = "buildings/" + st + "/"
					if !hasChild(prefix + "tileset.json") {
						t.Fatalf("root tileset without %stileset.json: %s", prefix, b)
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
