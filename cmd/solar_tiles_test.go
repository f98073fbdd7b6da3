package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// solarBestWhM2 is the best plane's annual of the test stores.
const solarBestWhM2 = 1_150_000

// solarValue is the annual irradiation the test stores give facet (sid,
// part): distinct per facet, spread over 300 to 1,300 kWh/m².
func solarValue(sid int64, part int) int64 {
	return 300_000 + (sid*7919+int64(part)*104729)%1_000_001
}

// solarSamples imports the real NRW and Berlin samples and publishes a
// solar pack for NRW only (Berlin stays without one). big is the NRW
// facet of the largest horizontal area, with its value.
func solarSamples(t *testing.T) (data string, big fixture.SolarFacet, bigWhM2 int64) {
	t.Helper()
	ctx := context.Background()
	data = wholeSamples(t)
	c := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	defer c.Close()
	v, err := c.Reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lp, ok := v.Pack(pack.LoD2, "nrw")
	if !ok {
		t.Fatal("no NRW LoD2 pack")
	}
	_, err = fixture.SolarPack(ctx, data, "2026-07-21", lp.Manifest, lp.LoD2, solarBestWhM2, func(f fixture.SolarFacet) int64 {
		if f.AreaM2 > big.AreaM2 {
			big = f
			big.Coords = append([]byte(nil), f.Coords...)
		}
		return solarValue(f.SurfaceID, f.Part)
	})
	if err != nil {
		t.Fatal(err)
	}
	return data, big, solarValue(big.SurfaceID, big.Part)
}

// solarTileJSON is what the tests read of /v1/solar/tiles.json.
type solarTileJSON struct {
	Tiles       []string  `json:"tiles"`
	MinZoom     int       `json:"minzoom"`
	MaxZoom     int       `json:"maxzoom"`
	Bounds      []float64 `json:"bounds"`
	Attribution string    `json:"attribution"`
	LegendText  string    `json:"legend"`
	Legend      struct {
		Property string `json:"property"`
		Stops    []struct {
			Value float64 `json:"value"`
			Color string  `json:"color"`
			Class string  `json:"class"`
		} `json:"stops"`
		Classes []struct {
			Class    string   `json:"class"`
			MinShare float64  `json:"min_share_of_best"`
			MinKWhM2 *float64 `json:"min_kwh_m2"`
		} `json:"classes"`
	} `json:"solar_legend"`
}

// colourAt interpolates the legend's stops linearly in sRGB, as the
// TileJSON says the tiles do.
func (tj solarTileJSON) colourAt(kwh float64) [3]float64 {
	hex := func(s string) [3]float64 {
		v, _ := strconv.ParseUint(s[1:], 16, 32)
		return [3]float64{float64(v >> 16), float64(v >> 8 & 0xff), float64(v & 0xff)}
	}
	st := tj.Legend.Stops
	if kwh <= st[0].Value {
		return hex(st[0].Color)
	}
	for i := 1; i < len(st); i++ {
		if kwh <= st[i].Value {
			a, b := hex(st[i-1].Color), hex(st[i].Color)
			f := (kwh - st[i-1].Value) / (st[i].Value - st[i-1].Value)
			return [3]float64{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1]), a[2] + f*(b[2]-a[2])}
		}
	}
	return hex(st[len(st)-1].Color)
}

// interiorPoint is the point of the facet's outer ring (GeoJSON Polygon
// coordinates, WGS84) farthest from its outline, searched on a grid in
// global Web Mercator pixels of zoom z, and that distance in pixels.
func interiorPoint(t *testing.T, coords []byte, z int) (gx, gy, dist float64) {
	t.Helper()
	var rings [][][]float64
	if err := json.Unmarshal(coords, &rings); err != nil {
		t.Fatal(err)
	}
	n := 256 * math.Exp2(float64(z))
	var ring [][2]float64
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range rings[0] {
		x := (p[0] + 180) / 360 * n
		y := (1 - math.Asinh(math.Tan(p[1]*math.Pi/180))/math.Pi) / 2 * n
		ring = append(ring, [2]float64{x, y})
		minX, minY, maxX, maxY = math.Min(minX, x), math.Min(minY, y), math.Max(maxX, x), math.Max(maxY, y)
	}
	for y := minY; y <= maxY; y += 0.25 {
		for x := minX; x <= maxX; x += 0.25 {
			if !pointInRing(ring, x, y) {
				continue
			}
			if d := ringDist(ring, x, y); d > dist {
				gx, gy, dist = x, y, d
			}
		}
	}
	return gx, gy, dist
}

