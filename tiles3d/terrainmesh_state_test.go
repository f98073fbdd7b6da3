package tiles3d_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/tiles3d"
)

// TestTerrainMeshHierarchyValidates builds the terrain mesh of a DGM of
// 16 x 15 tiles of 1 km (32 m pixels, rolling hills) with the real importer
// and builder, large enough for external tilesets, and runs the official
// 3D Tiles validator on it: it follows the external tilesets down to every
// b3dm.
func TestTerrainMeshHierarchyValidates(t *testing.T) {
	validator := testtool.TilesValidator(t)
	const px, pixelM = 32, 31.25
	srcDir := t.TempDir()
	var files []string
	for i := range 16 {
		for j := range 15 {
			e0, n0 := 470000+float64(i)*1000, 5540000+float64(j)*1000
			g := raster.Grid{Width: px, Height: px, Data: make([]float32, px*px), EPSG: 25832,
				GeoTransform: [6]float64{e0, pixelM, 0, n0 + 1000, 0, -pixelM}}
			for r := range px {
				for c := range px {
					x, y := e0+float64(c)*pixelM, n0+1000-float64(r)*pixelM
					g.Data[r*px+c] = float32(150 + 40*math.Sin(x/2300)*math.Cos(y/3100))
				}
			}
			var buf bytes.Buffer
			if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(srcDir, fmt.Sprintf("dgm1_32_%d_%d.tif", int(e0/1000), int(n0/1000)))
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
	}
	data := t.TempDir()
	ctx := context.Background()
	c := importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"}
	if _, err := importer.DGM(ctx, c, importer.DGMOptions{}, files); err != nil {
		t.Fatal(err)
	}
	m, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: data, BL: "he"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "terrain-mesh", "he", "2026-07-20")
	subs, _ := filepath.Glob(filepath.Join(dir, tiles3d.SubDir, "*.json"))
	if m.TerrainMesh.TileCount != 240 || m.TerrainMesh.TilingScheme != "multi-level-quadtree" || len(subs) == 0 {
		t.Fatalf("%d tiles, %s, %d external tilesets", m.TerrainMesh.TileCount, m.TerrainMesh.TilingScheme, len(subs))
	}
	out, err := exec.Command(validator, filepath.Join(dir, "tileset.json")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": 0 errors") || !strings.Contains(string(out), `"numWarnings": 0`) {
		t.Errorf("validator: %v\n%s", err, tail(string(out), 3000))
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`tiles/[^" ]+\.b3dm caused validation infos`).FindAllString(string(out), -1) {
		seen[m] = true
	}
	if len(seen) != 240 {
		t.Errorf("the validator saw %d of the 240 b3dm", len(seen))
	}
}
