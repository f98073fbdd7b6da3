package cmd

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
)

// rasterFixture is a synthetic 1 km source tile of 2 m pixels.
type rasterFixture struct {
	epsg   int
	e0, n0 float64                    // south-west corner
	f      func(e, n float64) float64 // NaN is NoData
}

// write stores the fixture as a GeoTIFF (COG) named name in dir.
func (r rasterFixture) write(t *testing.T, dir, name string) string {
	t.Helper()
	const px, size = 2.0, 500
	nd := -9999.0
	g := raster.Grid{Width: size, Height: size, Data: make([]float32, size*size), EPSG: r.epsg, Nodata: &nd,
		GeoTransform: [6]float64{r.e0, px, 0, r.n0 + size*px, 0, -px}}
	for row := range size {
		for col := range size {
			v := r.f(r.e0+(float64(col)+0.5)*px, r.n0+size*px-(float64(row)+0.5)*px)
			if math.IsNaN(v) {
				v = nd
			}
			g.Data[row*size+col] = float32(v)
		}
	}
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := raster.WriteCOG(f, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// utm returns the south-west corner of the 1 km tile holding lon/lat.
func utm(epsg int, lon, lat float64) (e, n float64) {
	z, _ := geo.ZoneForEPSG(epsg)
	e, n = geo.ToUTM(z, lon, lat)
	return math.Floor(e/1000) * 1000, math.Floor(n/1000) * 1000
}

// Terrain and canopy surfaces the fixtures are made of.
var (
	// hills is an Eifel-like DGM: 180-260 m, smooth.
	hills = func(e, n float64) float64 { return 220 + 30*math.Sin(e/300)*math.Cos(n/410) + 5*math.Sin((e+n)/97) }
	// lowland is a Berlin-like DGM at 34-38 m.
	lowland = func(e, n float64) float64 { return 36 + 2*math.Sin(e/250)*math.Cos(n/330) }
	// coast is a North Sea coast: NoData over the sea (north-west half),
	// marsh at 0.3-2.5 m.
	coast = func(e, n float64) float64 {
		if math.Mod(e, 1000)+math.Mod(n, 1000) > 1100 {
			return math.NaN()
		}
		return 1.4 + 1.1*math.Sin(e/180)*math.Cos(n/230)
	}
	// marsh lies partly below sea level (-2.4 to +1.6 m), no NoData.
	marsh = func(e, n float64) float64 { return -0.4 + 2*math.Sin(e/200)*math.Cos(n/260) }
	// crowns is a CDSM: trees of 5 m radius on a 12 m lattice in half of
	// the tile, NoData elsewhere (as the demo's and the state portals').
	crowns = func(e, n float64) float64 {
		if math.Mod(e, 1000) < 500 {
			return math.NaN()
		}
		ce, cn := math.Floor(e/12)*12+6, math.Floor(n/12)*12+6
		d := math.Hypot(e-ce, n-cn)
		if d >= 5 {
			return math.NaN()
		}
		return (12 + 10*math.Abs(math.Sin(ce*0.37+cn*0.11))) * (1 - 0.3*(d/5)*(d/5))
	}
)

// TestImportRefusesWrongStateAndRole: the importers refuse, naming where
// the data lie or what they look like, files of another state and rasters
// of the other role, and accept real samples, border tiles and coastal
// DGMs; --force imports anyway. Each case runs the CLI and looks at what
// the user reads and what is published.
func TestImportRefusesWrongStateAndRole(t *testing.T) {
	berlin := testtool.Shared(t, "samples/real/3910_5817.gml")
	nrwLoD2 := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	beSample := testtool.Shared(t, "samples/LoD2_33_392_5820_1_BE_sample.gml")
	src := t.TempDir()
	aachenE, aachenN := utm(25832, 6.0839, 50.7753)
	borderE, borderN := utm(25833, 13.12, 52.40) // Potsdam-Babelsberg / Berlin-Wannsee
	buesumE, buesumN := utm(25832, 8.86, 54.13)  // Dithmarschen coast, Schleswig-Holstein
	berlinE, berlinN := utm(25833, 13.40, 52.51)
	nrwDGM := rasterFixture{25832, aachenE, aachenN, hills}.write(t, src, "dgm1_32_nrw.tif")
	border := rasterFixture{25833, borderE, borderN, lowland}.write(t, src, "dgm1_33_border.tif")
	coastDGM := rasterFixture{25832, buesumE, buesumN, coast}.write(t, src, "dgm1_32_coast.tif")
	marshDGM := rasterFixture{25832, buesumE, buesumN, marsh}.write(t, src, "dgm1_32_marsh.tif")
	berlinDGM := rasterFixture{25833, berlinE, berlinN, lowland}.write(t, src, "dgm1_33_berlin.tif")
	berlinCDSM := rasterFixture{25833, berlinE, berlinN, crowns}.write(t, src, "cdsm_33_berlin.tif")
	// The border tile does straddle the border of the generalised states.
	z33, _ := geo.ZoneForEPSG(25833)
	var sides []string
	for _, c := range [][2]float64{{borderE, borderN}, {borderE + 1000, borderN + 1000}} {
		lon, lat := geo.FromUTM(z33, c[0], c[1])
		st, _ := bl.At(lon, lat)
		sides = append(sides, st.Code)
	}
	if sides[0] == sides[1] {
		t.Fatalf("the border fixture lies in %v only", sides)
	}

	lic := []string{"--snapshot", "2026-01-01", "--license", "dl-de-by-2.0"}
	for _, tc := range []struct {
		name     string
		args     []string
		ok       bool
		mentions []string
	}{
		{"Berlin LoD2 as bb", []string{"lod2", "--bl", "bb", berlin}, false,
			[]string{"3910_5817.gml lies in Berlin (be), not in Brandenburg (bb)", "use --bl be", "--force"}},
		{"Berlin LoD2 as mv", []string{"lod2", "--bl", "mv", berlin}, false,
			[]string{"3910_5817.gml lies in Berlin (be), not in Mecklenburg-Vorpommern (mv)", "use --bl be"}},
		{"Berlin LoD2 as bb --force", []string{"lod2", "--bl", "bb", "--force", berlin}, true, []string{"imported lod2/bb/2026-01-01"}},
		{"Berlin LoD2 as be", []string{"lod2", "--bl", "be", berlin}, true, []string{"imported lod2/be/2026-01-01: 166 buildings"}},
		{"NRW LoD2 as nrw", []string{"lod2", "--bl", "nrw", nrwLoD2}, true, []string{"imported lod2/nrw/2026-01-01: 109 buildings"}},
		{"synthetic Berlin sample as be", []string{"lod2", "--bl", "be", beSample}, true, []string{"imported lod2/be/2026-01-01"}},
		{"NRW DGM as by", []string{"dgm", "--bl", "by", "--crs", "EPSG:25832", nrwDGM}, false,
			[]string{"dgm1_32_nrw.tif lies in Nordrhein-Westfalen (nrw), not in Bayern (by)", "use --bl nrw", "--force"}},
		{"NRW DGM as by --force", []string{"dgm", "--bl", "by", "--force", nrwDGM}, true, []string{"imported terrain/by/2026-01-01: 1 tiles"}},
		{"NRW DGM as nrw", []string{"dgm", "--bl", "nrw", nrwDGM}, true, []string{"imported terrain/nrw/2026-01-01: 1 tiles"}},
		{"border tile as be", []string{"dgm", "--bl", "be", border}, true, []string{"imported terrain/be/"}},
		{"border tile as bb", []string{"dgm", "--bl", "bb", border}, true, []string{"imported terrain/bb/"}},
		{"coastal DGM, sea NoData, as sh", []string{"dgm", "--bl", "sh", coastDGM}, true, []string{"imported terrain/sh/"}},
		{"marsh DGM below sea level as sh", []string{"dgm", "--bl", "sh", marshDGM}, true, []string{"imported terrain/sh/"}},
		{"NRW DGM as --cdsm", []string{"vegetation", "--bl", "nrw", "--cdsm", nrwDGM}, false,
			[]string{"--cdsm rasters look like a terrain model (DGM", "median height 2", "svc import dgm", "--force"}},
		{"lowland DGM as --cdsm", []string{"vegetation", "--bl", "be", "--cdsm", berlinDGM}, false,
			[]string{"--cdsm rasters look like a terrain model", "median height 3"}},
		{"coastal DGM as --cdsm", []string{"vegetation", "--bl", "sh", "--cdsm", coastDGM}, false, []string{"look like a terrain model"}},
		{"marsh DGM as --cdsm", []string{"vegetation", "--bl", "sh", "--cdsm", marshDGM}, false, []string{"look like a terrain model"}},
		{"CDSM as DGM", []string{"dgm", "--bl", "be", berlinCDSM}, false,
			[]string{"look like a canopy height model (CDSM", "svc import vegetation --cdsm", "--force"}},
		{"CDSM as DGM --force", []string{"dgm", "--bl", "be", "--force", berlinCDSM}, true, []string{"imported terrain/be/"}},
		{"CDSM as --cdsm", []string{"vegetation", "--bl", "be", "--cdsm", berlinCDSM}, true, []string{"imported veg/be/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			args := append([]string{"import", tc.args[0], "--data", data}, lic...)
			out, err := runCLI(t, append(args, tc.args[1:]...)...)
			text := out + errorTextOrEmpty(err)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v\n%s", err, tc.ok, out)
			}
			t.Log(text)
			for _, m := range tc.mentions {
				if !strings.Contains(text, m) {
					t.Errorf("output lacks %q:\n%s", m, text)
				}
			}
			if !tc.ok {
				if entries, _ := os.ReadDir(data); len(entries) != 0 {
					t.Errorf("a refused import left %v in the data directory", entries)
				}
			}
		})
	}
}