func pointInRing(ring [][2]float64, x, y float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a[1] > y) != (b[1] > y) && x < (b[0]-a[0])*(y-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

func ringDist(ring [][2]float64, x, y float64) float64 {
	d := math.Inf(1)
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[j], ring[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		f := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			f = math.Max(0, math.Min(1, ((x-a[0])*dx+(y-a[1])*dy)/l))
		}
		d = math.Min(d, math.Hypot(x-a[0]-f*dx, y-a[1]-f*dy))
	}
	return d
}

func solarGet(t *testing.T, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestSolarMapTiles serves the real NRW and Berlin samples with a solar
// pack for NRW and judges what a map client gets:
//   - /v1/solar/tiles.json: zoom 14-19, the NRW pack's bounds, an
//     attribution naming the LoD2 source and the climate input, a legend of
//     ascending stops and the four classes starting at 90/80/70 % of the
//     store's best plane (1150 kWh/m²), each stop labelled with its class;
//   - the z18 PNG tile over the interior of the sample's largest roof
//     facet has, at that pixel, the legend's colour of the facet's stored
//     value (within 1 of 255), opaque; the same tile with its ETag answers
//     304; a tile over Berlin (no solar pack) is entirely transparent;
//   - a tile below zoom 14 and a tile off the grid are problems, not PNGs;
//   - a server without any solar pack answers tiles.json with a 404
//     problem.
func TestSolarMapTiles(t *testing.T) {
	data, big, bigWh := solarSamples(t)
	base := serveData(t, data)
	resp, body := solarGet(t, base+"/v1/solar/tiles.json", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("tiles.json: %d %s", resp.StatusCode, body)
	}
	var tj solarTileJSON
	if err := json.Unmarshal(body, &tj); err != nil {
		t.Fatal(err)
	}
	// Bounds: the NRW sample's (west of 6° E), not Berlin's.
	if tj.MinZoom != 14 || tj.MaxZoom != 19 || len(tj.Tiles) != 1 || len(tj.Bounds) != 4 || tj.Bounds[0] < 5.8 || tj.Bounds[2] > 6 ||
		tj.Bounds[0] >= tj.Bounds[2] || tj.Bounds[1] >= tj.Bounds[3] || tj.Legend.Property != "annual_kwh_m2" || len(tj.Legend.Stops) < 2 {
		t.Fatalf("tiles.json: %s", body)
	}
	for _, want := range []string{"kWh/m²", "300 #440154", "1300 #fde725", "very good from 90 % (1035 kWh/m²)", "poor below"} {
		if !strings.Contains(tj.LegendText, want) {
			t.Errorf("legend %q (TileJSON 3.11: a string) does not say %q", tj.LegendText, want)
		}
	}
	for _, want := range []string{"PVGIS-SARAH3 (test fixture) 2005–2023", "fixture.csv"} {
		if !bytes.Contains([]byte(tj.Attribution), []byte(want)) {
			t.Errorf("attribution %q does not name the climate input (%q)", tj.Attribution, want)
		}
	}
	for i, s := range tj.Legend.Stops {
		if i > 0 && s.Value <= tj.Legend.Stops[i-1].Value {
			t.Errorf("stops not ascending: %+v", tj.Legend.Stops)
		}
		share := s.Value * 1000 / solarBestWhM2
		want := map[bool]string{true: "very_good"}[share >= 0.9]
		switch {
		case want != "":
		case share >= 0.8:
			want = "good"
		case share >= 0.7:
			want = "fair"
		default:
			want = "poor"
		}
		if s.Class != want {
			t.Errorf("stop %.0f kWh/m² (share %.3f) labelled %q, want %q", s.Value, share, s.Class, want)
		}
	}
	wantClasses := []struct {
		name  string
		share float64
	}{{"very_good", 0.9}, {"good", 0.8}, {"fair", 0.7}, {"poor", 0}}
	if len(tj.Legend.Classes) != len(wantClasses) {
		t.Fatalf("classes %+v", tj.Legend.Classes)
	}
	for i, w := range wantClasses {
		c := tj.Legend.Classes[i]
		if c.Class != w.name || c.MinShare != w.share || (w.share > 0 && (c.MinKWhM2 == nil || math.Abs(*c.MinKWhM2-w.share*1150) > 0.01)) {
			t.Errorf("class %d: %+v, want %s from %.2f (%.1f kWh/m²)", i, c, w.name, w.share, w.share*1150)
		}
	}

	// The largest facet's interior pixel at z18.
	const z = 18
	gx, gy, d := interiorPoint(t, big.Coords, z)
	if d < 2 {
		t.Fatalf("the largest facet (%.1f m²) has no pixel 2 px inside its outline at z%d", big.AreaM2, z)
	}
	tx, ty := int(gx/256), int(gy/256)
	px, py := int(gx)-tx*256, int(gy)-ty*256
	url := fmt.Sprintf("%s/v1/solar/%d/%d/%d.png", base, z, tx, ty)
	resp, body = solarGet(t, url, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || resp.Header.Get("ETag") == "" {
		t.Fatalf("%s: %d %s %.200s", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(artefactDir(t), "solar-tile.png"), body, 0o644)
	got := color.NRGBAModel.Convert(img.At(px, py)).(color.NRGBA)
	want := tj.colourAt(float64(bigWh) / 1000)
	if got.A != 255 || math.Abs(float64(got.R)-want[0]) > 1 || math.Abs(float64(got.G)-want[1]) > 1 || math.Abs(float64(got.B)-want[2]) > 1 {
		t.Errorf("pixel (%d,%d) of %s inside facet %d/%d (%.3f kWh/m²): %v, the legend's colour %v", px, py, url, big.SurfaceID, big.Part,
			float64(bigWh)/1000, got, want)
	}
	if r304, _ := solarGet(t, url, map[string]string{"If-None-Match": resp.Header.Get("ETag")}); r304.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the tile's ETag: %d", r304.StatusCode)
	}
	// Berlin (no solar pack): a transparent tile.
	n := math.Exp2(z)
	bx := int((13.40172 + 180) / 360 * n)
	by := int((1 - math.Asinh(math.Tan(52.49683*math.Pi/180))/math.Pi) / 2 * n)
	resp, body = solarGet(t, fmt.Sprintf("%s/v1/solar/%d/%d/%d.png", base, z, bx, by), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("Berlin tile: %d %s", resp.StatusCode, body)
	}
	bimg, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 256; y++ {
		for x := 0; x < 256; x++ {
			if _, _, _, a := bimg.At(x, y).RGBA(); a != 0 {
				t.Fatalf("Berlin tile (no solar pack): pixel (%d,%d) alpha %d", x, y, a>>8)
			}
		}
	}
	for _, bad := range []string{"/v1/solar/13/4264/2740.png", "/v1/solar/18/300000/1.png", "/v1/solar/18/1/2.jpg", "/v1/solar/20/1/1.png"} {
		resp, body := solarGet(t, base+bad, nil)
		if resp.StatusCode < 400 || resp.StatusCode >= 500 || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s %.200s", bad, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	// Without a solar pack the layer does not exist.
	resp, body = solarGet(t, serveData(t, demoData(t))+"/v1/solar/tiles.json", nil)
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("tiles.json without a solar pack: %d %s", resp.StatusCode, body)
	}
}

// TestSolarRoofAttributesWithGDAL reads the roofs layer of z16 building
// vector tiles with GDAL's MVT driver and judges the solar attributes
// against the store, which GDAL's SQLite driver reads straight from the
// solar pack's file: over the NRW sample every roof feature carries
// annual_kwh_m2 equal to the stored annual (kWh/m², two decimals) of one
// of its surface's facets, share_of_best that value over the store's
// best plane (three decimals) and the class of that share; over Berlin,
// without a solar pack, no roof feature has any of the three. tiles.json
// lists the three fields.
func TestSolarRoofAttributesWithGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	data, _, _ := solarSamples(t)
	base := serveData(t, data)
	dir := t.TempDir()
	stores, _ := filepath.Glob(filepath.Join(data, "solar", "nrw", "*", "solar.sqlite"))
	if len(stores) != 1 {
		t.Fatalf("solar stores %v", stores)
	}
	csvPath := filepath.Join(dir, "facets.csv")
	toolOut(t, ogr2ogr, "-f", "CSV", csvPath, stores[0], "-sql", "SELECT surface_id, part, annual_wh_m2 FROM facets")
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) < 2 {
		t.Fatalf("facets.csv: %v, %d rows", err, len(rows))
	}
	stored := map[float64][]float64{} // surface id -> annual Wh/m² of its facets
	for _, r := range rows[1:] {
		sid, _ := strconv.ParseFloat(r[0], 64)
		wh, _ := strconv.ParseFloat(r[2], 64)
		stored[sid] = append(stored[sid], wh)
	}
	_, tjBody := solarGet(t, base+"/v1/buildings/tiles.json", nil)
	for _, k := range []string{`"annual_kwh_m2":"Number"`, `"share_of_best":"Number"`, `"class":"String"`} {
		if !bytes.Contains(tjBody, []byte(k)) {
			t.Errorf("the building tiles.json does not list %s", k)
		}
	}
	for _, tc := range []struct {
		name     string
		lon, lat float64
		solar    bool
	}{{"NRW with a solar pack", 5.8739, 51.0424, true}, {"Berlin without", 13.40172, 52.49683, false}} {
		t.Run(tc.name, func(t *testing.T) {
			const z = 16
			n := math.Exp2(z)
			x := int((tc.lon + 180) / 360 * n)
			y := int((1 - math.Asinh(math.Tan(tc.lat*math.Pi/180))/math.Pi) / 2 * n)
			resp, body := solarGet(t, fmt.Sprintf("%s/v1/buildings/tiles/%d/%d/%d.mvt", base, z, x, y), nil)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %.200s", resp.StatusCode, body)
			}
			tile := filepath.Join(dir, fmt.Sprint(tc.solar)+".mvt")
			os.WriteFile(tile, body, 0o644)
			out := filepath.Join(dir, fmt.Sprint(tc.solar)+".json")
			toolOut(t, ogr2ogr, "-f", "GeoJSON", out, tile, "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z), "roofs")
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var fc struct {
				Features []struct {
					Properties map[string]any `json:"properties"`
				} `json:"features"`
			}
			if err := json.Unmarshal(b, &fc); err != nil {
				t.Fatal(err)
			}
			if len(fc.Features) < 10 {
				t.Fatalf("%d roof features", len(fc.Features))
			}
			for _, f := range fc.Features {
				p := f.Properties
				sid, _ := p["surface_id"].(float64)
				annual, hasA := p["annual_kwh_m2"].(float64)
				share, hasS := p["share_of_best"].(float64)
				class, hasC := p["class"].(string)
				if !tc.solar {
					if hasA || hasS || hasC {
						t.Fatalf("surface %v in a BL without a solar pack: %v", sid, p)
					}
					continue
				}
				if !hasA || !hasS || !hasC {
					t.Fatalf("surface %v: no solar values: %v", sid, p)
				}
				match := false
				for _, wh := range stored[sid] {
					if annual == math.Round(wh/10)/100 {
						match = true
						wantShare := math.Round(wh/solarBestWhM2*1000) / 1000
						wantClass := "poor"
						switch {
						case wantShare >= 0.9:
							wantClass = "very_good"
						case wantShare >= 0.8:
							wantClass = "good"
						case wantShare >= 0.7:
							wantClass = "fair"
						}
						if share != wantShare || class != wantClass {
							t.Errorf("surface %v: share %v class %q, want %v %q", sid, share, class, wantShare, wantClass)
						}
					}
				}
				if !match {
					t.Errorf("surface %v: annual_kwh_m2 %v is none of its stored facets' %v Wh/m²", sid, annual, stored[sid])
				}
			}
		})
	}
}

