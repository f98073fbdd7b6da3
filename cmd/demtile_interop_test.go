package cmd

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/demtile"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
)

// demTileCase is one tile to judge against GDAL.
type demTileCase struct {
	name     string
	lon, lat float64
	z        int
	// tolM is the largest |decoded - GDAL| allowed beyond half the
	// encoding's step where both have a value.
	tolM float64
	// wantClear: the tile must have transparent pixels (half outside the
	// data or over NoData).
	wantClear bool
	// seamLon is the longitude of a UTM zone boundary in the tile (0:
	// none); pixels within seamPx of it are compared in their own band.
	seamLon float64
}

// seamPx is the half-width of the band around a zone boundary, in tile
// pixels, and seamTolM the bound there: the slope of the fixture (1.5)
// times the metre over which the partial bilinear of one zone's edge
// pixels and the other zone's may differ.
const (
	seamPx   = 2
	seamTolM = 1.5
)

// demTileStats is the outcome of comparing one tile with GDAL's warp.
type demTileStats struct {
	compared, clearBoth, clearOurs, edge, seam int
	worstM, worstEdgeM, worstSeamM             float64
}

// edgeBandPx is how near (in tile pixels) to a pixel without a value in
// GDAL's warp a pixel counts as on the edge of the data: there GDAL's
// downsampling kernel (radius 1/scale source pixels) renormalises over the
// valid pixels it reaches, while we sample the one point.
const edgeBandPx = 3

// edgeTolM bounds the difference in the edge band: the demo relief's
// slope (6 %) times the radius of GDAL's kernel at zoom 12 over the 2 m
// overview (about 8 m).
const edgeTolM = 0.5

// judgeDEMTile fetches tile z/x/y of lon, lat in the encoding enc from base
// and warps srcs with `gdalwarp -t_srs EPSG:3857 -r bilinear -et 0 -te
// <tile bounds> -ts 256 256` (later sources over earlier ones, as our BL
// order answers). Where GDAL has a value and we have one, the decoded
// height must be within half a step plus tolM; where GDAL has none we must
// be transparent; where only GDAL has one (its bilinear weighs any valid
// pixel of the 2x2, ours needs the nearest one valid), the pixel must touch
// a pixel GDAL has no value for.
func judgeDEMTile(t *testing.T, base, route string, enc demtile.Encoding, tc demTileCase, dir string, srcs ...string) demTileStats {
	t.Helper()
	warp := testtool.Require(t, "gdalwarp", "apt-get install gdal-bin")
	n := 1 << tc.z
	x := int((tc.lon + 180) / 360 * float64(n))
	lr := tc.lat * math.Pi / 180
	y := int((1 - math.Log(math.Tan(lr)+1/math.Cos(lr))/math.Pi) / 2 * float64(n))
	resp, err := http.Get(fmt.Sprintf("%s/v1/terrain/%s/%d/%d/%d.png", base, route, tc.z, x, y))
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
	x0, y1 := -half+float64(x)*tileM, half-float64(y)*tileM
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	out := filepath.Join(dir, fmt.Sprintf("%s-%d-%d-%d.tif", route, tc.z, x, y))
	args := []string{"-q", "-overwrite", "-t_srs", "EPSG:3857", "-te", f(x0), f(y1 - tileM), f(x0 + tileM), f(y1),
		"-ts", "256", "256", "-r", "bilinear", "-et", "0", "-ot", "Float32", "-dstnodata", "-9999"}
	toolOut(t, warp, append(append(args, srcs...), out)...)
	gdal := readGrid(t, out)
	valid := func(i int) bool { return gdal.Data[i] != -9999 }
	var st demTileStats
	for r := range 256 {
		for c := range 256 {
			i := r*256 + c
			R, G, B, A := rgbaAt(ours, c, r)
			switch {
			case A == 0 && !valid(i):
				st.clearBoth++
			case A == 0:
				st.clearOurs++
				touches := false
				for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, 1}, {-1, 1}, {1, -1}} {
					rr, cc := r+d[0], c+d[1]
					if rr >= 0 && rr < 256 && cc >= 0 && cc < 256 && !valid(rr*256+cc) {
						touches = true
					}
				}
				if !touches {
					t.Errorf("%s z%d/%d/%d pixel %d,%d: transparent, GDAL %g m away from any NoData", route, tc.z, x, y, c, r, gdal.Data[i])
				}
			case A != 255:
				t.Fatalf("pixel %d,%d: alpha %d", c, r, A)
			case !valid(i):
				t.Errorf("%s z%d/%d/%d pixel %d,%d: %g m where GDAL has NoData", route, tc.z, x, y, c, r, demtile.Decode(R, G, B, enc))
			case tc.seamLon != 0 && math.Abs((tc.seamLon+180)/360*float64(n)*256-float64(x*256+c)-0.5) <= seamPx:
				st.seam++
				st.worstSeamM = max(st.worstSeamM, math.Abs(demtile.Decode(R, G, B, enc)-float64(gdal.Data[i])))
			case nearNoData(gdal, r, c):
				st.edge++
				st.worstEdgeM = max(st.worstEdgeM, math.Abs(demtile.Decode(R, G, B, enc)-float64(gdal.Data[i])))
			default:
				st.compared++
				st.worstM = max(st.worstM, math.Abs(demtile.Decode(R, G, B, enc)-float64(gdal.Data[i])))
			}
		}
	}
	t.Logf("%s z%d/%d/%d (%s): %d pixels compared, worst |decoded - GDAL| %.4f m; edge band %d pixels, worst %.4f m; zone seam %d pixels, worst %.4f m; transparent %d (GDAL NoData too), %d (GDAL's 2x2 edge value)",
		route, tc.z, x, y, tc.name, st.compared, st.worstM, st.edge, st.worstEdgeM, st.seam, st.worstSeamM, st.clearBoth, st.clearOurs)
	if lim := enc.Step()/2 + tc.tolM; st.worstM > lim {
		t.Errorf("%s z%d/%d/%d: worst difference %.4f m, allowed %.4f m", route, tc.z, x, y, st.worstM, lim)
	}
	if st.worstEdgeM > edgeTolM || st.worstSeamM > seamTolM {
		t.Errorf("%s z%d/%d/%d: worst difference %.4f m in the edge band (allowed %g), %.4f m at the zone seam (allowed %g)",
			route, tc.z, x, y, st.worstEdgeM, edgeTolM, st.worstSeamM, seamTolM)
	}
	if st.compared == 0 || tc.wantClear && st.clearBoth == 0 {
		t.Errorf("%s z%d/%d/%d: %d compared, %d transparent", route, tc.z, x, y, st.compared, st.clearBoth)
	}
	return st
}

