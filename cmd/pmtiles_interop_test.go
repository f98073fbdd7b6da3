package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pmtiles"
)

// pmtilesBBox covers the demo DGM of Hessen (8.663-8.693 E, 50.110-50.121 N)
// with a margin of tiles without data.
const pmtilesBBox = "8.66,50.105,8.70,50.125"

type zxy struct{ z, x, y int }

// archiveTiles reads every tile an archive addresses with our reader.
func archiveTiles(t *testing.T, path string) (pmtiles.Header, map[zxy][]byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := pmtiles.Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	tiles := map[zxy][]byte{}
	err = r.Entries(func(e pmtiles.Entry) error {
		for k := range uint64(e.RunLength) {
			z, x, y := pmtiles.ZXY(e.TileID + k)
			b, err := r.Tile(context.Background(), z, x, y)
			if err != nil {
				return err
			}
			tiles[zxy{int(z), int(x), int(y)}] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r.Header(), tiles
}

func getBody(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestExportPMTiles exports the hillshade of the demo Hessen DGM at zooms
// 12-16 and judges the archive as its users would: the same bytes for 1
// and 4 workers; protomaps' own `pmtiles verify` passes and `pmtiles show`
// reports the bounds, zooms and tile type we wrote; every tile read back
// (with our reader and with `pmtiles tile`) is byte for byte what the full
// server answers; and `svc serve --pmtiles` on an empty data directory
// answers the same bytes and a TileJSON of the archive's bounds and zooms.
func TestExportPMTiles(t *testing.T) {
	data := demoData(t)
	dir := t.TempDir()
	archive := filepath.Join(dir, "he-hillshade.pmtiles")
	for _, w := range []string{"1", "4"} {
		out, err := run(context.Background(), "export", "pmtiles", "--data", data, "--bbox", pmtilesBBox, "--layers", "hillshade",
			"--minzoom", "12", "--maxzoom", "16", "--workers", w, filepath.Join(dir, "w"+w+".pmtiles"))
		if err != nil {
			t.Fatalf("export --workers %s: %v\n%s", w, err, out)
		}
		if !strings.Contains(out, "export pmtiles hillshade: ") || !strings.Contains(out, "wrote ") {
			t.Fatalf("no progress or summary:\n%s", out)
		}
	}
	one, _ := os.ReadFile(filepath.Join(dir, "w1.pmtiles"))
	four, _ := os.ReadFile(filepath.Join(dir, "w4.pmtiles"))
	if len(one) == 0 || !bytes.Equal(one, four) {
		t.Fatalf("--workers 1 wrote %d bytes, --workers 4 %d different ones", len(one), len(four))
	}
	if err := os.Rename(filepath.Join(dir, "w1.pmtiles"), archive); err != nil {
		t.Fatal(err)
	}
	h, tiles := archiveTiles(t, archive)
	if h.MinZoom != 12 || h.MaxZoom != 16 || h.TileType != pmtiles.PNG || len(tiles) != int(h.AddressedTiles) || h.TileContents >= h.AddressedTiles {
		t.Fatalf("header %+v with %d tiles: want png, zooms 12-16, the no-data tiles stored once", h, len(tiles))
	}
	full := serveData(t, data)

	t.Run("pmtiles verify and show", func(t *testing.T) {
		cli := testtool.PMTilesCLI(t)
		out, err := exec.Command(cli, "verify", archive).CombinedOutput()
		if err != nil || strings.Contains(string(out), "Invalid") {
			t.Fatalf("pmtiles verify: %v\n%s", err, out)
		}
		out, err = exec.Command(cli, "show", "--header-json", archive).Output()
		if err != nil {
			t.Fatalf("pmtiles show: %v\n%s", err, out)
		}
		var hj struct {
			TileType string    `json:"tile_type"`
			MinZoom  int       `json:"minzoom"`
			MaxZoom  int       `json:"maxzoom"`
			Bounds   []float64 `json:"bounds"`
		}
		if err := json.Unmarshal(out, &hj); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if hj.TileType != "png" || hj.MinZoom != 12 || hj.MaxZoom != 16 || fmt.Sprint(hj.Bounds) != "[8.66 50.105 8.7 50.125]" {
			t.Fatalf("pmtiles show: %+v, want png, zooms 12-16, bounds %s", hj, pmtilesBBox)
		}
		out, err = exec.Command(cli, "show", "--metadata", archive).Output()
		if err != nil || !strings.Contains(string(out), `"svc_layer":"hillshade"`) && !strings.Contains(string(out), `"svc_layer": "hillshade"`) {
			t.Fatalf("pmtiles show --metadata: %v\n%s", err, out)
		}
		n := 0
		for a, want := range tiles {
			if n++; n > 20 {
				break
			}
			got, err := exec.Command(cli, "tile", archive, fmt.Sprint(a.z), fmt.Sprint(a.x), fmt.Sprint(a.y)).Output()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("pmtiles tile %v: %d bytes (%v), ours %d", a, len(got), err, len(want))
			}
		}
	})

	t.Run("served offline equals the full server", func(t *testing.T) {
		off := serveData(t, t.TempDir(), "--pmtiles", archive)
		for a, stored := range tiles {
			path := fmt.Sprintf("/v1/terrain/hillshade/%d/%d/%d.png", a.z, a.x, a.y)
			fs, fb := getBody(t, full+path)
			ofs, ob := getBody(t, off+path)
			if fs != 200 || ofs != 200 || !bytes.Equal(fb, ob) || !bytes.Equal(fb, stored) {
				t.Fatalf("%s: full server %d (%d bytes), offline %d (%d bytes), archive %d bytes: want 200 and equal bytes", path, fs, len(fb), ofs, len(ob), len(stored))
			}
		}
		// Beyond the archive (no DGM there either): the same transparent tile.
		path := "/v1/terrain/hillshade/12/2048/1361.png"
		fs, fb := getBody(t, full+path)
		if ofs, ob := getBody(t, off+path); fs != 200 || ofs != 200 || !bytes.Equal(fb, ob) {
			t.Fatalf("%s outside the archive: full %d, offline %d, equal %v", path, fs, ofs, bytes.Equal(fb, ob))
		}
		if st, b := getBody(t, off+"/v1/terrain/hillshade/14/8586/5547@2x.png"); st != 404 || !strings.Contains(string(b), "offline bundle") {
			t.Fatalf("@2x from the bundle: %d %s, want a 404 problem naming the bundle", st, b)
		}
		// Published DGM wins over a bundle: with both, @2x is rendered live.
		both := serveData(t, data, "--pmtiles", archive)
		fs2, fb2 := getBody(t, full+"/v1/terrain/hillshade/14/8586/5547@2x.png")
		if st, b := getBody(t, both+"/v1/terrain/hillshade/14/8586/5547@2x.png"); fs2 != 200 || st != 200 || !bytes.Equal(b, fb2) {
			t.Fatalf("@2x with DGM and bundle: %d, full server %d: want the live tile", st, fs2)
		}
		_, tj := getBody(t, off+"/v1/terrain/hillshade.json")
		var j struct {
			MinZoom, MaxZoom int
			Bounds           []float64
			Tiles            []string
		}
		if err := json.Unmarshal(tj, &j); err != nil || j.MinZoom != 12 || j.MaxZoom != 16 || fmt.Sprint(j.Bounds) != "[8.66 50.105 8.7 50.125]" || len(j.Tiles) != 1 {
			t.Fatalf("offline TileJSON %s (%v): want the archive's zooms 12-16 and bounds", tj, err)
		}
	})
}

// TestExportPMTilesUnknownLayer: an unknown layer is one line naming the
// known ones, and no file is written.
func TestExportPMTilesUnknownLayer(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.pmtiles")
	_, err := run(context.Background(), "export", "pmtiles", "--data", dir, "--bbox", pmtilesBBox, "--layers", "hillshade,cadastre", "--maxzoom", "14", out)
	if err == nil || err.Error() != `maplayer: unknown layer "cadastre": known layers are buildings, contours, hillshade, roofs, terrain-rgb, terrarium` {
		t.Fatalf("err %v", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Fatal("an archive was written")
	}
}

// TestOfflineHillshadeInQGIS: QGIS (an XYZ layer from the TileJSON's URL)
// draws the same map from `svc serve --pmtiles` alone as from the full
// server, pixel for pixel, and the map is shaded relief (over 90 % not the
// magenta background, more than a few greys).
func TestOfflineHillshadeInQGIS(t *testing.T) {
	py := testtool.PythonQGIS(t)
	data := demoData(t)
	archive := filepath.Join(t.TempDir(), "he.pmtiles")
	if out, err := run(context.Background(), "export", "pmtiles", "--data", data, "--bbox", pmtilesBBox, "--layers", "hillshade",
		"--minzoom", "12", "--maxzoom", "16", archive); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	render := func(base string) image.Image {
		t.Helper()
		var tj struct {
			Tiles            []string
			MinZoom, MaxZoom int
		}
		if _, b := getBody(t, base+"/v1/terrain/hillshade.json"); json.Unmarshal(b, &tj) != nil || len(tj.Tiles) != 1 {
			t.Fatalf("TileJSON of %s: %s", base, b)
		}
		png := filepath.Join(t.TempDir(), "map.png")
		arg, _ := json.Marshal(map[string]any{"xyz": tj.Tiles[0], "zmin": tj.MinZoom, "zmax": tj.MaxZoom,
			"extent": []float64{8.672, 50.1128, 8.684, 50.1160}, "png": png})
		cmd := exec.Command(py, filepath.Join("testdata", "qgis", "xyz.py"), string(arg))
		cmd.Env = append(cmd.Environ(), "QT_QPA_PLATFORM=offscreen", "XDG_RUNTIME_DIR="+t.TempDir(), "HOME="+t.TempDir())
		out, err := cmd.Output()
		var res struct {
			Valid  bool
			Error  string
			Errors []string
		}
		if err != nil || json.Unmarshal(out, &res) != nil || !res.Valid || len(res.Errors) > 0 {
			t.Fatalf("QGIS on %s: %v %s", base, err, out)
		}
		f, err := os.Open(png)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, _, err := image.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	full := render(serveData(t, data))
	off := render(serveData(t, t.TempDir(), "--pmtiles", archive))
	colours, magenta := map[color.RGBA]bool{}, 0
	for y := range 256 {
		for x := range 256 {
			a, b := color.RGBAModel.Convert(full.At(x, y)).(color.RGBA), color.RGBAModel.Convert(off.At(x, y)).(color.RGBA)
			if a != b {
				t.Fatalf("pixel %d,%d: full server %v, offline %v", x, y, a, b)
			}
			colours[a] = true
			if a.R == 255 && a.G == 0 && a.B == 255 {
				magenta++
			}
		}
	}
	// The demo DGM has a NoData band (a river) across this extent: about
	// 6 % of the pixels show the background in both renderings.
	if len(colours) < 4 || magenta > 256*256/10 {
		t.Fatalf("the map has %d colours and %d background pixels: not shaded relief", len(colours), magenta)
	}
}
