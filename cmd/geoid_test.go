package cmd

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/pack"
)

// TestGeoidFlag: --geoid takes the names of the embedded models (any case)
// or a grid file; without it the builds use GCG2016 (nil: tiles3d's
// default); an unknown name is a file that does not exist, and the command
// stops saying so before anything is built.
func TestGeoidFlag(t *testing.T) {
	for name, want := range map[string]*geoid.Model{"": nil, "gcg2016": geoid.Default(), "EGM96": geoid.EGM96()} {
		if m, err := loadGeoid(name); err != nil || m != want {
			t.Errorf("--geoid %q: %v, %v", name, m, err)
		}
	}
	if geoid.Default().ID() != geoid.IDGCG2016 {
		t.Errorf("default model %q", geoid.Default().ID())
	}
	out, err := runCLI(t, "build", "tileset", "--data", t.TempDir(), "--bl", "he", "--geoid", "egm2008")
	if err == nil || !strings.Contains(err.Error(), "--geoid egm2008") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("unknown model: %v\n%s", err, out)
	}
}

// TestServeWarnsOfOtherHeightModel: served with --geoid egm96, the demo's
// 3D packs (built on GCG2016) would sit off the quantized-mesh terrain:
// svc serve says so for each, naming the pack, both models and the fix;
// served with the default it says nothing.
func TestServeWarnsOfOtherHeightModel(t *testing.T) {
	cat := catalog.New(catalogOptions(demoData(t)))
	defer cat.Close()
	v, err := cat.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	if n := warnHeightModels(log, v, nil); n != 0 {
		t.Errorf("default model: %d warnings\n%s", n, buf.String())
	}
	egm, _ := loadGeoid("egm96")
	n := warnHeightModels(log, v, egm)
	want := len(v.Packs(pack.Buildings3D)) + len(v.Packs(pack.TerrainMesh)) + len(v.Packs(pack.OSMCover)) + len(v.Packs(pack.Vegetation))
	if n != want || want < 10 || !strings.Contains(buf.String(), "buildings/he/") || !strings.Contains(buf.String(), "rebuild it (svc build)") ||
		!strings.Contains(buf.String(), geoid.IDGCG2016) || !strings.Contains(buf.String(), geoid.IDEGM96) {
		t.Errorf("%d warnings for %d 3D packs:\n%s", n, want, buf.String())
	}
}
