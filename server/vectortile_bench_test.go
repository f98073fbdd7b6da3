package server

import (
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
)

// reportTiles reports tiles/s (wall) and the CPU time per tile since cpu0,
// which the other engineers' load on the shared machine does not change,
// and what it makes per core: tiles per CPU second.
func reportTiles(b *testing.B, perOp int, cpu0 time.Duration) {
	n := float64(b.N * perOp)
	cpu := float64(testtool.CPUTime()-cpu0) / n
	b.ReportMetric(n/b.Elapsed().Seconds(), "tiles/s")
	b.ReportMetric(cpu, "cpu-ns/tile")
	b.ReportMetric(1e9/cpu, "tiles/cpu-s")
}

// benchTilesZ15 are the z15 tiles meeting the densest demo km² (the box of
// BenchmarkSearchHandler, in the Hesse demo town).
func benchTilesZ15() [][3]int {
	const z = 15
	n := math.Exp2(z)
	tx := func(lon float64) int { return int((lon + 180) / 360 * n) }
	ty := func(lat float64) int { return int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n) }
	var out [][3]int
	for x := tx(8.6700); x <= tx(8.6840); x++ {
		for y := ty(50.1130); y <= ty(50.1040); y++ {
			out = append(out, [3]int{z, x, y})
		}
	}
	return out
}

// BenchmarkBuildingTileZ15 cuts the z15 building vector tiles of the
// densest demo km²: cold is buildings.Tiler.Tile itself (no tile cache:
// search, attributes, projection, clipping, encoding), warm the whole
// handler chain answering from the tile cache (gzip asked for).
func BenchmarkBuildingTileZ15(b *testing.B) {
	cat, err := demoCatalog()
	if err != nil {
		b.Fatal(err)
	}
	tiles := benchTilesZ15()
	v, release := cat.Acquire()
	defer release()
	srcs := buildings.Sources(v)
	cold := func(b *testing.B, tiler *buildings.Tiler) {
		feats := 0
		b.ReportAllocs()
		cpu0 := testtool.CPUTime()
		for b.Loop() {
			feats = 0
			for _, t := range tiles {
				r, err := tiler.TileResult(b.Context(), t[0], t[1], t[2])
				if err != nil {
					b.Fatal(err)
				}
				feats += r.Buildings
			}
		}
		reportTiles(b, len(tiles), cpu0)
		b.ReportMetric(float64(feats)/float64(len(tiles)), "buildings/tile")
	}
	// cold: from the packs' tile files; cold-search: the same packs
	// without them (as packs imported before the tile file are served).
	b.Run("cold", func(b *testing.B) { cold(b, buildings.NewTiler(srcs)) })
	b.Run("cold-search", func(b *testing.B) {
		var old []lod2store.Source
		for _, s := range srcs {
			dir := b.TempDir()
			for _, name := range []string{importer.LoD2File, importer.LoD2File + lod2store.SearchFileSuffix} {
				if err := os.Link(filepath.Join(demoDataDir, filepath.FromSlash(s.Pack), name), filepath.Join(dir, name)); err != nil {
					b.Fatal(err)
				}
			}
			st, err := lod2store.OpenLoD2(b.Context(), filepath.Join(dir, importer.LoD2File))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			s.LoD2 = st
			old = append(old, s)
		}
		cold(b, buildings.NewTiler(old))
	})
	b.Run("warm", func(b *testing.B) {
		ts, err := demoServer()
		if err != nil {
			b.Fatal(err)
		}
		h := ts.Config.Handler
		get := func(t [3]int) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("GET", fmt.Sprintf("/v1/buildings/tiles/%d/%d/%d.mvt", t[0], t[1], t[2]), nil)
			req.Header.Set("Accept-Encoding", "gzip")
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("%v: %d", t, rec.Code)
			}
		}
		for _, t := range tiles {
			get(t)
		}
		b.ReportAllocs()
		cpu0 := testtool.CPUTime()
		for b.Loop() {
			for _, t := range tiles {
				get(t)
			}
		}
		reportTiles(b, len(tiles), cpu0)
	})
}
