package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
)

// TestVegetationImportMatchesGDAL: GDAL reads the same values from the
// imported CDSM tiles as from their GeoTIFF sources: gdalinfo -stats
// (count, minimum, maximum, mean, standard deviation and NoData of the
// band) and gdallocationinfo at 400 random points of each tile, for a 1 m
// and a 2 m tile, imported with 2 workers. It judges what a user's GIS
// sees, whatever the import does inside (conversion, 3D themes beside).
func TestVegetationImportMatchesGDAL(t *testing.T) {
	testtool.Require(t, "gdalinfo", "apt-get install gdal-bin")
	testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	t.Parallel()
	src, data := t.TempDir(), t.TempDir()
	paths := rasterTilesOf(t, src, "cdsm", 2, 1, 0, canopyHeight, []float64{1, 2})
	c := Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0", Workers: 2}
	if _, err := Vegetation(context.Background(), c, VegetationOptions{CDSM: paths}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, string(pack.Vegetation), "he", "2026-07-20", "cdsm")
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".tif")
		out := filepath.Join(dir, name+".tif")
		t.Run(name, func(t *testing.T) {
			if got, want := gdalStats(t, out), gdalStats(t, p); got != want {
				t.Errorf("gdalinfo -stats of the imported tile:\n%s\nof the source:\n%s", got, want)
			}
			var in strings.Builder
			var e, n float64
			fmt.Sscanf(strings.TrimPrefix(name, "cdsm_"), "%f_%f", &e, &n)
			for range 400 {
				fmt.Fprintf(&in, "%.3f %.3f\n", e*1000+rng.Float64()*1000, n*1000+rng.Float64()*1000)
			}
			got, want := gdalLocations(t, out, in.String()), gdalLocations(t, p, in.String())
			if len(got) != 400 || len(got) != len(want) {
				t.Fatalf("gdallocationinfo: %d and %d values for 400 points", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("point %d: imported %q, source %q", i, got[i], want[i])
				}
			}
		})
	}
}

// gdalStats is band 1's statistics and NoData as gdalinfo -stats reports
// them (without writing a .aux.xml beside the file).
func gdalStats(t *testing.T, path string) string {
	t.Helper()
	cmd := exec.Command("gdalinfo", "-stats", "-json", path)
	cmd.Env = append(os.Environ(), "GDAL_PAM_ENABLED=NO")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gdalinfo %s: %v", path, err)
	}
	var doc struct {
		Size  []int `json:"size"`
		Bands []struct {
			Min, Max    float64
			NoDataValue any    `json:"noDataValue"`
			Metadata    any    `json:"metadata"`
			Type        string `json:"type"`
		} `json:"bands"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Bands) != 1 {
		t.Fatalf("gdalinfo %s: %v\n%s", path, err, out)
	}
	b := doc.Bands[0]
	md, _ := json.Marshal(b.Metadata)
	return fmt.Sprintf("size %v type %s min %v max %v nodata %v stats %s", doc.Size, b.Type, b.Min, b.Max, b.NoDataValue, md)
}

// gdalLocations is gdallocationinfo -valonly -geoloc of the points (one
// "x y" line each) in path: one value per point, "" off the raster.
func gdalLocations(t *testing.T, path, points string) []string {
	t.Helper()
	cmd := exec.Command("gdallocationinfo", "-valonly", "-geoloc", path)
	cmd.Stdin = strings.NewReader(points)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gdallocationinfo %s: %v", path, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}
