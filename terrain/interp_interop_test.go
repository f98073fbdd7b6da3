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

// gdalInterp prints, for each "x y" line of stdin (metres), the value GDAL's
// resampled RasterIO gives for a one-pixel window centred on the point:
// GDAL's own bilinear and cubic (Keys, a = -0.5) kernels, read from the
// untiled source (a VRT mosaic would not do: GDAL resamples each VRT
// source on its own and clamps at its edge).
const gdalInterp = `
import sys, struct
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); b = ds.GetRasterBand(1); gt = ds.GetGeoTransform()
alg = {'bilinear': gdal.GRIORA_Bilinear, 'cubic': gdal.GRIORA_Cubic}[sys.argv[2]]
for line in sys.stdin:
    x, y = map(float, line.split())
    px = (x - gt[0]) / gt[1]; py = (y - gt[3]) / gt[5]
    r = b.ReadRaster(px - 0.5, py - 0.5, 1, 1, 1, 1, gdal.GDT_Float64, resample_alg=alg)
    print(repr(struct.unpack('d', r)[0]))
`

// TestInterpolationMatchesGDAL imports four 200 m tiles of one smooth
// surface and checks bilinear and cubic elevations at 2,000 points (two
// thirds of them within 2 m of an inner tile edge) against GDAL on the
// untiled surface, to 1 mm.
func TestInterpolationMatchesGDAL(t *testing.T) {
	translate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	py := testtool.PythonGDAL(t)
	dir := t.TempDir()
	const size = 400
	nd := -9999.0
	g := raster.Grid{Width: size, Height: size, Data: make([]float32, size*size), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{477000, 1, 0, 5551000 + size, 0, -1}}
	rng := rand.New(rand.NewPCG(7, 3))
	for i := range g.Data {
		r, c := float64(i/size), float64(i%size)
		g.Data[i] = float32(100 + 30*math.Sin(c/17)*math.Cos(r/23) + 2*rng.Float64())
	}
	var buf bytes.Buffer
	if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.tif")
	if err := os.WriteFile(base, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, o := range [][2]int{{0, 0}, {200, 0}, {0, 200}, {200, 200}} {
		p := filepath.Join(src, fmt.Sprintf("t_%d_%d.tif", o[0], o[1]))
		args := []string{"-q", "-srcwin", strconv.Itoa(o[0]), strconv.Itoa(o[1]), "200", "200", base, p}
		if out, err := exec.Command(translate, args...).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate: %v\n%s", err, out)
		}
	}
	data := filepath.Join(dir, "data")
	m, err := importer.DGM(context.Background(), importer.Common{DataDir: data, BL: "he", Snapshot: "2026-07-20", LicenseID: "dl-de-by-2.0"},
		importer.DGMOptions{}, []string{src})
	if err != nil {
		t.Fatal(err)
	}
	d, err := terrain.OpenPack(context.Background(), filepath.Join(data, "terrain", "he", "2026-07-20"), m, terrain.Options{Cache: raster.NewCache(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	// Points stay 3 m inside the mosaic, where GDAL has all 16 pixels.
	var pts [][2]float64
	for i := range 2000 {
		x, y := 477003+rng.Float64()*(size-6), 5551003+rng.Float64()*(size-6)
		switch i % 3 {
		case 0:
			x = 477200 + (rng.Float64()*4 - 2)
		case 1:
			y = 5551200 + (rng.Float64()*4 - 2)
		}
		pts = append(pts, [2]float64{x, y})
	}
	var in strings.Builder
	for _, p := range pts {
		fmt.Fprintf(&in, "%.6f %.6f\n", p[0], p[1])
	}
	for _, m := range []terrain.Interpolation{terrain.Bilinear, terrain.Cubic} {
		t.Run(m.String(), func(t *testing.T) {
			cmd := exec.Command(py, "-c", gdalInterp, base, m.String())
			cmd.Stdin = strings.NewReader(in.String())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("python GDAL: %v", err)
			}
			want := strings.Fields(string(out))
			if len(want) != len(pts) {
				t.Fatalf("GDAL printed %d values for %d points", len(want), len(pts))
			}
			worst := 0.0
			for i, p := range pts {
				w, _ := strconv.ParseFloat(want[i], 64)
				lon, lat := geo.FromUTM(geo.Zone32, p[0], p[1])
				h, err := terrain.ElevationWith(context.Background(), []*terrain.Dataset{d}, lon, lat, m)
				if err != nil {
					t.Fatalf("point %d (%.3f %.3f): %v", i, p[0], p[1], err)
				}
				// The WGS84 round trip moves the point by far less than
				// 1 µm; GDAL computes in float32, so compare to 1 mm.
				if diff := math.Abs(h.Value - w); diff > worst {
					worst = diff
				}
				if diff := math.Abs(h.Value - w); diff > 0.001 {
					t.Errorf("point %d (%.3f %.3f): %s %.4f, GDAL %.4f", i, p[0], p[1], m, h.Value, w)
				}
			}
			t.Logf("%s: worst difference to GDAL %.2g m over %d points", m, worst, len(pts))
		})
	}
}
