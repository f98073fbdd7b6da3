package importer

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/tiles3d"
)

// TestTilesetAfterIncrementalLoD2Import imports the real NRW tile cut into
// 20 files, builds its tileset, changes one file (its first building
// raised by 1 m) and imports and builds the next snapshot: the building tileset keys
// its leaves by the pack's source files, so only leaves with a building of
// the changed file have their geometry read, at least one leaf is built
// and the others are linked, and the tileset is the same bytes as a build
// from scratch of the same pack.
func TestTilesetAfterIncrementalLoD2Import(t *testing.T) {
	requireSample(t, sampleNRW)
	src := t.TempDir()
	paths, _ := splitSample(t, sampleNRW, src, splitOptions{Parts: 4, Replicas: 5})
	data, fresh := t.TempDir(), t.TempDir()
	ctx := context.Background()
	importBuild := func(data, snap string, st *tiles3d.BuildStats) {
		t.Helper()
		c := Common{DataDir: data, BL: "nrw", Snapshot: snap, LicenseID: "dl-de-zero-2.0", Workers: 2}
		if _, err := LoD2(ctx, c, []string{src}); err != nil {
			t.Fatal(err)
		}
		if _, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: data, BL: "nrw", MaxPerTile: 8, Workers: 2, Stats: st}); err != nil {
			t.Fatal(err)
		}
	}
	var first tiles3d.BuildStats
	importBuild(data, "2026-01-01", &first)
	leaves := first.Built.Load()
	if leaves < 10 {
		t.Fatalf("%d leaves; the test needs more", leaves)
	}
	os.WriteFile(paths[7], raiseFirstBuilding(t, paths[7]), 0o644)

	var st tiles3d.BuildStats
	importBuild(data, "2027-01-01", &st)
	b, r, read := st.Built.Load(), st.Reused.Load(), st.Read.Load()
	t.Logf("1 of 20 files changed: %d of %d leaves built, %d reused, geometry of %d read", b, b+r, r, read)
	if b == 0 || r == 0 || b+r != leaves || read < b || read >= leaves/2 {
		t.Errorf("%d built, %d reused, %d read of %d leaves; want some built, the rest linked, fewer than half read", b, r, read, leaves)
	}
	// The new pack patches the previous one, so the changed file's
	// buildings have other ids than a full import gives them (tiles carry
	// building_id): compare with a build from scratch of the same pack.
	pk := filepath.Join("lod2", "nrw", "2027-01-01")
	if err := os.CopyFS(filepath.Join(fresh, pk), os.DirFS(filepath.Join(data, pk))); err != nil {
		t.Fatal(err)
	}
	if _, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: fresh, BL: "nrw", MaxPerTile: 8, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("buildings", "nrw", "2027-01-01")
	testtool.SameTrees(t, "incremental vs fresh tileset", testtool.TreeSums(t, filepath.Join(data, dir)), testtool.TreeSums(t, filepath.Join(fresh, dir)))
}

// raiseFirstBuilding returns the CityGML file at path with the heights of
// its first building's coordinates 1 m higher (its footprint, and so the
// quadtree, unchanged).
func raiseFirstBuilding(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "<core:cityObjectMember>")
	j := strings.Index(s, "</core:cityObjectMember>")
	if i < 0 || j < i {
		t.Fatalf("%s: no building", path)
	}
	list := regexp.MustCompile(`(<gml:posList[^>]*>)([^<]*)`)
	member := list.ReplaceAllStringFunc(s[i:j], func(m string) string {
		g := list.FindStringSubmatch(m)
		f := strings.Fields(g[2])
		for k := 2; k < len(f); k += 3 {
			z, err := strconv.ParseFloat(f[k], 64)
			if err != nil {
				t.Fatal(err)
			}
			f[k] = strconv.FormatFloat(z+1, 'f', -1, 64)
		}
		return g[1] + strings.Join(f, " ")
	})
	return []byte(s[:i] + member + s[j:])
}
