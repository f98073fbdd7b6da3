package tiles3d_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/tiles3d"
)

// synthDGM writes 1 km DGM tiles of a smooth relief covering a WGS84 box
// (UTM32) into dir.
func synthDGM(t testing.TB, dir string, lon0, lat0, lon1, lat1 float64) (e0, n0 float64) {
	t.Helper()
	xa, ya := geo.ToUTM(geo.Zone32, lon0, lat0)
	xb, yb := geo.ToUTM(geo.Zone32, lon1, lat1)
	xc, yc := geo.ToUTM(geo.Zone32, lon0, lat1)
	xd, yd := geo.ToUTM(geo.Zone32, lon1, lat0)
	e0, n0 = math.Floor(math.Min(xa, xc)/1000)*1000, math.Floor(math.Min(ya, yd)/1000)*1000
	e1, n1 := math.Max(xb, xd), math.Max(yb, yc)
	nd := -9999.0
	for e := e0; e < e1; e += 1000 {
		for n := n0; n < n1; n += 1000 {
			g := raster.Grid{Width: 1000, Height: 1000, Data: make([]float32, 1000*1000), EPSG: 25832, Nodata: &nd,
				GeoTransform: [6]float64{e, 1, 0, n + 1000, 0, -1}}
			for r := range 1000 {
				for c := range 1000 {
					x, y := e+float64(c)+0.5, n+1000-float64(r)-0.5
					g.Data[r*1000+c] = float32(40 + 20*math.Sin(x/410)*math.Cos(y/530) + 6*math.Sin((x+y)/130))
				}
			}
			var buf bytes.Buffer
			if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("dgm1_32_%d_%d.tif", int(e/1000), int(n/1000))), buf.Bytes(), 0o644)
		}
	}
	return e0, n0
}

// TestRealExtractsCover imports the real extracts of ../shared/samples/osm
// over a synthetic DGM and builds their cover: Lauf (inland, cut at its
// edges) with a CDSM gives 3 themes, Helgoland (coastal) 4 with a CDSM and
// 3 without; every tileset passes the 3D Tiles validator.
func TestRealExtractsCover(t *testing.T) {
	validator := testtool.TilesValidator(t)
	type dgm struct {
		dir    string
		e0, n0 float64
	}
	dgms := map[string]dgm{} // one synthetic DGM per extract
	base := t.TempDir()
	for _, tc := range []struct {
		file, bl               string
		lon0, lat0, lon1, lat1 float64
		cdsm                   bool
		themes                 string
	}{
		{"lauf-200115.osm.pbf", "by", 11.2474, 49.49946, 11.30794, 49.53044, true, "surface,transport,canopy"},
		{"helgoland.osm.pbf", "sh", 7.86113, 54.16, 7.93996, 54.19776, true, "surface,transport,canopy,sea"},
		{"helgoland.osm.pbf", "sh", 7.86113, 54.16, 7.93996, 54.19776, false, "surface,transport,sea"},
	} {
		t.Run(fmt.Sprintf("%s cdsm=%t", tc.file, tc.cdsm), func(t *testing.T) {
			path := testtool.Shared(t, "samples/osm/"+tc.file)
			data := t.TempDir()
			d, ok := dgms[tc.file]
			if !ok {
				d.dir = filepath.Join(base, "dgm-"+tc.file)
				os.MkdirAll(d.dir, 0o755)
				d.e0, d.n0 = synthDGM(t, d.dir, tc.lon0, tc.lat0, tc.lon1, tc.lat1)
				dgms[tc.file] = d
			}
			src, e0, n0 := d.dir, d.e0, d.n0
			c := importer.Common{DataDir: data, BL: tc.bl, Snapshot: "2026-11-20", LicenseID: "dl-de-by-2.0"}
			if _, err := importer.DGM(context.Background(), c, importer.DGMOptions{}, []string{src}); err != nil {
				t.Fatal(err)
			}
			if tc.cdsm {
				nd := -9999.0
				g := raster.Grid{Width: 200, Height: 200, Data: make([]float32, 200*200), EPSG: 25832, Nodata: &nd,
					GeoTransform: [6]float64{e0 + 1000, 1, 0, n0 + 1200, 0, -1}}
				for i := range g.Data {
					g.Data[i] = float32(8 + 6*math.Sin(float64(i%200)/9)*math.Cos(float64(i/200)/7))
				}
				var buf bytes.Buffer
				if err := raster.WriteCOG(&buf, g, raster.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(t.TempDir(), "cdsm.tif")
				os.WriteFile(p, buf.Bytes(), 0o644)
				if _, err := importer.Vegetation(context.Background(), c, importer.VegetationOptions{CDSM: []string{p}}); err != nil {
					t.Fatal(err)
				}
			}
			c.LicenseID = "odbl-1.0"
			if _, err := importer.OSM(context.Background(), c, path); err != nil {
				t.Fatal(err)
			}
			m, err := tiles3d.BuildOSMCover(context.Background(), tiles3d.OSMCoverOptions{DataDir: data, BL: tc.bl})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, th := range m.OSMCover.Themes {
				names = append(names, th.Name)
			}
			if got := strings.Join(names, ","); got != tc.themes {
				t.Fatalf("themes %s, want %s", got, tc.themes)
			}
			for _, th := range names {
				ts := filepath.Join(data, "osm-cover", tc.bl, "2026-11-20", th, "tileset.json")
				out, err := exec.Command(validator, ts).CombinedOutput()
				if err != nil || !strings.Contains(string(out), ": 0 errors") {
					t.Errorf("%s: %v\n%s", th, err, tail(string(out), 2000))
				}
			}
		})
	}
}

// BenchmarkOSMImport imports the Lauf extract (about 1 MB of PBF, 11,802
// ways) and reports MB/s and features/s; the import streams, so its peak
// memory is that of the kept features (see docs/performance.md).
func BenchmarkOSMImport(b *testing.B) {
	path := testtool.Shared(b, "samples/osm/lauf-200115.osm.pbf")
	st, _ := os.Stat(path)
	feats := 0
	for b.Loop() {
		data := b.TempDir()
		m, err := importer.OSM(context.Background(), importer.Common{DataDir: data, BL: "by", Snapshot: "2026-11-20", LicenseID: "odbl-1.0"}, path)
		if err != nil {
			b.Fatal(err)
		}
		feats = 0
		for _, n := range m.OSM.Features {
			feats += n
		}
	}
	s := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(st.Size())/1e6/s, "MB/s")
	b.ReportMetric(float64(feats)/s, "features/s")
}
