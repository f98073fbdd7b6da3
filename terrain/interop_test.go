package terrain_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// TestElevationMatchesGDAL converts source rasters of several layouts
// (stripped LZW float32, tiled DEFLATE int16, XYZ text) with the importer
// and checks, for 10,000 random points per source, that Elevation equals
// `gdallocationinfo -valonly -geoloc` on the source file, after rounding to
// 3 decimals; NoData pixels must give ErrNoData.
func TestElevationMatchesGDAL(t *testing.T) {
	translate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	locinfo := testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 2))
	const size = 400
	base := filepath.Join(dir, "base.tif")
	writeBase(t, base, rng, size)
	srcDir := filepath.Join(dir, "src")
	if err := os.Mkdir(srcDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sources := map[string][]string{
		"strip_lzw_f32.tif": {"-ot", "Float32", "-co", "TILED=NO", "-co", "COMPRESS=LZW", "-co", "PREDICTOR=3", "-srcwin", "0", "0", "200", "400"},
		"tiled_deflate_i16.tif": {"-ot", "Int16", "-scale", "0", "300", "0", "300", "-co", "TILED=YES", "-co", "BLOCKXSIZE=128",
			"-co", "BLOCKYSIZE=128", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2", "-srcwin", "200", "0", "200", "200"},
		"grid.xyz": {"-of", "XYZ", "-srcwin", "200", "200", "200", "200"},
	}
	for name, args := range sources {
		args = append(append([]string{"-q"}, args...), base, filepath.Join(srcDir, name))
		if out, err := exec.Command(translate, args...).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate %s: %v\n%s", name, err, out)
		}
	}
	data := filepath.Join(dir, "data")
	m, err := importer.DGM(context.Background(), importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"},
		importer.DGMOptions{}, []string{srcDir})
	if err != nil {
		t.Fatal(err)
	}
	d, err := terrain.OpenPack(context.Background(), filepath.Join(data, "terrain", "he", "2026-07-20"), m, terrain.Options{Cache: raster.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for name := range sources {
		t.Run(name, func(t *testing.T) {
			compareWithGDAL(t, locinfo, filepath.Join(srcDir, name), d, rng)
		})
	}
}

// writeBase writes a 1 m float32 raster in UTM32N with 3-decimal values and
// NoData lakes.
func writeBase(t *testing.T, path string, rng *rand.Rand, size int) {
	t.Helper()
	nd := -9999.0
	g := raster.Grid{Width: size, Height: size, Data: make([]float32, size*size), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{477000, 1, 0, 5551000 + float64(size), 0, -1}}
	for i := range g.Data {
		r, c := i/size, i%size
		v := 100 + 50*math.Sin(float64(c)/40)*math.Cos(float64(r)/30) + rng.Float64()
		if math.Hypot(float64(c%200-100), float64(r%200-100)) < 12 {
			v = nd
		}
		g.Data[i] = float32(math.Round(v*1000) / 1000)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := raster.WriteCOG(f, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func compareWithGDAL(t *testing.T, locinfo, src string, d *terrain.Dataset, rng *rand.Rand) {
	t.Helper()
	var tile terrain.Tile
	stem := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
	for _, tl := range d.Layer(terrain.LayerDGM).Tiles() {
		if tl.Name == stem {
			tile = tl
		}
	}
	b := tile.BBox
	const n = 10000
	pts := make([][2]float64, n)
	var in bytes.Buffer
	for i := range pts {
		pts[i] = [2]float64{b[0] + 0.7 + rng.Float64()*(b[2]-b[0]-1.4), b[1] + 0.7 + rng.Float64()*(b[3]-b[1]-1.4)}
		fmt.Fprintf(&in, "%.6f %.6f\n", pts[i][0], pts[i][1])
	}
	cmd := exec.Command(locinfo, "-valonly", "-geoloc", src)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gdallocationinfo: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != n {
		t.Fatalf("gdallocationinfo gave %d lines for %d points", len(lines), n)
	}
	var nodata, bad int
	for i, p := range pts {
		want, err := strconv.ParseFloat(strings.TrimSpace(lines[i]), 64)
		if err != nil {
			t.Fatalf("line %d: %q", i, lines[i])
		}
		// Round-trip through WGS84 as a client would send the point.
		lon, lat := geo.FromUTM(geo.Zone32, p[0], p[1])
		h, err := terrain.Elevation(context.Background(), []*terrain.Dataset{d}, lon, lat)
		switch {
		case want == -9999:
			nodata++
			if err != terrain.ErrNoData {
				bad++
				t.Errorf("point %d (%.3f %.3f): GDAL NoData, we %v %v", i, p[0], p[1], h.Value, err)
			}
		case err != nil || terrain.Round3(h.Value) != terrain.Round3(want):
			bad++
			t.Errorf("point %d (%.3f %.3f): GDAL %v, we %v %v", i, p[0], p[1], want, h.Value, err)
		}
		if bad > 10 {
			t.Fatal("too many mismatches")
		}
	}
	if nodata == 0 {
		t.Error("no NoData pixel was hit; the fixture lost its lakes")
	}
}
