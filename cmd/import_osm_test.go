package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
)

// heTerrain imports one 1 km DGM tile of Frankfurt (he) into a new data
// directory, so imports into he have an extent to clip to.
func heTerrain(t *testing.T) string {
	t.Helper()
	nd := -9999.0
	g := raster.Grid{Width: 100, Height: 100, Data: make([]float32, 100*100), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{477000, 10, 0, 5552000, 0, -10}}
	for i := range g.Data {
		g.Data[i] = 100
	}
	var buf bytes.Buffer
	if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "dgm1_32_477_5551.tif")
	os.WriteFile(src, buf.Bytes(), 0o644)
	data := t.TempDir()
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, []string{src}); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestImportOSMMistakes: every bad extract gets one line naming the file
// and what is wrong, leaves no osm pack or partial directory behind, and a
// previously imported snapshot stays published.
func TestImportOSMMistakes(t *testing.T) {
	helgoland := testtool.Shared(t, "samples/osm/helgoland.osm.pbf")
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	raw, _ := os.ReadFile(helgoland)
	truncated := write("cut.osm.pbf", string(raw[:4000]))
	text := write("notes.osm.pbf", "these are my notes, not an extract\n")
	nodes := write("nodes.osm", `<?xml version="1.0"?><osm version="0.6"><node id="1" version="1" lat="50.11" lon="8.67"/></osm>`)
	good := write("good.osm", `<?xml version="1.0"?><osm version="0.6">
<node id="1" version="1" lat="50.112" lon="8.682"/><node id="2" version="1" lat="50.112" lon="8.688"/>
<way id="1" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way></osm>`)
	for _, tc := range []struct {
		name, file string
		mentions   []string
	}{
		{"missing file", filepath.Join(dir, "nope.osm.pbf"), []string{"nope.osm.pbf"}},
		{"not an extract", text, []string{"notes.osm.pbf", "not a readable OSM file"}},
		{"truncated PBF", truncated, []string{"cut.osm.pbf", "not a readable OSM file", "truncated"}},
		{"only nodes", nodes, []string{"nodes.osm", "holds no way"}},
		{"another state's extract", helgoland, []string{"helgoland.osm.pbf lies in Schleswig-Holstein (sh), not in Hessen (he)", "use --bl sh", "--force"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := heTerrain(t)
			if _, err := runCLI(t, "import", "osm", "--data", data, "--bl", "he", "--snapshot", "2026-07-01", good); err != nil {
				t.Fatalf("first import: %v", err)
			}
			out, err := runCLI(t, "import", "osm", "--data", data, "--bl", "he", "--snapshot", "2026-07-20", tc.file)
			if err == nil {
				t.Fatalf("accepted:\n%s", out)
			}
			msg := errorText(err)
			for _, m := range tc.mentions {
				if !strings.Contains(msg, m) {
					t.Errorf("error lacks %q: %s", m, msg)
				}
			}
			if strings.Count(strings.TrimSpace(msg), "\n") > 0 || strings.Contains(msg, "osmdata:") || strings.Contains(msg, "importer:") {
				t.Errorf("not one plain line: %q", msg)
			}
			entries, _ := os.ReadDir(filepath.Join(data, "osm", "he"))
			if len(entries) != 1 || entries[0].Name() != "2026-07-01" {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("osm/he holds %v, want only the earlier snapshot", names)
			}
		})
	}
	t.Run("a good extract", func(t *testing.T) {
		data := heTerrain(t)
		out, err := runCLI(t, "import", "osm", "--data", data, "--bl", "he", "--snapshot", "2026-07-20", good)
		if err != nil || !strings.Contains(out, "imported osm/he/2026-07-20: 1 features") || !strings.Contains(out, "next: svc build osm-cover") {
			t.Fatalf("%v\n%s", err, out)
		}
		out, err = runCLI(t, "build", "osm-cover", "--data", data, "--bl", "he")
		if err != nil || !strings.Contains(out, "built osm-cover/he/2026-07-20") || !strings.Contains(out, "transport 1 tiles") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
}

// TestImportOSMClipsToState: a genuine Bavarian extract (Lauf) imports as
// by although the packs published for by lie elsewhere (a DGM tile in
// Munich): the extract is judged by the state's boundary, not by the
// published extent. As another state it is refused, naming Bayern.
func TestImportOSMClipsToState(t *testing.T) {
	lauf := testtool.Shared(t, "samples/osm/lauf-200115.osm.pbf")
	data := t.TempDir()
	e, n := utm(25832, 11.5755, 48.1374) // München
	munich := rasterFixture{25832, e, n, hills}.write(t, t.TempDir(), "dgm1_32_muc.tif")
	if out, err := runCLI(t, "import", "dgm", "--data", data, "--bl", "by", "--snapshot", "2026-01-01", "--license", "cc-by-4.0", munich); err != nil {
		t.Fatalf("DGM: %v\n%s", err, out)
	}
	out, err := runCLI(t, "import", "osm", "--data", data, "--bl", "by", "--snapshot", "2026-01-02", lauf)
	if err != nil {
		t.Fatalf("Lauf as by: %v\n%s", err, out)
	}
	var features, outside int
	summary := out[strings.Index(out, "imported osm/"):] // after the progress lines
	if _, err := fmt.Sscanf(summary[strings.Index(summary, ": ")+2:], "%d features", &features); err != nil || features < 3000 {
		t.Errorf("Lauf as by kept %d features (%v):\n%s", features, err, out)
	}
	fmt.Sscanf(out[strings.Index(out, "missing members, ")+len("missing members, "):], "%d outside", &outside)
	if outside != 0 {
		t.Errorf("%d features of Lauf counted outside Bayern:\n%s", outside, out)
	}
	out, err = runCLI(t, "import", "osm", "--data", t.TempDir(), "--bl", "he", "--snapshot", "2026-01-02", lauf)
	if err == nil || !strings.Contains(errorText(err), "lauf-200115.osm.pbf lies in Bayern (by), not in Hessen (he); use --bl by") {
		t.Errorf("Lauf as he: %v\n%s", err, out)
	}
}
