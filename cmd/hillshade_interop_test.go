package cmd

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestHillshadeMatchesGDAL renders hillshade tiles of the demo DGM and the
// same tiles with the GDAL pipeline a GIS user would run: gdalwarp of the
// DGM tiles to the tile's Web Mercator grid (bilinear, exact transformer,
// one pixel of border) and `gdaldem hillshade -multidirectional
// -compute_edges`. At zoom 17 and 18 (tile pixels smaller than the DGM's)
// the pixels must agree within 1 of 255, also across a DGM tile edge.
func TestHillshadeMatchesGDAL(t *testing.T) {
	warp := testtool.Require(t, "gdalwarp", "apt-get install gdal-bin")
	dem := testtool.Require(t, "gdaldem", "apt-get install gdal-bin")
	buildvrt := testtool.Require(t, "gdalbuildvrt", "apt-get install gdal-bin")
	data := demoData(t)
	base := serveData(t, data)
	tifs, _ := filepath.Glob(filepath.Join(data, "terrain", "he", "*", "tiles", "*.tif"))
	if len(tifs) < 2 {
		t.Fatalf("demo he DGM tiles: %v", tifs)
	}
	dir := t.TempDir()
	vrt := filepath.Join(dir, "he.vrt")
	toolOut(t, buildvrt, append([]string{"-q", vrt}, tifs...)...)
	// Tiles over the demo he DGM (476-478 km E, 5551-5552 km N, UTM32):
	// one inside a DGM tile, one on the edge between two.
	for _, tc := range []struct {
		name     string
		lon, lat float64
		z        int
	}{{"inside", 8.6685, 50.1153, 17}, {"across a DGM tile edge", 8.6783, 50.1153, 18}} {
		t.Run(tc.name, func(t *testing.T) {
			n := 1 << tc.z
			x := int((tc.lon + 180) / 360 * float64(n))
			lr := tc.lat * math.Pi / 180
			y := int((1 - math.Log(math.Tan(lr)+1/math.Cos(lr))/math.Pi) / 2 * float64(n))
			resp, err := http.Get(fmt.Sprintf("%s/v1/terrain/hillshade/%d/%d/%d.png", base, tc.z, x, y))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			ours, err := png.Decode(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			const half = math.Pi * 6378137
			tileM := 2 * half / float64(n)
			res := tileM / 256
			x0, y1 := -half+float64(x)*tileM, half-float64(y)*tileM
			f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
			warped, shaded, crop := filepath.Join(dir, tc.name+"w.tif"), filepath.Join(dir, tc.name+"h.tif"), filepath.Join(dir, tc.name+"c.png")
			toolOut(t, warp, "-q", "-overwrite", "-t_srs", "EPSG:3857", "-te", f(x0-res), f(y1-tileM-res), f(x0+tileM+res), f(y1+res),
				"-ts", "258", "258", "-r", "bilinear", "-et", "0", "-ot", "Float32", "-dstnodata", "-9999", vrt, warped)
			toolOut(t, dem, "hillshade", "-q", "-multidirectional", "-compute_edges", warped, shaded)
			toolOut(t, testtool.Require(t, "gdal_translate", "apt-get install gdal-bin"), "-q", "-of", "PNG", "-srcwin", "1", "1", "256", "256", shaded, crop)
			fh, err := os.Open(crop)
			if err != nil {
				t.Fatal(err)
			}
			gdal, err := png.Decode(fh)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			worst, compared, off := 0, 0, 0
			for r := 1; r < 255; r++ {
				for c := 1; c < 255; c++ {
					gv, _, _, ga := gdal.At(c, r).RGBA()
					g := int(gv >> 8)
					o, _, _, a := ours.At(c, r).RGBA()
					if g == 0 || ga == 0 || a == 0 {
						continue // NoData in either
					}
					compared++
					d := int(o>>8) - g
					if d < 0 {
						d = -d
					}
					worst = max(worst, d)
					if d > 0 {
						off++
					}
				}
			}
			t.Logf("z%d/%d/%d: %d pixels compared, worst difference %d, %d off", tc.z, x, y, compared, worst, off)
			if compared < 60000 || worst > 1 {
				t.Fatalf("%d pixels compared, worst difference %d", compared, worst)
			}
		})
	}
}