// nearNoData tells a pixel within edgeBandPx of one GDAL has no value for.
func nearNoData(g raster.Grid, r, c int) bool {
	for rr := max(0, r-edgeBandPx); rr <= min(255, r+edgeBandPx); rr++ {
		for cc := max(0, c-edgeBandPx); cc <= min(255, c+edgeBandPx); cc++ {
			if g.Data[rr*256+cc] == -9999 {
				return true
			}
		}
	}
	return false
}

func rgbaAt(img image.Image, c, r int) (uint8, uint8, uint8, uint8) {
	R, G, B, A := img.At(c, r).RGBA()
	return uint8(R >> 8), uint8(G >> 8), uint8(B >> 8), uint8(A >> 8)
}

func readGrid(t *testing.T, path string) raster.Grid {
	t.Helper()
	src, err := raster.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	c, err := raster.Open(context.Background(), src, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.ReadGrid(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestDEMTilesMatchGDAL judges the terrain-RGB and Terrarium tiles of the
// demo DGM (he, UTM32) against gdalwarp of the same DGM tiles, from zoom 12
// (tile pixels of 24 m, read from the COG overview) to 17 (0.77 m), with
// tiles inside, across a DGM tile edge, half outside the data and over the
// river's NoData.
func TestDEMTilesMatchGDAL(t *testing.T) {
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
	at := func(e, n float64) (float64, float64) { return geo.FromUTM(geo.Zone(32), e, n) }
	// The demo he DGM: 476-478 km E, 5551-5552 km N (two 1 km tiles).
	lonC, latC := at(477000, 5551500)
	lonW, latW := at(476000, 5551500)
	lonE, latE := at(477990, 5551500)
	for _, tc := range []demTileCase{
		{"inside", 8.6685, 50.1153, 17, 0.05, false, 0},
		{"across a DGM tile edge", lonC, latC, 16, 0.05, false, 0},
		{"half outside, west edge", lonW, latW, 16, 0.05, true, 0},
		{"east edge", lonE, latE, 17, 0.05, true, 0},
		{"whole DGM, river", lonC, latC, 15, 0.05, true, 0},
		{"overview", lonC, latC, 13, 0.05, true, 0},
		{"overview, small", lonC, latC, 12, 0.05, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			judgeDEMTile(t, base, "rgb", demtile.TerrainRGB, tc, dir, vrt)
			judgeDEMTile(t, base, "terrarium", demtile.Terrarium, tc, dir, vrt)
		})
	}
}

// zoneFixture writes and imports a rough DGM on both sides of the UTM
// zone boundary at 12°E (lat 50.5): 1 km in EPSG:25832 for th holding
// NoData east of the meridian, 1 km in EPSG:25833 for sn holding NoData
// west of it, both sampling one relief defined in degrees. It returns the
// data directory and the two GeoTIFFs (th first, sn last: GDAL's later
// source wins, as our BL order lets sn answer first).
func zoneFixture(t *testing.T) (string, []string) {
	t.Helper()
	data, src := t.TempDir(), t.TempDir()
	const lat0 = 50.5
	relief := func(lon, lat float64) float64 {
		e := (lon - 12) * 111320 * math.Cos(lat0*math.Pi/180)
		n := (lat - lat0) * 110540
		return 300 + 20*math.Sin(e/37)*math.Cos(n/53) + 8*math.Sin((e+n)/11)
	}
	var files []string
	for _, side := range []struct {
		bl   string
		zone geo.Zone
		east bool // the tile's data lie east of the meridian
	}{{"th", 32, false}, {"sn", 33, true}} {
		em, nm := geo.ToUTM(side.zone, 12, lat0)
		e0, n0 := math.Floor(em)-800, math.Floor(nm)-500
		if side.east {
			e0 = math.Floor(em) - 200
		}
		nd := -9999.0
		g := raster.Grid{Width: 1000, Height: 1000, Data: make([]float32, 1000*1000), EPSG: side.zone.EPSG(), Nodata: &nd,
			GeoTransform: [6]float64{e0, 1, 0, n0 + 1000, 0, -1}}
		for r := range 1000 {
			for c := range 1000 {
				lon, lat := geo.FromUTM(side.zone, e0+float64(c)+0.5, n0+1000-float64(r)-0.5)
				v := relief(lon, lat)
				if (lon > 12) != side.east {
					v = nd
				}
				g.Data[r*1000+c] = float32(v)
			}
		}
		f := filepath.Join(src, fmt.Sprintf("dgm1_%d_%d_%d.tif", side.zone, int(e0/1000), int(n0/1000)))
		var b bytes.Buffer
		if err := raster.WriteCOG(&b, g, raster.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run(context.Background(), "import", "dgm", "--data", data, "--bl", side.bl, "--snapshot", "2026-11-01",
			"--license", "dl-de-by-2.0", "--force", f); err != nil {
			t.Fatalf("import %s: %v\n%s", side.bl, err, out)
		}
		files = append(files, f)
	}
	return data, files
}

// TestDEMTilesAcrossZones judges tiles over a rough relief (slopes up to
// 150 %, so a pixel misplaced by half a metre is off by decimetres) on both
// sides of the UTM zone boundary, one tile crossing it, against gdalwarp of
// both zones' GeoTIFFs. Within two tile pixels of the seam the two zones'
// grids meet and GDAL and we may take a different zone's partial bilinear
// value: that band is reported and held to a looser bound.
func TestDEMTilesAcrossZones(t *testing.T) {
	data, files := zoneFixture(t)
	base := serveData(t, data)
	dir := t.TempDir()
	for _, tc := range []demTileCase{
		{"crossing the zone boundary", 12, 50.5, 17, 0.05, false, 0},
		{"zone 32, west edge of the data", 11.9887, 50.5, 17, 0.05, true, 0},
		{"zone 33, east edge of the data", 12.0113, 50.5, 17, 0.05, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.seamLon = 12
			judgeDEMTile(t, base, "rgb", demtile.TerrainRGB, tc, dir, files...)
			judgeDEMTile(t, base, "terrarium", demtile.Terrarium, tc, dir, files...)
		})
	}
}
