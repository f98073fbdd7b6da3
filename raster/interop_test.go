package raster

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// interopCase is one GeoTIFF flavour made by gdal_translate from the same
// ASCII grid, with what our reader must report about it.
type interopCase struct {
	name  string
	args  []string
	n     int // points compared
	check func(t *testing.T, c *COG)
}

// wantInfo returns a check of the layout fields of Info.
func wantInfo(comp Compression, pred Predictor, format SampleFormat, bits int, tiled, big bool) func(*testing.T, *COG) {
	return func(t *testing.T, c *COG) {
		t.Helper()
		i := c.Info()
		if i.Compression != comp || i.Predictor != pred || i.SampleFormat != format ||
			i.BitsPerSample != bits || i.Tiled != tiled || i.BigTIFF != big {
			t.Errorf("info = %+v, want %v pred %d format %d bits %d tiled %v big %v",
				i, comp, pred, format, bits, tiled, big)
		}
		if i.EPSG != 25832 {
			t.Errorf("EPSG = %d, want 25832", i.EPSG)
		}
	}
}

func interopCases() []interopCase {
	co := func(kv ...string) []string {
		var a []string
		for _, s := range kv {
			a = append(a, "-co", s)
		}
		return a
	}
	cat := func(parts ...[]string) []string {
		var a []string
		for _, p := range parts {
			a = append(a, p...)
		}
		return a
	}
	return []interopCase{
		{"cog_deflate", cat([]string{"-of", "COG"}, co("COMPRESS=DEFLATE", "PREDICTOR=YES")), 10000,
			func(t *testing.T, c *COG) {
				wantInfo(CompressionDeflate, PredictorFloat, SampleFloat, 32, true, false)(t, c)
				if c.Info().Overviews < 1 {
					t.Errorf("COG has no overviews")
				}
			}},
		{"cog_zstd_bigtiff", cat([]string{"-of", "COG"}, co("COMPRESS=ZSTD", "PREDICTOR=YES", "BIGTIFF=YES")), 2000,
			wantInfo(CompressionZSTD, PredictorFloat, SampleFloat, 32, true, true)},
		{"tiled_lzw_p3", co("TILED=YES", "COMPRESS=LZW", "PREDICTOR=3"), 2000,
			wantInfo(CompressionLZW, PredictorFloat, SampleFloat, 32, true, false)},
		{"tiled_deflate_p2_float", co("TILED=YES", "BLOCKXSIZE=128", "BLOCKYSIZE=64", "COMPRESS=DEFLATE", "PREDICTOR=2"), 2000,
			wantInfo(CompressionDeflate, PredictorHorizontal, SampleFloat, 32, true, false)},
		{"strip_none", nil, 2000, wantInfo(CompressionNone, PredictorNone, SampleFloat, 32, false, false)},
		{"strip17_deflate_p3", co("BLOCKYSIZE=17", "COMPRESS=DEFLATE", "PREDICTOR=3"), 2000,
			wantInfo(CompressionDeflate, PredictorFloat, SampleFloat, 32, false, false)},
		{"bigendian_zstd_p3", co("ENDIANNESS=BIG", "TILED=YES", "COMPRESS=ZSTD", "PREDICTOR=3"), 2000,
			wantInfo(CompressionZSTD, PredictorFloat, SampleFloat, 32, true, false)},
		{"float64_deflate_p3", cat([]string{"-ot", "Float64"}, co("TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=3")), 2000,
			wantInfo(CompressionDeflate, PredictorFloat, SampleFloat, 64, true, false)},
		{"float64_be_lzw_p2_strips", cat([]string{"-ot", "Float64"}, co("ENDIANNESS=BIG", "COMPRESS=LZW", "PREDICTOR=2")), 2000,
			wantInfo(CompressionLZW, PredictorHorizontal, SampleFloat, 64, false, false)},
		{"int16_deflate_p2", cat([]string{"-ot", "Int16"}, co("TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=2")), 2000,
			wantInfo(CompressionDeflate, PredictorHorizontal, SampleInt, 16, true, false)},
		{"int16_be_lzw_p2_strips", cat([]string{"-ot", "Int16"}, co("ENDIANNESS=BIG", "COMPRESS=LZW", "PREDICTOR=2")), 2000,
			wantInfo(CompressionLZW, PredictorHorizontal, SampleInt, 16, false, false)},
		{"uint16_zstd_p2", cat([]string{"-ot", "UInt16", "-a_nodata", "0"}, co("TILED=YES", "COMPRESS=ZSTD", "PREDICTOR=2")), 2000,
			wantInfo(CompressionZSTD, PredictorHorizontal, SampleUint, 16, true, false)},
		{"int32_deflate_p2_bigtiff", cat([]string{"-ot", "Int32"}, co("BIGTIFF=YES", "TILED=YES", "COMPRESS=DEFLATE", "PREDICTOR=2")), 2000,
			wantInfo(CompressionDeflate, PredictorHorizontal, SampleInt, 32, true, true)},
		{"uint32_be_zstd_strips_bigtiff", cat([]string{"-ot", "UInt32", "-a_nodata", "0"}, co("ENDIANNESS=BIG", "BIGTIFF=YES", "COMPRESS=ZSTD")), 2000,
			wantInfo(CompressionZSTD, PredictorNone, SampleUint, 32, false, true)},
		{"byte_packbits", cat([]string{"-ot", "Byte", "-a_nodata", "0"}, co("COMPRESS=PACKBITS")), 2000,
			wantInfo(CompressionPackBits, PredictorNone, SampleUint, 8, false, false)},
		{"pixel_is_point", cat([]string{"-mo", "AREA_OR_POINT=Point"}, co("TILED=YES", "COMPRESS=DEFLATE")), 2000,
			func(t *testing.T, c *COG) {
				if !c.Info().PixelIsPoint {
					t.Errorf("PixelIsPoint not reported")
				}
			}},
		{"sparse", co("TILED=YES", "SPARSE_OK=TRUE", "COMPRESS=DEFLATE"), 2000,
			func(t *testing.T, c *COG) {
				if c.levels[0].counts[0] != 0 {
					t.Errorf("tile 0 has %d bytes, want a sparse tile", c.levels[0].counts[0])
				}
			}},
	}
}

