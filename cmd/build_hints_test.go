package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildNamesMissingSource: a build without its source says what is
// missing and the import that makes it, for this data directory, instead
// of "no published LoD2 pack"; and the hint after an OSM import sends the
// user to the DGM import when the directory has none, to the build when
// it has one, and that build then works.
func TestBuildNamesMissingSource(t *testing.T) {
	dir := t.TempDir()
	osmFile := filepath.Join(dir, "good.osm")
	os.WriteFile(osmFile, []byte(`<?xml version="1.0"?><osm version="0.6">
<node id="1" version="1" lat="50.112" lon="8.682"/><node id="2" version="1" lat="50.112" lon="8.688"/>
<way id="1" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way></osm>`), 0o644)
	empty := t.TempDir()
	for _, tc := range []struct {
		build string
		want  string
	}{
		{"terrain-mesh", "no DGM (terrain) published for he in " + empty + ": import it with svc import dgm --data " + empty + " --bl he --snapshot YYYY-MM-DD --license ID FILE..."},
		{"osm-cover", "no OpenStreetMap extract published for he in " + empty + ": import it with svc import osm --data " + empty + " --bl he"},
		{"vegetation", "no vegetation (CDSM) published for he in " + empty + ": import it with svc import vegetation --data " + empty + " --bl he"},
		{"tileset", "no LoD2 buildings published for he in " + empty + ": import it with svc import lod2 --data " + empty + " --bl he"},
	} {
		t.Run(tc.build, func(t *testing.T) {
			out, err := runCLI(t, "build", tc.build, "--data", empty, "--bl", "he")
			if err == nil {
				t.Fatalf("built without a source:\n%s", out)
			}
			msg := errorText(err)
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "LoD2 pack") && tc.build != "tileset" {
				t.Errorf("message %q\nwant it to contain %q", msg, tc.want)
			}
		})
	}

	t.Run("osm without DGM", func(t *testing.T) {
		data := t.TempDir()
		out, err := runCLI(t, "import", "osm", "--data", data, "--bl", "he", "--snapshot", "2026-07-20", osmFile)
		if err != nil {
			t.Fatal(err)
		}
		want := "next: the cover is draped on the terrain and " + data + " has no DGM for he: import one with svc import dgm --data " + data + " --bl he"
		if !strings.Contains(out, want) {
			t.Errorf("hint:\n%s\nwant %q", out, want)
		}
		_, err = runCLI(t, "build", "osm-cover", "--data", data, "--bl", "he")
		if err == nil || !strings.Contains(errorText(err), "no DGM (terrain) published for he in "+data+": import it with svc import dgm") {
			t.Errorf("osm-cover without DGM: %v", err)
		}
	})
	t.Run("osm with DGM", func(t *testing.T) {
		data := heTerrain(t)
		out, err := runCLI(t, "import", "osm", "--data", data, "--bl", "he", "--snapshot", "2026-07-20", osmFile)
		if err != nil {
			t.Fatal(err)
		}
		next := "svc build osm-cover --data " + data + " --bl he"
		if !strings.Contains(out, "next: "+next+"\n") {
			t.Fatalf("hint:\n%s\nwant next: %s", out, next)
		}
		// The hint works as printed.
		if out, err := runCLI(t, strings.Fields(next)[1:]...); err != nil {
			t.Errorf("%s: %v\n%s", next, err, out)
		}
	})
}
