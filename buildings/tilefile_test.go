package buildings_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/demo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/pack"
)

// TestTileFileSameTiles: the tiles cut from a pack's tile file (the
// derived lod2.sqlite.tiles an import writes, docs/data-directory.md) are
// byte for byte the tiles cut from its search file and attribute rows, as
// a pack imported before the tile file is served, at every zoom from 12
// to 18 over the whole extent of each demo BL and of the real NRW and
// Berlin tiles (../shared samples: real footprints with a vertex every
// few decimetres, buildings without ground surface).
func TestTileFileSameTiles(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	for i, site := range demo.Sites {
		src := filepath.Join(data, "sources", site.BL)
		if err := demo.WriteLoD2Sources(src, i, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: site.BL, Snapshot: site.Snapshot, LicenseID: site.LicenseID},
			[]string{src}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct{ bl, rel string }{{"nrw", "samples/real/LoD2_32_280_5659_1_NW.gml"}, {"be", "samples/real/3910_5817.gml"}} {
		real := t.TempDir()
		if _, err := importer.LoD2(ctx, importer.Common{DataDir: real, BL: s.bl, Snapshot: "2026-01-01", LicenseID: "dl-de-zero-2.0"},
			[]string{testtool.Shared(t, s.rel)}); err != nil {
			t.Fatal(err)
		}
		t.Run("real-"+s.bl, func(t *testing.T) { sameTiles(t, s.bl, filepath.Join(real, "lod2", s.bl, "2026-01-01")) })
	}
	for _, site := range demo.Sites {
		t.Run("demo-"+site.BL, func(t *testing.T) { sameTiles(t, site.BL, filepath.Join(data, "lod2", site.BL, site.Snapshot)) })
	}
}

// sameTiles compares the tiles of the pack in dir with and without its
// tile file.
func sameTiles(t *testing.T, bl, dir string) {
	t.Helper()
	ctx := context.Background()
	m, err := pack.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	tileFile := importer.LoD2File + lod2store.TileFileSuffix
	if !m.Has(tileFile) || m.FileSHA256(tileFile) == "" {
		t.Fatalf("the manifest does not list %s with its SHA-256", tileFile)
	}
	withFile, err := lod2store.OpenPack(ctx, dir, m)
	if err != nil {
		t.Fatal(err)
	}
	defer withFile.Close()
	// The same pack without its tile file.
	old := t.TempDir()
	for _, name := range []string{importer.LoD2File, importer.LoD2File + lod2store.SearchFileSuffix} {
		if err := os.Link(filepath.Join(dir, name), filepath.Join(old, name)); err != nil {
			t.Fatal(err)
		}
	}
	without, err := lod2store.OpenLoD2(ctx, filepath.Join(old, importer.LoD2File))
	if err != nil {
		t.Fatal(err)
	}
	defer without.Close()
	if !withFile.HasTileFile() || without.HasTileFile() {
		t.Fatalf("tile file: %v with, %v without", withFile.HasTileFile(), without.HasTileFile())
	}
	src := func(s *lod2store.LoD2) *buildings.Tiler {
		return buildings.NewTiler([]lod2store.Source{{BL: bl, Pack: "lod2/" + bl, LoD2: s}})
	}
	a, b := src(withFile), src(without)
	bb := withFile.BBox()
	for z := buildings.TileMinZoom; z <= buildings.TileMaxZoom; z++ {
		n := math.Exp2(float64(z))
		tx := func(lon float64) int { return int((lon + 180) / 360 * n) }
		ty := func(lat float64) int { return int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n) }
		tiles, feats, roofs := 0, 0, 0
		for x := tx(bb.MinLon); x <= tx(bb.MaxLon); x++ {
			for y := ty(bb.MaxLat); y <= ty(bb.MinLat); y++ {
				ra, err := a.TileResult(ctx, z, x, y)
				if err != nil {
					t.Fatal(err)
				}
				rb, err := b.TileResult(ctx, z, x, y)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(ra.Data, rb.Data) || ra.Buildings != rb.Buildings || ra.Roofs != rb.Roofs || ra.BL != rb.BL {
					t.Fatalf("tile %d/%d/%d from the tile file (%d buildings, %d bytes) differs from the search's (%d buildings, %d bytes): %s",
						z, x, y, ra.Buildings, len(ra.Data), rb.Buildings, len(rb.Data), firstFeatureDiff(ra.Data, rb.Data))
				}
				if ra.Buildings > 0 {
					tiles++
				}
				feats += ra.Buildings
				roofs += ra.Roofs
			}
		}
		if tiles == 0 {
			t.Errorf("z%d: no tile with buildings", z)
		}
		t.Logf("z%d: %d tiles with buildings, %d building features, %d roof facets: equal", z, tiles, feats, roofs)
	}
}