// TestInteropGDAL compares Sample with gdallocationinfo on GeoTIFFs that
// GDAL made in every supported flavour, over seeded random points.
func TestInteropGDAL(t *testing.T) {
	translate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	loc := testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	dir := t.TempDir()
	asc := writeASC(t, dir, genGrid(1100, 900, 1))
	for i, tc := range interopCases() {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".tif")
			args := append([]string{"-q", "-a_srs", "EPSG:25832"}, tc.args...)
			run(t, "", translate, append(args, asc, path)...)
			c := openPath(t, path)
			tc.check(t, c)
			compareGDAL(t, loc, path, c, 0, uint64(i+1), tc.n)
		})
	}
}

// compareGDAL checks SampleLevel(level) against gdallocationinfo for n
// seeded points around the raster.
func compareGDAL(t *testing.T, tool, path string, c *COG, level int, seed uint64, n int) {
	t.Helper()
	minX, minY, maxX, maxY := c.Info().Bounds()
	pts := randomPoints(seed, n, minX, minY, maxX, maxY)
	var want []string
	if level == 0 {
		want = gdalValues(t, tool, path, pts)
	} else {
		want = gdalValuesOverview(t, tool, path, level, pts)
	}
	bad := 0
	for i, p := range pts {
		x, y := p[0], p[1]
		if level > 0 {
			x, y = gdalOverviewPoint(c, level, x, y)
		}
		v, ok, err := c.SampleLevel(context.Background(), level, x, y)
		if err != nil {
			t.Fatalf("sample %v: %v", p, err)
		}
		if !sameValue(v, ok, want[i], c.Info().Nodata) {
			bad++
			if bad <= 5 {
				t.Errorf("point %.6f %.6f: got %v ok=%v, gdal %q", p[0], p[1], v, ok, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d points differ from gdallocationinfo", bad, n)
	}
}

// sameValue reports whether our sample agrees with GDAL's printed value
// (empty off the raster), including the ok flag.
func sameValue(v float64, ok bool, gdal string, nodata *float64) bool {
	gdal = strings.TrimSpace(gdal)
	if gdal == "" {
		return !ok && v == 0
	}
	w, err := strconv.ParseFloat(gdal, 64)
	if err != nil {
		return false
	}
	if math.IsNaN(w) {
		return math.IsNaN(v) && !ok
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	if r != w {
		return false
	}
	isNodata := nodata != nil && (v == *nodata || float32(v) == float32(*nodata))
	return ok == !isNodata
}

// gdalValuesOverview is gdalValues on an overview level.
func gdalValuesOverview(t *testing.T, tool, path string, level int, pts [][2]float64) []string {
	t.Helper()
	var in strings.Builder
	for _, p := range pts {
		in.WriteString(strconv.FormatFloat(p[0], 'g', 17, 64) + " " + strconv.FormatFloat(p[1], 'g', 17, 64) + "\n")
	}
	out := run(t, in.String(), tool, "-valonly", "-geoloc", "-overview", strconv.Itoa(level), path)
	lines := strings.Split(out, "\n")
	if len(lines) < len(pts) {
		t.Fatalf("gdallocationinfo gave %d lines for %d points", len(lines), len(pts))
	}
	return lines[:len(pts)]
}

// TestInteropOverview compares SampleLevel on GDAL's overviews.
func TestInteropOverview(t *testing.T) {
	translate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	loc := testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	dir := t.TempDir()
	asc := writeASC(t, dir, genGrid(1100, 900, 1))
	path := filepath.Join(dir, "cog.tif")
	run(t, "", translate, "-q", "-a_srs", "EPSG:25832", "-of", "COG", "-co", "COMPRESS=DEFLATE", asc, path)
	c := openPath(t, path)
	for level := 1; level <= c.Info().Overviews; level++ {
		t.Run(strconv.Itoa(level), func(t *testing.T) { compareGDAL(t, loc, path, c, level, 99, 1000) })
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// gdalOverviewPoint returns the centre of the overview pixel gdallocationinfo
// -overview queries for x, y: it takes the full-resolution pixel and scales
// its index with rounding, a convention of the tool rather than geometry.
func gdalOverviewPoint(c *COG, level int, x, y float64) (float64, float64) {
	full, lv := c.levels[0], c.levels[level]
	px := math.Floor(full.inv[0] + full.inv[1]*x + full.inv[2]*y)
	py := math.Floor(full.inv[3] + full.inv[4]*x + full.inv[5]*y)
	if px < 0 || py < 0 || px >= float64(full.width) || py >= float64(full.height) {
		return x, y
	}
	ox := min(math.Trunc(0.5+px/float64(full.width)*float64(lv.width)), float64(lv.width-1))
	oy := min(math.Trunc(0.5+py/float64(full.height)*float64(lv.height)), float64(lv.height-1))
	return lv.gt[0] + (ox+0.5)*lv.gt[1], lv.gt[3] + (oy+0.5)*lv.gt[5]
}

// TestInteropRotated writes a rotated grid (ModelTransformation tag) with
// WriteCOG and compares Sample with gdallocationinfo on it.
func TestInteropRotated(t *testing.T) {
	loc := testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	g := genGrid(600, 500, 4)
	g.GeoTransform = [6]float64{480000, 0.8, 0.6, 5600000, 0.6, -0.8}
	path := writeTemp(t, t.TempDir(), "rotated.tif", g, WriteOptions{})
	c := openPath(t, path)
	if c.Info().GeoTransform != g.GeoTransform {
		t.Fatalf("geotransform = %v, want %v", c.Info().GeoTransform, g.GeoTransform)
	}
	compareGDAL(t, loc, path, c, 0, 42, 2000)
}
