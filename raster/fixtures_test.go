package raster

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

var update = flag.Bool("update", false, "regenerate testdata fixtures and goldens with GDAL")

// fixture is a tiny GeoTIFF committed to testdata (made by gdal_translate)
// with its golden JSON (made by GDAL's Python bindings).
type fixture struct {
	name string
	args []string
}

var fixtures = []fixture{
	{"f32_deflate_p3_tiled", []string{"-co", "TILED=YES", "-co", "BLOCKXSIZE=16", "-co", "BLOCKYSIZE=16", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=3"}},
	{"i16_be_lzw_p2_strips", []string{"-ot", "Int16", "-co", "ENDIANNESS=BIG", "-co", "BLOCKYSIZE=5", "-co", "COMPRESS=LZW", "-co", "PREDICTOR=2"}},
	{"f32_zstd_bigtiff_cog", []string{"-of", "COG", "-co", "BLOCKSIZE=16", "-co", "COMPRESS=ZSTD", "-co", "PREDICTOR=YES", "-co", "BIGTIFF=YES"}},
	{"u8_packbits_point", []string{"-ot", "Byte", "-a_nodata", "0", "-mo", "AREA_OR_POINT=Point", "-co", "COMPRESS=PACKBITS"}},
	{"f64_sparse_tiled", []string{"-ot", "Float64", "-co", "TILED=YES", "-co", "BLOCKXSIZE=16", "-co", "BLOCKYSIZE=16", "-co", "SPARSE_OK=TRUE", "-co", "COMPRESS=DEFLATE"}},
}

// golden is what GDAL reads from a fixture.
type golden struct {
	Width, Height int
	GeoTransform  []float64
	Nodata        *float64
	Overviews     int
	Values        []float64
}

// goldenScript prints a golden as JSON using GDAL's Python bindings.
const goldenScript = `
import json, sys
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); b = ds.GetRasterBand(1)
print(json.dumps({"Width": ds.RasterXSize, "Height": ds.RasterYSize,
  "GeoTransform": list(ds.GetGeoTransform()), "Nodata": b.GetNoDataValue(),
  "Overviews": b.GetOverviewCount(),
  "Values": [float(v) for row in b.ReadAsArray().tolist() for v in row]}))
`

// regenerate rebuilds the fixtures and goldens (go test -run TestFixtures -update).
func regenerate(t *testing.T) {
	translate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	py, _ := requireValidator(t)
	asc := writeASC(t, t.TempDir(), genGrid(40, 33, 11))
	for _, f := range fixtures {
		tif := filepath.Join("testdata", f.name+".tif")
		args := append([]string{"-q", "-a_srs", "EPSG:25832"}, f.args...)
		run(t, "", translate, append(args, asc, tif)...)
		out := run(t, "", py, "-c", goldenScript, tif)
		if err := os.WriteFile(filepath.Join("testdata", f.name+".json"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixtures reads the committed fixtures without GDAL and compares every
// pixel, the geotransform and nodata with GDAL's golden.
func TestFixtures(t *testing.T) {
	if *update {
		regenerate(t)
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			var want golden
			b, err := os.ReadFile(filepath.Join("testdata", f.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			c := openPath(t, filepath.Join("testdata", f.name+".tif"))
			checkGolden(t, c, want)
		})
	}
}

// checkGolden compares an opened fixture with GDAL's reading of it.
func checkGolden(t *testing.T, c *COG, want golden) {
	t.Helper()
	i := c.Info()
	if i.Width != want.Width || i.Height != want.Height || i.Overviews != want.Overviews || i.EPSG != 25832 {
		t.Errorf("info = %+v, want %dx%d with %d overviews", i, want.Width, want.Height, want.Overviews)
	}
	for k := range 6 {
		if i.GeoTransform[k] != want.GeoTransform[k] {
			t.Errorf("geotransform = %v, want %v", i.GeoTransform, want.GeoTransform)
			break
		}
	}
	if (i.Nodata == nil) != (want.Nodata == nil) || (i.Nodata != nil && *i.Nodata != *want.Nodata) {
		t.Errorf("nodata = %v, want %v", i.Nodata, want.Nodata)
	}
	g, err := c.ReadGrid(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range g.Data {
		if float64(v) != want.Values[k] {
			t.Fatalf("pixel %d = %v, want %v (first difference)", k, v, want.Values[k])
		}
	}
	// Sample the centre of every pixel and compare with the same values.
	gt := i.GeoTransform
	for y := range i.Height {
		for x := range i.Width {
			px, py := gt[0]+(float64(x)+0.5)*gt[1], gt[3]+(float64(y)+0.5)*gt[5]
			v, ok, err := c.Sample(context.Background(), px, py)
			w := want.Values[y*i.Width+x]
			isNodata := want.Nodata != nil && w == *want.Nodata
			if err != nil || v != w || ok == isNodata || math.IsNaN(v) {
				t.Fatalf("Sample(%d,%d) = %v, %v, %v; want %v", x, y, v, ok, err, w)
			}
		}
	}
}