// firstFeatureDiff names the first building feature that differs.
func firstFeatureDiff(a, b []byte) string {
	la, err := mvt.Decode(a)
	if err != nil {
		return err.Error()
	}
	lb, err := mvt.Decode(b)
	if err != nil {
		return err.Error()
	}
	if len(la) == 0 || len(lb) == 0 {
		return fmt.Sprintf("%d and %d layers", len(la), len(lb))
	}
	fa, fb := la[0].Features, lb[0].Features
	for i := range min(len(fa), len(fb)) {
		if fmt.Sprint(fa[i]) != fmt.Sprint(fb[i]) {
			return fmt.Sprintf("feature %d: %v\nagainst %v", i, fa[i], fb[i])
		}
	}
	return fmt.Sprintf("%d and %d features", len(fa), len(fb))
}

// BenchmarkTileFileZ15 cuts the four z15 tiles of BenchmarkBuildingTileZ15
// (server) from the Hesse demo site alone, imported once: cold tiles from
// the tile file and, as sub-benchmark search, from the same pack without it.
func BenchmarkTileFileZ15(b *testing.B) {
	ctx := context.Background()
	data := b.TempDir()
	site := demo.Sites[0]
	src := filepath.Join(data, "sources", site.BL)
	if err := demo.WriteLoD2Sources(src, 0, 1); err != nil {
		b.Fatal(err)
	}
	if _, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: site.BL, Snapshot: site.Snapshot, LicenseID: site.LicenseID}, []string{src}); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(data, "lod2", site.BL, site.Snapshot)
	old := b.TempDir()
	for _, name := range []string{importer.LoD2File, importer.LoD2File + lod2store.SearchFileSuffix} {
		if err := os.Link(filepath.Join(dir, name), filepath.Join(old, name)); err != nil {
			b.Fatal(err)
		}
	}
	var tiles [][3]int
	const z = 15
	n := math.Exp2(z)
	tx := func(lon float64) int { return int((lon + 180) / 360 * n) }
	ty := func(lat float64) int { return int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n) }
	for x := tx(8.6700); x <= tx(8.6840); x++ {
		for y := ty(50.1130); y <= ty(50.1040); y++ {
			tiles = append(tiles, [3]int{z, x, y})
		}
	}
	for _, c := range []struct{ name, path string }{{"file", dir}, {"search", old}} {
		b.Run(c.name, func(b *testing.B) {
			st, err := lod2store.OpenLoD2(ctx, filepath.Join(c.path, importer.LoD2File))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			tiler := buildings.NewTiler([]lod2store.Source{{BL: site.BL, Pack: "lod2/" + site.BL, LoD2: st}})
			feats := 0
			b.ReportAllocs()
			cpu0 := testtool.CPUTime()
			for b.Loop() {
				feats = 0
				for _, t := range tiles {
					r, err := tiler.TileResult(ctx, t[0], t[1], t[2])
					if err != nil {
						b.Fatal(err)
					}
					feats += r.Buildings
				}
			}
			nt := float64(b.N * len(tiles))
			b.ReportMetric(float64(testtool.CPUTime()-cpu0)/nt, "cpu-ns/tile")
			b.ReportMetric(float64(feats)/float64(len(tiles)), "buildings/tile")
		})
	}
}
