package importer

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
)

// Frankfurt (he), EPSG:25832: the south-west corner of the test tiles.
const heE, heN = 477000.0, 5550000.0

// dgmHeight is a hilly DGM around 120 m; seed varies it per snapshot.
func dgmHeight(x, y, seed float64) float32 {
	return float32(120 + 15*math.Sin(x/97+seed)*math.Cos(y/131) + 3*math.Sin((x+2*y)/23))
}

// canopyHeight is a CDSM of round crowns on a 40 m lattice, NoData
// between them.
func canopyHeight(x, y, seed float64) float32 {
	cx, cy := math.Round(x/40)*40, math.Round(y/40)*40
	r := 6 + 3*math.Sin(cx/57+cy/91+seed)
	if d := math.Hypot(x-cx, y-cy); d < r {
		return float32(12 + 6*math.Sin(cx/33+seed) - 4*(d/r)*(d/r))
	}
	return -9999
}

// rasterTiles writes nx x ny 1 km tiles of f as GeoTIFFs named
// <prefix>_<e>_<n>.tif into dir, their pixel sizes 2, 4 or 5 m so the
// tiles take unequal times; every third tile is an XYZ file instead.
func rasterTiles(t testing.TB, dir, prefix string, nx, ny int, seed float64, f func(x, y, seed float64) float32) []string {
	return rasterTilesOf(t, dir, prefix, nx, ny, seed, f, []float64{2, 4, 5})
}

// rasterTilesOf is rasterTiles with the pixel sizes cycling through pix.
func rasterTilesOf(t testing.TB, dir, prefix string, nx, ny int, seed float64, f func(x, y, seed float64) float32, pix []float64) []string {
	t.Helper()
	var out []string
	k := 0
	for i := range nx {
		for j := range ny {
			e, n := heE+float64(i)*1000, heN+float64(j)*1000
			pix := pix[k%len(pix)]
			px := int(1000 / pix)
			nd := -9999.0
			g := raster.Grid{Width: px, Height: px, Data: make([]float32, px*px), EPSG: 25832, Nodata: &nd,
				GeoTransform: [6]float64{e, pix, 0, n + 1000, 0, -pix}}
			for r := range px {
				for c := range px {
					g.Data[r*px+c] = f(e+(float64(c)+0.5)*pix, n+1000-(float64(r)+0.5)*pix, seed)
				}
			}
			name := fmt.Sprintf("%s_%d_%d", prefix, int(e/1000), int(n/1000))
			var b bytes.Buffer
			if k%3 == 2 {
				name += ".xyz"
				for r := range px {
					for c := range px {
						if v := g.Data[r*px+c]; v != -9999 {
							fmt.Fprintf(&b, "%.1f %.1f %.3f\n", e+(float64(c)+0.5)*pix, n+1000-(float64(r)+0.5)*pix, v)
						}
					}
				}
			} else {
				name += ".tif"
				if err := raster.WriteCOG(&b, g, raster.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
			k++
		}
	}
	return out
}

// TestRasterImportWorkersSameBytes imports the same DGM and CDSM tiles
// with 1 and with 3 workers: every file of both packs (COGs, index,
// sources, the vegetation's 3D Tiles, the manifest but for its times) has
// the same SHA-256.
func TestRasterImportWorkersSameBytes(t *testing.T) {
	src := t.TempDir()
	dgm := rasterTiles(t, src, "dgm1", 3, 3, 0, dgmHeight)
	cdsm := rasterTiles(t, src, "cdsm", 3, 2, 0, canopyHeight)
	sums := map[int][2]map[string]string{}
	for _, n := range []int{1, 3} {
		data := t.TempDir()
		c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0", Workers: n}
		if _, err := DGM(context.Background(), c, DGMOptions{}, dgm); err != nil {
			t.Fatal(err)
		}
		if _, err := Vegetation(context.Background(), c, VegetationOptions{CDSM: cdsm}); err != nil {
			t.Fatal(err)
		}
		sums[n] = [2]map[string]string{
			testtool.TreeSums(t, filepath.Join(data, string(pack.Terrain), "he", "2026-07-20")),
			testtool.TreeSums(t, filepath.Join(data, string(pack.Vegetation), "he", "2026-07-20")),
		}
	}
	testtool.SameTrees(t, "dgm workers 1 vs 3", sums[1][0], sums[3][0])
	testtool.SameTrees(t, "vegetation workers 1 vs 3", sums[1][1], sums[3][1])
	if len(sums[1][0]) != 9+3 || len(sums[1][1]) < 6+3 {
		t.Errorf("files: dgm %d, vegetation %d", len(sums[1][0]), len(sums[1][1]))
	}
	for p := range sums[1][1] {
		if strings.HasPrefix(p, "trees/tiles/") {
			return
		}
	}
	t.Error("the vegetation pack has no trees tiles")
}

// BenchmarkImportDGMProcs imports 4 x 4 DGM tiles (GeoTIFF and XYZ) with
// GOMAXPROCS and the workers at 1, 2, 4 ... up to the machine's cores;
// MB/s are of source bytes.
func BenchmarkImportDGMProcs(b *testing.B) {
	src := b.TempDir()
	paths := rasterTiles(b, src, "dgm1", 4, 4, 0, dgmHeight)
	var size int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	for _, p := range []int{1, 2, 4, 8, 16} {
		if p > runtime.NumCPU() {
			break
		}
		b.Run(fmt.Sprintf("procs=%d", p), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
			data := b.TempDir()
			c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0", Workers: p}
			b.SetBytes(size)
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				// Fresh: every tile is converted (no previous pack to reuse).
				if err := os.RemoveAll(filepath.Join(data, string(pack.Terrain))); err != nil {
					b.Fatal(err)
				}
				if _, err := DGM(context.Background(), c, DGMOptions{}, paths); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(paths))/b.Elapsed().Seconds(), "tiles/s")
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
