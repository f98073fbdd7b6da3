package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestContourTilesMatchGDAL fetches contour vector tiles of the demo DGM
// (Hesse, two 1 km DGM files meeting at 477 km E) from `svc serve`, reads
// them with GDAL's MVT driver (ogr2ogr -oo Z/X/Y) and holds them to the
// GIS user's pipeline: gdal_contour -i <interval> on a VRT of the same
// COGs, ogr2ogr -t_srs EPSG:3857 -clipdst the tile grown by its buffer.
// The tile must hold the same set of levels; every vertex of ours must lie
// within half a DGM pixel (0.5 m on the ground, in Web Mercator metres at
// the latitude) of GDAL's line of the same level, and every GDAL vertex
// within that of ours. Then the tile east of it: where a line crosses the
// edge between the two, both tiles cross it at the same point, within one
// tile unit.
func TestContourTilesMatchGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	gdalContour := testtool.Require(t, "gdal_contour", "apt-get install gdal-bin")
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
	for _, tc := range []struct {
		name     string
		z        int
		lon, lat float64
		interval int
	}{
		{"z14 over both DGM files", 14, 8.6783, 50.1153, 5},
		{"z16 across the DGM file edge", 16, 8.6783, 50.1153, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 1 << tc.z
			x := int((tc.lon + 180) / 360 * float64(n))
			lr := tc.lat * math.Pi / 180
			y := int((1 - math.Log(math.Tan(lr)+1/math.Cos(lr))/math.Pi) / 2 * float64(n))
			const r = 6378137.0
			size := 2 * math.Pi * r / float64(n)
			unit, buf := size/4096, size*64/4096
			minX, maxY := float64(x)*size-math.Pi*r, math.Pi*r-float64(y)*size
			half := 0.5 / math.Cos(lr) // half a 1 m DGM pixel, in EPSG:3857 metres

			ours := contourTile(t, ogr2ogr, base, dir, tc.z, x, y)
			contours := filepath.Join(dir, fmt.Sprintf("gdal%d.gpkg", tc.z))
			toolOut(t, gdalContour, "-q", "-i", strconv.Itoa(tc.interval), "-a", "elev", vrt, contours)
			clipped := func(name string, grow float64) map[float64][][][2]float64 {
				out := filepath.Join(dir, fmt.Sprintf("%s%d.json", name, tc.z))
				toolOut(t, ogr2ogr, "-f", "GeoJSON", "-t_srs", "EPSG:3857", "-clipdst", fmt.Sprint(minX-buf-grow), fmt.Sprint(maxY-size-buf-grow),
					fmt.Sprint(minX+size+buf+grow), fmt.Sprint(maxY+buf+grow), out, contours)
				return readContourLines(t, out, "elev")
			}
			judge := clipped("judge", 0)
			if len(judge) == 0 || !slices.Equal(levelsOf(ours), levelsOf(judge)) {
				t.Fatalf("levels in the tile %v, in gdal_contour's %v", levelsOf(ours), levelsOf(judge))
			}
			// Where a line grazes the clip box, where it is cut depends on
			// sub-unit rounding: our vertices are measured to GDAL's lines
			// clipped to a box 16 units wider, GDAL's vertices only 2 units
			// and more inside the box.
			wide := clipped("wide", 16*unit)
			inside := func(p [2]float64) bool {
				m := buf - 2*unit
				return p[0] > minX-m && p[0] < minX+size+m && p[1] > maxY-size-m && p[1] < maxY+m
			}
			worstOurs, worstGDAL, nOurs, nGDAL := 0.0, 0.0, 0, 0
			for lv, gl := range judge {
				ol := ours[lv]
				d, k := farthestOnLines(ol, wide[lv], 1, nil)
				worstOurs, nOurs = math.Max(worstOurs, d), nOurs+k
				d, k = farthestOnLines(gl, ol, 3, inside)
				worstGDAL, nGDAL = math.Max(worstGDAL, d), nGDAL+k
			}
			t.Logf("tile %d/%d/%d: %d levels; worst of %d tile vertices %.3f m from GDAL's line, worst of %d GDAL vertices %.3f m from ours (limit %.3f m, tile unit %.3f m)",
				tc.z, x, y, len(judge), nOurs, worstOurs, nGDAL, worstGDAL, half, unit)
			if worstOurs > half || worstGDAL > half {
				t.Errorf("lines %.3f m / %.3f m apart, more than half a DGM pixel (%.3f m)", worstOurs, worstGDAL, half)
			}
			// The neighbour to the east: the lines of both cross the shared
			// edge at the same points.
			east := contourTile(t, ogr2ogr, base, dir, tc.z, x+1, y)
			edge := minX + size
			crossed := 0
			for lv, ol := range ours {
				a, b := crossings(ol, edge), crossings(east[lv], edge)
				if len(a) != len(b) {
					t.Errorf("level %v: the tile crosses its east edge %d times, its neighbour %d times", lv, len(a), len(b))
					continue
				}
				for i := range a {
					crossed++
					if math.Abs(a[i]-b[i]) > unit {
						t.Errorf("level %v: crossing at %.3f m in the tile, %.3f m in its neighbour (tile unit %.3f m)", lv, a[i], b[i], unit)
					}
				}
			}
			if crossed == 0 {
				t.Errorf("no line crosses the edge between %d/%d/%d and its east neighbour", tc.z, x, y)
			}
			t.Logf("%d crossings of the east edge agree", crossed)
		})
	}
}