// TestSolarRoofAttributesInPMTilesExport: `svc export pmtiles --layers
// buildings` over the real NRW sample with a solar pack writes roofs that
// carry the solar fields: the z16 tile the pmtiles CLI reads back from the
// archive, read by GDAL's MVT driver, has annual_kwh_m2 on every roof
// feature, the stored value of one of its surface's facets.
func TestSolarRoofAttributesInPMTilesExport(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	cli := testtool.PMTilesCLI(t)
	data, _, _ := solarSamples(t)
	dir := t.TempDir()
	archive := filepath.Join(dir, "nrw.pmtiles")
	const lon, lat, z = 5.8739, 51.0424, 16
	if out, err := run(context.Background(), "export", "pmtiles", "--data", data, "--bbox", "5.872,51.041,5.875,51.043", "--layers", "buildings",
		"--minzoom", "16", "--maxzoom", "16", "--workers", "1", archive); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	n := math.Exp2(z)
	x := int((lon + 180) / 360 * n)
	y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
	raw, err := exec.Command(cli, "tile", archive, fmt.Sprint(z), fmt.Sprint(x), fmt.Sprint(y)).Output()
	if err != nil || len(raw) == 0 {
		t.Fatalf("pmtiles tile %d/%d/%d: %v (%d bytes)", z, x, y, err, len(raw))
	}
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	tile, out := filepath.Join(dir, "tile.mvt"), filepath.Join(dir, "roofs.json")
	os.WriteFile(tile, raw, 0o644)
	toolOut(t, ogr2ogr, "-f", "GeoJSON", out, tile, "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z), "roofs")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(b, &fc); err != nil || len(fc.Features) < 10 {
		t.Fatalf("%v, %d roof features", err, len(fc.Features))
	}
	for _, f := range fc.Features {
		sid, _ := f.Properties["surface_id"].(float64)
		annual, ok := f.Properties["annual_kwh_m2"].(float64)
		if !ok {
			t.Fatalf("surface %v: no annual_kwh_m2 in the archive's tile: %v", sid, f.Properties)
		}
		match := false
		for part := 0; part < 64 && !match; part++ {
			match = annual == math.Round(float64(solarValue(int64(sid), part))/10)/100
		}
		if !match {
			t.Errorf("surface %v: annual_kwh_m2 %v is no stored value of its facets", sid, annual)
		}
	}
}
