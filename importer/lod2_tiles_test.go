package importer

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/pack"
)

// checkTilesLikeFull checks the vector tiles of the LoD2 pack at inc (a
// re-import, patched or not) against a full import's at full, at every
// zoom over the pack's extent: inc has its tile file, listed in its
// manifest and intact; its tiles equal, byte for byte, those of the same
// pack without the tile file (the search path); and they hold the full
// import's buildings (by gml:id) with the same attributes and geometry,
// the building ids aside (a patch numbers the rows it writes anew after
// the previous snapshot's).
func checkTilesLikeFull(t *testing.T, bl, inc, full string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Dir(inc)
	m, err := pack.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if name := LoD2File + lod2store.TileFileSuffix; !m.Has(name) {
		t.Fatalf("the re-import's manifest does not list %s", name)
	}
	if dmg, err := pack.Verify(ctx, dir, m); err != nil || len(dmg) > 0 {
		t.Fatalf("re-imported pack: %v %v", dmg, err)
	}
	open := func(path string, tileFile bool) *buildings.Tiler {
		s, err := lod2store.OpenLoD2(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if s.HasTileFile() != tileFile {
			t.Fatalf("%s: tile file %v, want %v", path, s.HasTileFile(), tileFile)
		}
		return buildings.NewTiler([]lod2store.Source{{BL: bl, Pack: "lod2/" + bl, LoD2: s}})
	}
	searchDir := filepath.Join(t.TempDir(), "search")
	os.MkdirAll(searchDir, 0o755)
	for _, name := range []string{LoD2File, LoD2File + lod2store.SearchFileSuffix} {
		if err := os.Link(filepath.Join(dir, name), filepath.Join(searchDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	a, s, f := open(inc, true), open(filepath.Join(searchDir, LoD2File), false), open(full, true)
	bb := m.BBoxWGS84
	feats := 0
	for z := buildings.TileMinZoom; z <= buildings.TileMaxZoom; z++ {
		n := math.Exp2(float64(z))
		tx := func(lon float64) int { return int((lon + 180) / 360 * n) }
		ty := func(lat float64) int { return int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n) }
		for x := tx(bb[0]); x <= tx(bb[2]); x++ {
			for y := ty(bb[3]); y <= ty(bb[1]); y++ {
				ta, err := a.Tile(ctx, z, x, y)
				if err != nil {
					t.Fatal(err)
				}
				ts, err := s.Tile(ctx, z, x, y)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(ta, ts) {
					t.Fatalf("tile %d/%d/%d: the re-import's tile file gives another tile than its search file", z, x, y)
				}
				tf, err := f.Tile(ctx, z, x, y)
				if err != nil {
					t.Fatal(err)
				}
				ka, kb := tileFeatures(t, ta), tileFeatures(t, tf)
				if d := firstStringDiff(ka, kb); d != "" {
					t.Fatalf("tile %d/%d/%d differs from the full import's: %s", z, x, y, d)
				}
				feats += len(ka)
			}
		}
	}
	if feats == 0 {
		t.Fatal("no building in any tile")
	}
}

// tileFeatures lists each feature of a tile without its ids (building
// and surface), sorted.
func tileFeatures(t *testing.T, data []byte) []string {
	t.Helper()
	layers, err := mvt.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range layers {
		for _, f := range l.Features {
			delete(f.Props, "building_id")
			delete(f.Props, "surface_id")
			out = append(out, fmt.Sprintf("%s %v %v", l.Name, f.Props, f.Parts))
		}
	}
	slices.Sort(out)
	return out
}

func firstStringDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%s\nagainst %s", a[i], b[i])
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d features against %d", len(a), len(b))
	}
	return ""
}
