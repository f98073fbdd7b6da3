package cmd

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// ogcTileLinks is what GDAL reads of a tileset: its links.
type ogcTileLinks struct {
	DataType string
	Links    []struct{ Href, Rel, Type string }
}

func (l ogcTileLinks) href(rel, typ string) string {
	for _, k := range l.Links {
		if k.Rel == rel && (typ == "" || k.Type == typ) {
			return k.Href
		}
	}
	return ""
}

// TestOGCTilesWithGDAL reads the OGC API - Tiles of `svc serve` on the
// demo pack with GDAL, following the links as a client does (collection
// or landing page, tilesets list, tileset, item template):
//   - GDAL's MVT driver reads the building tile the buildings collection's
//     item template names and finds the same features, attributes and
//     geometries, in both layers, as in the /v1 tile of that z/x/y; in the
//     dataset's tile it finds those and the contour lines of the /v1
//     contour tile;
//   - GDAL's PNG driver reads the hillshade tile of the dataset's map
//     tileset with the same bands and checksums as the /v1 hillshade tile;
//   - GDAL's TileMatrixSet parser (the COG driver's TILING_SCHEME, given
//     the document's text as the OGCAPI driver gives it) takes the
//     tiling-scheme document and lays a raster out on the grid of its
//     built-in GoogleMapsCompatible (WebMercatorQuad).
//
// GDAL 3.6's OGCAPI driver itself is not the judge: it opens map tilesets
// only from a collection, and its vector-tile branch is compiled out of
// the CMake builds of 3.6 to 3.7.0 (docs/ogc-tiles.md).
func TestOGCTilesWithGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	gdalinfo := testtool.Require(t, "gdalinfo", "apt-get install gdal-bin")
	gdalTranslate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	gdalCreate := testtool.Require(t, "gdal_create", "apt-get install gdal-bin")
	base := serveData(t, demoData(t))
	dir := t.TempDir()
	get := func(url, name string) string {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Fatalf("GET %s: %d %.300s", url, resp.StatusCode, body)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tileset := func(tilesetsURL string) ogcTileLinks {
		t.Helper()
		var list struct{ Tilesets []ogcTileLinks }
		getJSON(t, tilesetsURL, &list)
		if len(list.Tilesets) != 1 {
			t.Fatalf("%s: %+v", tilesetsURL, list)
		}
		var ts ogcTileLinks
		getJSON(t, list.Tilesets[0].href("self", "application/json"), &ts)
		return ts
	}
	item := func(ts ogcTileLinks, typ string, z, row, col int) string {
		tpl := ts.href("item", typ)
		if !strings.Contains(tpl, "{tileMatrix}/{tileRow}/{tileCol}") {
			t.Fatalf("item template %q", tpl)
		}
		return strings.NewReplacer("{tileMatrix}", fmt.Sprint(z), "{tileRow}", fmt.Sprint(row), "{tileCol}", fmt.Sprint(col)).Replace(tpl)
	}

	t.Run("vector tile of the buildings collection", func(t *testing.T) {
		var coll ogcTileLinks
		getJSON(t, base+"/ogc/collections/buildings", &coll)
		ts := tileset(coll.href("http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector", ""))
		const z = 16
		x, y := tileXY(8.67815, 50.11295, z)
		ours := get(item(ts, "application/vnd.mapbox-vector-tile", z, y, x), "ogc.mvt")
		v1 := get(fmt.Sprintf("%s/v1/buildings/tiles/%d/%d/%d.mvt", base, z, x, y), "v1.mvt")
		for _, layer := range []string{"buildings", "roofs"} {
			var out [2][]byte
			for i, src := range []string{ours, v1} {
				js := filepath.Join(dir, fmt.Sprintf("%s-%d.json", layer, i))
				toolOut(t, ogr2ogr, "-f", "GeoJSON", js, src, "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z), layer)
				out[i], _ = os.ReadFile(js)
			}
			n := bytes.Count(out[0], []byte(`"type": "Feature"`))
			if n == 0 || !bytes.Equal(out[0], out[1]) {
				t.Errorf("layer %s: GDAL reads %d features from the OGC tile and a different reading from the /v1 tile", layer, n)
			}
			t.Logf("layer %s: %d features", layer, n)
		}
	})

	t.Run("vector tile of the dataset", func(t *testing.T) {
		var landing ogcTileLinks
		getJSON(t, base+"/ogc", &landing)
		ts := tileset(landing.href("http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector", ""))
		const z = 16
		x, y := tileXY(8.67815, 50.11295, z)
		ours := get(item(ts, "application/vnd.mapbox-vector-tile", z, y, x), "dataset.mvt")
		v1 := map[string]string{
			"buildings": get(fmt.Sprintf("%s/v1/buildings/tiles/%d/%d/%d.mvt", base, z, x, y), "v1b.mvt"),
			"contours":  get(fmt.Sprintf("%s/v1/terrain/contours/%d/%d/%d.mvt", base, z, x, y), "v1c.mvt"),
		}
		v1["roofs"] = v1["buildings"]
		for _, layer := range []string{"buildings", "roofs", "contours"} {
			var out [2][]byte
			for i, src := range []string{ours, v1[layer]} {
				js := filepath.Join(dir, fmt.Sprintf("dataset-%s-%d.json", layer, i))
				toolOut(t, ogr2ogr, "-f", "GeoJSON", js, src, "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z), layer)
				out[i], _ = os.ReadFile(js)
			}
			n := bytes.Count(out[0], []byte(`"type": "Feature"`))
			if n == 0 || !bytes.Equal(out[0], out[1]) {
				t.Errorf("layer %s: GDAL reads %d features from the dataset tile and a different reading from the /v1 tile", layer, n)
			}
			t.Logf("dataset tile, layer %s: %d features", layer, n)
		}
	})

	t.Run("map tile of the dataset", func(t *testing.T) {
		var landing ogcTileLinks
		getJSON(t, base+"/ogc", &landing)
		ts := tileset(landing.href("http://www.opengis.net/def/rel/ogc/1.0/tilesets-map", ""))
		if ts.DataType != "map" {
			t.Fatalf("dataType %q", ts.DataType)
		}
		const z = 16
		x, y := tileXY(8.6685, 50.1153, z)
		info := func(p string) string {
			out := toolOut(t, gdalinfo, "-checksum", p)
			return strings.Join(regexp.MustCompile(`(?m)^Band \d.*$|Checksum=\d+`).FindAllString(out, -1), "\n")
		}
		ours := info(get(item(ts, "image/png", z, y, x), "ogc.png"))
		v1 := info(get(fmt.Sprintf("%s/v1/terrain/hillshade/%d/%d/%d.png", base, z, x, y), "v1.png"))
		if !strings.Contains(ours, "Checksum=") || ours != v1 {
			t.Errorf("GDAL reads the OGC map tile as\n%s\nand the /v1 tile as\n%s", ours, v1)
		}
	})

	t.Run("tiling scheme", func(t *testing.T) {
		var ts ogcTileLinks
		getJSON(t, base+"/ogc/collections/buildings/tiles/WebMercatorQuad", &ts)
		tms := get(ts.href("http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme", "application/json"), "tms.json")
		src := filepath.Join(dir, "src.tif")
		toolOut(t, gdalCreate, "-of", "GTiff", "-outsize", "400", "400", "-bands", "1", "-a_srs", "EPSG:4326", "-a_ullr", "8.6", "50.2", "8.7", "50.1", src)
		// The size in pixels, the origin and the pixel size GDAL gives the
		// COG on a tiling scheme.
		grid := func(scheme, name string) []float64 {
			p := filepath.Join(dir, name)
			toolOut(t, gdalTranslate, "-q", "-of", "COG", "-co", "TILING_SCHEME="+scheme, src, p)
			m := regexp.MustCompile(`Size is (\d+), (\d+)[\s\S]*Origin = \(([-\d.]+),([-\d.]+)\)\s+Pixel Size = \(([-\d.]+),([-\d.]+)\)`).FindStringSubmatch(toolOut(t, gdalinfo, p))
			if m == nil {
				t.Fatalf("gdalinfo %s: no grid", p)
			}
			var v []float64
			for _, s := range m[1:] {
				f, _ := strconv.ParseFloat(s, 64)
				v = append(v, f)
			}
			return v
		}
		// The document goes in as text, the way GDAL's OGCAPI driver hands
		// a downloaded tiling scheme to the same parser (a file name takes
		// another path in GDAL 3.6, which reads a 2.0-only document that
		// the text path refuses).
		doc, err := os.ReadFile(tms)
		if err != nil {
			t.Fatal(err)
		}
		ours, want := grid(string(doc), "ours.tif"), grid("GoogleMapsCompatible", "gmc.tif")
		for i := range want {
			// GDAL derives the cell size from scaleDenominator × 0.28 mm:
			// the two agree to 1e-12 of the value (the last digits of the
			// decimal scale denominator), 1 µm at the origin.
			if math.Abs(ours[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("GDAL lays the raster out as %v (size, origin, pixel size) on the served WebMercatorQuad, as %v on its GoogleMapsCompatible", ours, want)
			}
		}
		t.Logf("size, origin, pixel size: %v", ours)
	})
}

// tileXY is the XYZ tile of lon, lat at zoom z.
func tileXY(lon, lat float64, z int) (x, y int) {
	n := float64(int(1) << z)
	s := math.Sin(lat * math.Pi / 180)
	return int((lon + 180) / 360 * n), int((0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)) * n)
}