// contourTile gets one contour tile and reads its lines with GDAL's MVT
// driver, in EPSG:3857 metres (not clipped to the tile: the buffer too).
func contourTile(t *testing.T, ogr2ogr, base, dir string, z, x, y int) map[float64][][][2]float64 {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/v1/terrain/contours/%d/%d/%d.mvt", base, z, x, y))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
		t.Fatalf("%d %s %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	name := fmt.Sprintf("%d-%d-%d", z, x, y)
	tile, out := filepath.Join(dir, name+".mvt"), filepath.Join(dir, name+".json")
	if err := os.WriteFile(tile, body, 0o644); err != nil {
		t.Fatal(err)
	}
	oo := []string{"-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z)}
	info := toolOut(t, testtool.Require(t, "ogrinfo", "apt-get install gdal-bin"), append(append([]string{"-ro", "-so", tile}, oo...), "contours")...)
	for _, want := range []string{"Layer name: contours", "Geometry: Line String", "elevation_m: Integer (", "index: Integer(Boolean) ("} {
		if !strings.Contains(info, want) {
			t.Fatalf("ogrinfo of %s lacks %q:\n%s", name, want, info)
		}
	}
	toolOut(t, ogr2ogr, append(append([]string{"-f", "GeoJSON", out, tile}, oo...), "-oo", "CLIP=NO", "contours")...)
	return readContourLines(t, out, "elevation_m")
}

// readContourLines reads the (multi)line strings of a GeoJSON file by
// their level property.
func readContourLines(t *testing.T, path, prop string) map[float64][][][2]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any
			Geometry   *struct {
				Type        string
				Coordinates json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	out := map[float64][][][2]float64{}
	for _, f := range fc.Features {
		lv, ok := f.Properties[prop].(float64)
		if !ok || f.Geometry == nil {
			t.Fatalf("%s: feature %v without %s or geometry", path, f.Properties, prop)
		}
		var parts [][][]float64
		switch f.Geometry.Type {
		case "LineString":
			var p [][]float64
			json.Unmarshal(f.Geometry.Coordinates, &p)
			parts = append(parts, p)
		case "MultiLineString":
			json.Unmarshal(f.Geometry.Coordinates, &parts)
		default:
			t.Fatalf("%s: a %s", path, f.Geometry.Type)
		}
		for _, p := range parts {
			var l [][2]float64
			for _, c := range p {
				l = append(l, [2]float64{c[0], c[1]})
			}
			out[lv] = append(out[lv], l)
		}
	}
	return out
}

func levelsOf(m map[float64][][][2]float64) []float64 {
	var out []float64
	for lv := range m {
		out = append(out, lv)
	}
	slices.Sort(out)
	return out
}

// farthestOnLines is the largest distance from every step-th vertex of a
// that keep admits (nil: all) to the lines b, and how many vertices it
// measured; segments of b are bucketed in 5 m cells.
func farthestOnLines(a, b [][][2]float64, step int, keep func([2]float64) bool) (float64, int) {
	const cell = 5.0
	type key [2]int
	buckets := map[key][][2][2]float64{}
	for _, l := range b {
		for i := 1; i < len(l); i++ {
			p, q := l[i-1], l[i]
			for cx := int(math.Floor(math.Min(p[0], q[0])/cell)) - 1; cx <= int(math.Floor(math.Max(p[0], q[0])/cell))+1; cx++ {
				for cy := int(math.Floor(math.Min(p[1], q[1])/cell)) - 1; cy <= int(math.Floor(math.Max(p[1], q[1])/cell))+1; cy++ {
					buckets[key{cx, cy}] = append(buckets[key{cx, cy}], [2][2]float64{p, q})
				}
			}
		}
	}
	worst, n := 0.0, 0
	for _, l := range a {
		for i := 0; i < len(l); i += step {
			p := l[i]
			if keep != nil && !keep(p) {
				continue
			}
			best := cell // nothing nearby: at least a cell away
			for _, s := range buckets[key{int(math.Floor(p[0] / cell)), int(math.Floor(p[1] / cell))}] {
				best = math.Min(best, segDist(p, s[0], s[1]))
			}
			worst = math.Max(worst, best)
			n++
		}
	}
	return worst, n
}

// crossings are the northings where lines cross the meridian x, sorted.
func crossings(lines [][][2]float64, x float64) []float64 {
	var out []float64
	for _, l := range lines {
		for i := 1; i < len(l); i++ {
			p, q := l[i-1], l[i]
			if (p[0] < x) != (q[0] < x) {
				out = append(out, p[1]+(x-p[0])/(q[0]-p[0])*(q[1]-p[1]))
			}
		}
	}
	slices.Sort(out)
	return out
}
