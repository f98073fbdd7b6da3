package tiles3d_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/tiles3d"
)

// gridTile writes a px x px GeoTIFF of f (x, y in metres) with its
// south-west corner at e, n and pixels of pix metres.
func gridTile(t testing.TB, path string, e, n, pix float64, px int, f func(x, y float64) float32) {
	t.Helper()
	nd := nodataV
	g := raster.Grid{Width: px, Height: px, Data: make([]float32, px*px), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{e, pix, 0, n + float64(px)*pix, 0, -pix}}
	for r := range px {
		for c := range px {
			g.Data[r*px+c] = f(e+(float64(c)+0.5)*pix, n+float64(px)*pix-(float64(r)+0.5)*pix)
		}
	}
	var buf bytes.Buffer
	if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hills is the DGM of the multi-tile tests: relief's hills continued
// over several tiles, plus a bump whose place bump moves (a changed
// survey).
func hills(bump [2]float64) func(x, y float64) float32 {
	return func(x, y float64) float32 {
		h := float32(relief(int(x-tileE), int(tileN+1000-y)))
		if h == nodataV {
			return h
		}
		if d := math.Hypot(x-bump[0], y-bump[1]); d < 80 {
			h += float32(10 * (1 - d/80))
		}
		return h
	}
}

// multiTileSources imports, into data as snapshot 2026-07-20, the DGM of
// importDGM, the synthetic CDSM on two of its tiles and the OSM extract of
// the cover test, and returns the DGM tile paths.
func multiTileSources(t testing.TB, data string, nx, ny int, bumps map[string][2]float64) []string {
	t.Helper()
	src := t.TempDir()
	dgm := importDGM(t, data, "2026-07-20", nx, ny, bumps)
	importCDSM(t, data)
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "odbl-1.0"}
	osmFile := filepath.Join(src, "he.osm")
	if err := os.WriteFile(osmFile, []byte(coverExtract()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := importer.OSM(context.Background(), c, osmFile); err != nil {
		t.Fatal(err)
	}
	return dgm
}

// importCDSM imports the synthetic CDSM as two 256 m tiles in the north
// west of DGM tile (1, 0) as the vegetation pack he 2026-07-20.
func importCDSM(t testing.TB, data string) {
	t.Helper()
	src := t.TempDir()
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	var cdsm []string
	for k := range 2 {
		p := filepath.Join(src, fmt.Sprintf("cdsm_%d.tif", k))
		gridTile(t, p, tileE+float64(k)*vegPx, tileN+tilePx-vegPx, 1, vegPx, func(x, y float64) float32 {
			return cdsmValue(int(x-tileE)%vegPx, int(tileN+tilePx-y))
		})
		cdsm = append(cdsm, p)
	}
	if _, err := importer.Vegetation(context.Background(), c, importer.VegetationOptions{CDSM: cdsm, ToleranceM: tolerance}); err != nil {
		t.Fatal(err)
	}
}

// importDGM imports, into data as snapshot, an nx x ny DGM of 1 km tiles
// of 4 m pixels from 1 km west of (tileE, tileN) east- and northward, and
// returns the tile paths. bumps places a bump in the tiles it names.
func importDGM(t testing.TB, data, snapshot string, nx, ny int, bumps map[string][2]float64) []string {
	t.Helper()
	src := t.TempDir()
	var dgm []string
	for i := range nx {
		for j := range ny {
			e, n := tileE+float64(i-1)*1000, tileN+float64(j)*1000
			name := dgmName(i, j)
			p := filepath.Join(src, name+".tif")
			bump, ok := bumps[name]
			if !ok {
				bump = [2]float64{math.Inf(1), 0}
			}
			gridTile(t, p, e, n, 4, 250, hills(bump))
			dgm = append(dgm, p)
		}
	}
	c := importer.Common{DataDir: data, BL: "he", Snapshot: snapshot, LicenseID: "dl-de-by-2.0"}
	if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, dgm); err != nil {
		t.Fatal(err)
	}
	return dgm
}

// dgmName is the name of DGM tile i, j of importDGM.
func dgmName(i, j int) string {
	return fmt.Sprintf("dgm1_32_%d_%d", int(tileE/1000)+i-1, int(tileN/1000)+j)
}

// dgmCentre is the centre of DGM tile i, j of importDGM.
func dgmCentre(i, j int) [2]float64 {
	return [2]float64{tileE + float64(i-1)*1000 + 500, tileN + float64(j)*1000 + 500}
}

// buildAll runs the three raster builds with n workers and returns the
// file sums of each product's pack.
func buildAll(t testing.TB, data string, n int) map[string]map[string]string {
	t.Helper()
	ctx := context.Background()
	if _, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he", ToleranceM: tolerance, Workers: n}); err != nil {
		t.Fatal(err)
	}
	if _, err := tiles3d.BuildVegetation(ctx, tiles3d.BuildVegetationOptions{DataDir: data, BL: "he", ToleranceM: tolerance, Workers: n}); err != nil {
		t.Fatal(err)
	}
	if _, err := tiles3d.BuildOSMCover(ctx, tiles3d.OSMCoverOptions{DataDir: data, BL: "he", StepM: 10, Workers: n}); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, p := range []string{"terrain-mesh", "veg", "osm-cover"} {
		out[p] = testtool.TreeSums(t, filepath.Join(data, p, "he", "2026-07-20"))
	}
	return out
}

// TestBuildWorkersSameBytes builds the terrain mesh, the vegetation themes
// and the OSM cover of the same sources with 1 and with 3 workers: every
// file (tilesets, b3dm, glb, the manifests but for their times) has the
// same SHA-256.
func TestBuildWorkersSameBytes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	multiTileSources(t, a, 3, 2, nil)
	multiTileSources(t, b, 3, 2, nil)
	one, three := buildAll(t, a, 1), buildAll(t, b, 3)
	for _, p := range []string{"terrain-mesh", "veg", "osm-cover"} {
		testtool.SameTrees(t, p+" workers 1 vs 3", one[p], three[p])
	}
	if n := len(one["terrain-mesh"]); n != 6+3 {
		t.Errorf("terrain-mesh pack has %d files, want 6 tiles, tileset, %s and manifest", n, tiles3d.InputsFile)
	}
}

// procsSweep is the GOMAXPROCS values of the scaling benchmarks: up to 16,
// as many as the machine has.
func procsSweep() []int {
	var out []int
	for _, p := range []int{1, 2, 4, 8, 16} {
		if p <= runtime.NumCPU() {
			out = append(out, p)
		}
	}
	return out
}

// BenchmarkTerrainMeshProcs builds the terrain mesh of 4 x 3 DGM tiles with
// GOMAXPROCS and the workers at 1, 2, 4 ... up to the machine's cores: the
// ratio of tiles/s between procs=2 and procs=1 is the build's scaling.
func BenchmarkTerrainMeshProcs(b *testing.B) {
	data := b.TempDir()
	dgm := multiTileSources(b, data, 4, 3, nil)
	for _, p := range procsSweep() {
		b.Run(fmt.Sprintf("procs=%d", p), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				// Fresh: every tile is meshed (no previous build to reuse).
				if err := os.RemoveAll(filepath.Join(data, "terrain-mesh")); err != nil {
					b.Fatal(err)
				}
				if _, err := tiles3d.BuildTerrainMesh(context.Background(), tiles3d.TerrainMeshOptions{DataDir: data, BL: "he",
					ToleranceM: tolerance, Workers: p}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(dgm))/b.Elapsed().Seconds(), "tiles/s")
			b.ReportMetric(float64((testtool.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
