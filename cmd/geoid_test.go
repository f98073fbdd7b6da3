package cmd

import (
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geoid"
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
