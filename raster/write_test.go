package raster

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// validatorPaths are where Debian's python3-gdal installs GDAL's COG
// validator.
var validatorPaths = []string{
	"/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py",
	"/usr/share/doc/python3-gdal/examples/validate_cloud_optimized_geotiff.py",
}

// requireValidator returns a python interpreter with GDAL bindings and the
// validator script.
func requireValidator(t *testing.T) (string, string) {
	t.Helper()
	testtool.Require(t, "gdalinfo", "apt-get install gdal-bin")
	var script string
	for _, p := range validatorPaths {
		if _, err := os.Stat(p); err == nil {
			script = p
			break
		}
	}
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if script != "" && exec.Command(py, "-c", "from osgeo import gdal").Run() == nil {
			return py, script
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("validate_cloud_optimized_geotiff.py with python3-gdal not found (apt-get install python3-gdal)")
	}
	t.Skip("validate_cloud_optimized_geotiff.py with python3-gdal not found (apt-get install python3-gdal)")
	return "", ""
}

// writeTemp writes g with opts to a file in dir.
func writeTemp(t *testing.T, dir, name string, g Grid, opts WriteOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCOG(&b, g, opts); err != nil {
		t.Fatalf("WriteCOG: %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWriteCOGValidates runs GDAL's COG validator and gdalinfo on WriteCOG
// output and checks that GDAL reads exactly the source values back.
func TestWriteCOGValidates(t *testing.T) {
	py, script := requireValidator(t)
	translate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	dir := t.TempDir()
	cases := []struct {
		name      string
		w, h      int
		opts      WriteOptions
		overviews int
	}{
		{"deflate", 1100, 900, WriteOptions{}, 2},
		{"zstd", 1100, 900, WriteOptions{Compression: CompressionZSTD}, 2},
		{"sparse_bigtiff", 1100, 900, WriteOptions{Sparse: true, BigTIFF: true}, 2},
		{"one_tile", 300, 200, WriteOptions{}, 0},
		{"exact_tile_edge", 1024, 512, WriteOptions{Level: 1}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := genGrid(tc.w, tc.h, 3)
			path := writeTemp(t, dir, tc.name+".tif", g, tc.opts)
			out := run(t, "", py, script, "--full-check=yes", path)
			if !strings.Contains(out, "is a valid cloud optimized GeoTIFF") {
				t.Fatalf("validator: %s", out)
			}
			checkGDALInfo(t, path, tc.opts, tc.overviews)
			raw := filepath.Join(dir, tc.name+".bin")
			run(t, "", translate, "-q", "-of", "ENVI", path, raw)
			checkRaw(t, raw, g.Data)
		})
	}
}

// checkGDALInfo checks what gdalinfo -json reports about a written COG.
func checkGDALInfo(t *testing.T, path string, opts WriteOptions, overviews int) {
	t.Helper()
	var info struct {
		CoordinateSystem struct{ Wkt string } `json:"coordinateSystem"`
		Metadata         map[string]map[string]string
		GeoTransform     []float64 `json:"geoTransform"`
		Bands            []struct {
			Block       []int
			Type        string
			NoDataValue float64 `json:"noDataValue"`
			Overviews   []any
		}
	}
	out := run(t, "", "gdalinfo", "-json", path)
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	b := info.Bands[0]
	if b.Type != "Float32" || b.Block[0] != 512 || b.Block[1] != 512 || b.NoDataValue != testNodata || len(b.Overviews) != overviews {
		t.Errorf("band = %+v, want Float32 512x512 nodata -9999 with %d overviews", b, overviews)
	}
	if !strings.Contains(info.CoordinateSystem.Wkt, `ID["EPSG",25832]`) {
		t.Errorf("CRS is not EPSG:25832: %.200s", info.CoordinateSystem.Wkt)
	}
	want := "DEFLATE"
	if opts.Compression == CompressionZSTD {
		want = "ZSTD"
	}
	st := info.Metadata["IMAGE_STRUCTURE"]
	if st["COMPRESSION"] != want || st["PREDICTOR"] != "3" || st["LAYOUT"] != "COG" {
		t.Errorf("IMAGE_STRUCTURE = %v, want %s, predictor 3, layout COG", st, want)
	}
	if len(info.GeoTransform) != 6 || info.GeoTransform[0] != 480000 || info.GeoTransform[5] != -1 {
		t.Errorf("geotransform = %v", info.GeoTransform)
	}
}

// checkRaw compares a raw little-endian float32 dump with want bit for bit.
func checkRaw(t *testing.T, path string, want []float32) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 4*len(want) {
		t.Fatalf("raw dump has %d bytes, want %d", len(b), 4*len(want))
	}
	for i, w := range want {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != math.Float32bits(w) {
			t.Fatalf("pixel %d: GDAL reads %v, wrote %v", i, math.Float32frombits(got), w)
		}
	}
}

// TestWriteCOGRoundTrip reads WriteCOG output back with our own reader.
func TestWriteCOGRoundTrip(t *testing.T) {
	t.Parallel()
	for _, opts := range []WriteOptions{{}, {Compression: CompressionZSTD, Sparse: true}, {BigTIFF: true}} {
		g := genGrid(700, 600, 5)
		var b bytes.Buffer
		if err := WriteCOG(&b, g, opts); err != nil {
			t.Fatal(err)
		}
		c, err := Open(context.Background(), BytesSource(b.Bytes()), nil)
		if err != nil {
			t.Fatal(err)
		}
		i := c.Info()
		if i.Width != 700 || i.Height != 600 || i.TileWidth != 512 || i.EPSG != 25832 || i.Overviews != 1 ||
			i.Nodata == nil || *i.Nodata != testNodata || i.BigTIFF != opts.BigTIFF || i.GeoTransform != g.GeoTransform {
			t.Errorf("%+v: info = %+v", opts, i)
		}
		back, err := c.ReadGrid(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for k := range g.Data {
			if math.Float32bits(back.Data[k]) != math.Float32bits(g.Data[k]) {
				t.Fatalf("%+v: pixel %d = %v, want %v", opts, k, back.Data[k], g.Data[k])
			}
		}
	}
}

// TestOverviewAverage checks that overviews average valid pixels only.
func TestOverviewAverage(t *testing.T) {
	t.Parallel()
	nd := float32(-9999)
	valid := func(v float32) bool { return v == v && v != nd }
	src := []float32{
		1, 3, 5,
		nd, nd, 7,
		nd, nd, float32(math.NaN()),
	}
	got, w, h := downsample(src, 3, 3, valid, nd)
	want := []float32{2, 6, nd, nd}
	if w != 2 || h != 2 {
		t.Fatalf("size %dx%d, want 2x2", w, h)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pixel %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestWriteCOGErrors checks the argument errors of WriteCOG.
func TestWriteCOGErrors(t *testing.T) {
	t.Parallel()
	ok := genGrid(10, 10, 1)
	cases := []struct {
		name string
		g    Grid
		opts WriteOptions
	}{
		{"empty", Grid{}, WriteOptions{}},
		{"short data", Grid{Width: 10, Height: 10, Data: make([]float32, 99), GeoTransform: ok.GeoTransform}, WriteOptions{}},
		{"zero pixel size", Grid{Width: 1, Height: 1, Data: make([]float32, 1)}, WriteOptions{}},
		{"lzw", ok, WriteOptions{Compression: CompressionLZW}},
		{"epsg", Grid{Width: 1, Height: 1, Data: make([]float32, 1), GeoTransform: ok.GeoTransform, EPSG: 1 << 20}, WriteOptions{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := WriteCOG(&bytes.Buffer{}, tc.g, tc.opts); err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestReplaceNodata checks nodata and NaN remapping.
func TestReplaceNodata(t *testing.T) {
	t.Parallel()
	old := -32767.0
	g := Grid{Width: 4, Height: 1, Data: []float32{1, -32767, float32(math.NaN()), 2}, Nodata: &old}
	g.ReplaceNodata(-9999)
	want := []float32{1, -9999, -9999, 2}
	for i := range want {
		if g.Data[i] != want[i] {
			t.Errorf("pixel %d = %v, want %v", i, g.Data[i], want[i])
		}
	}
	if *g.Nodata != -9999 {
		t.Errorf("nodata = %v", *g.Nodata)
	}
}
