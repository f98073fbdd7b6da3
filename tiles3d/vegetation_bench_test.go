package tiles3d_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
	"github.com/svc-geodata/svc/tiles3d"
)

// forest is a dense synthetic CDSM like the demo's: crowns of 5 m radius
// on a 10 m lattice over the northern half of the tile.
func forest(c, r int) float32 {
	if r >= tilePx/2 {
		return nodataV
	}
	e, n := float64(c)+0.5, float64(r)+0.5
	ce, cn := math.Floor(e/10)*10+5, math.Floor(n/10)*10+5
	d := math.Hypot(e-ce, n-cn)
	if d >= 5 {
		return nodataV
	}
	h := 12 + 10*math.Abs(math.Sin(ce*0.37+cn*0.11))
	return float32(h * (1 - 0.3*(d/5)*(d/5)))
}

// BenchmarkWriteVegetation builds the trees and plantcover of one 1 km
// forest tile (about 5,000 trees) on the relief DGM.
func BenchmarkWriteVegetation(b *testing.B) {
	data, src := b.TempDir(), b.TempDir()
	p := writeGrid(b, src, "dgm1.tif", tilePx, tileN, relief)
	dgmPack(b, data, p)
	f := writeGrid(b, src, "cdsm.tif", tilePx, tileN, forest)
	dir := filepath.Dir(f)
	tiles := []terrain.Tile{{Name: "cdsm", Path: "cdsm.tif", BBox: [4]float64{tileE, tileN, tileE + tilePx, tileN + tilePx}, PixelM: 1}}
	o := tiles3d.VegetationOptions{DataDir: data, BL: "he", Snapshot: "2026-07-20", Zone: 32, Tiles: tiles, Workers: 1}
	b.ReportAllocs()
	var res tiles3d.VegetationResult
	for b.Loop() {
		var err error
		if res, err = tiles3d.WriteVegetation(context.Background(), dir, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tiles/s")
	b.ReportMetric(float64(res.Trees), "trees/tile")
	if res.TerrainSnapshot == "" || res.Themes[0].Name != tiles3d.ThemeTrees {
		b.Fatalf("result %+v", res)
	}
	_ = pack.Vegetation
}
