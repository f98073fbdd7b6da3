package cmd

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// BenchmarkStartup16BL measures what `svc serve` does before it answers:
// scanning the data directory and opening one LoD2 pack per federal state,
// 16 packs with 1M surfaces in all (10,500 box buildings of 6 surfaces each).
func BenchmarkStartup16BL(b *testing.B) {
	data := b.TempDir()
	for i, st := range bl.All() {
		writeBoxPack(b, data, st, 10500, uint64(i))
	}
	b.ResetTimer()
	for b.Loop() {
		cat := catalog.New(catalogOptions(data))
		v, err := cat.Reload(context.Background())
		if err != nil || v.BLCount(pack.LoD2) != 16 {
			b.Fatalf("published %d: %v %v", v.BLCount(pack.LoD2), err, v.Problems)
		}
		cat.Close()
	}
}

func writeBoxPack(b *testing.B, data string, st bl.State, n int, seed uint64) {
	b.Helper()
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: st.Code, Snapshot: "2026-07-20"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(context.Background(), filepath.Join(w.Dir(), "lod2.sqlite"), st.EPSG)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		x, y := 400000+rng.Float64()*4000, 5600000+rng.Float64()*4000
		if err := lw.Add(context.Background(), lod2store.BuildingInput{GMLID: fmt.Sprintf("%s%08d", st.IDPrefix, i), Valid: true,
			Surfaces: fixture.Box(x, y, 10, 8, 50, 9)}); err != nil {
			b.Fatal(err)
		}
	}
	stats, err := lw.Finish(context.Background(), map[string]string{"bl": st.Code})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Commit(context.Background(), pack.Manifest{LicenseID: "cc-by-4.0", LoD2: &pack.LoD2Info{File: "lod2.sqlite",
		BuildingCount: stats.Buildings, SurfaceCount: stats.Surfaces}}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStartup10kCOGs measures start-up on a data directory with a
// terrain pack per federal state, 10,000 DGM COG tiles in all (16 x 625):
// opentopodata's users report slow starts with many files, so svc must be
// ready in under a second here (it reads each pack's tile index, not the
// tiles).
func BenchmarkStartup10kCOGs(b *testing.B) {
	data := b.TempDir()
	for _, st := range bl.All() {
		writeCOGPack(b, data, st, 25)
	}
	b.ResetTimer()
	for b.Loop() {
		cat := catalog.New(catalogOptions(data))
		v, err := cat.Reload(context.Background())
		if err != nil || v.BLCount(pack.Terrain) != 16 {
			b.Fatalf("published %d: %v %v", v.BLCount(pack.Terrain), err, v.Problems)
		}
		cat.Close()
	}
	b.ReportMetric(16*25*25, "tiles")
}

// writeCOGPack writes a terrain pack of side x side small DGM COGs (1 km
// tiles of 32 x 32 pixels: the tile count matters here, not the size).
func writeCOGPack(b *testing.B, data string, st bl.State, side int) {
	b.Helper()
	w, err := pack.Create(data, pack.Key{Product: pack.Terrain, BL: st.Code, Snapshot: "2026-07-20"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	if err := os.MkdirAll(filepath.Join(w.Dir(), "tiles"), 0o755); err != nil {
		b.Fatal(err)
	}
	const px = 32
	tiles := make([]terrain.Tile, side*side)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for k := range tiles {
		e, n := 400000+1000*float64(k/side), 5600000+1000*float64(k%side)
		name := fmt.Sprintf("dgm1_%d_%d", int(e/1000), int(n/1000))
		rel := "tiles/" + name + ".tif"
		tiles[k] = terrain.Tile{Name: name, Path: rel, BBox: [4]float64{e, n, e + 1000, n + 1000}, PixelM: 1000.0 / px}
		g.Go(func() error { // the COG writer is slow for tiny grids: write in parallel
			grid := raster.Grid{Width: px, Height: px, Data: make([]float32, px*px), EPSG: st.EPSG,
				GeoTransform: [6]float64{e, 1000.0 / px, 0, n + 1000, 0, -1000.0 / px}}
			for i := range grid.Data {
				grid.Data[i] = float32(100 + i%px)
			}
			var buf bytes.Buffer
			if err := raster.WriteCOG(&buf, grid, raster.WriteOptions{}); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(w.Dir(), rel), buf.Bytes(), 0o644)
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	if err := terrain.WriteIndex(filepath.Join(w.Dir(), "index.json"), terrain.Index{EPSG: st.EPSG, Layers: map[string][]terrain.Tile{terrain.LayerDGM: tiles}}); err != nil {
		b.Fatal(err)
	}
	_, err = w.Commit(context.Background(), pack.Manifest{LicenseID: "cc-by-4.0", CRS: fmt.Sprintf("EPSG:%d", st.EPSG),
		Terrain: &pack.TerrainInfo{Format: "GeoTIFF (COG)", Source: "convert", TileCount: int64(len(tiles)), VerticalDatum: "DHHN2016", Index: "index.json"}})
	if err != nil {
		b.Fatal(err)
	}
}
