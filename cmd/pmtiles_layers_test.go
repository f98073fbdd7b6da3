package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/maplayer"
)

// bundleLayers are the map layers of the offline bundle tests, with the
// route each archive answers and the tile suffix there.
var bundleLayers = []struct{ name, base, ext string }{
	{"hillshade", "/v1/terrain/hillshade", ".png"},
	{"buildings", "/v1/buildings/tiles", ".mvt"},
	{"terrain-rgb", "/v1/terrain/rgb", ".png"},
	{"terrarium", "/v1/terrain/terrarium", ".png"},
	{"contours", "/v1/terrain/contours", ".mvt"},
}

// exportedBundles exports every map layer of the demo bbox at zooms 12-16
// once per test binary, with --workers 1 and 4; it returns the directory
// holding he-<layer>.pmtiles (the --workers 1 ones) and w4-<layer>.pmtiles
// (TestMain removes it, as bundlesTmp).
var exportedBundles = sync.OnceValues(func() (string, error) {
	data, err := sharedDemo()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "svc-bundles-")
	if err != nil {
		return "", err
	}
	bundlesTmp = dir
	var names []string
	for _, l := range bundleLayers {
		names = append(names, l.name)
	}
	for _, w := range []struct{ n, stem string }{{"1", "he"}, {"4", "w4"}} {
		out, err := run(context.Background(), "export", "pmtiles", "--data", data, "--bbox", pmtilesBBox, "--layers", strings.Join(names, ","),
			"--minzoom", "12", "--maxzoom", "16", "--workers", w.n, filepath.Join(dir, w.stem+".pmtiles"))
		if err != nil {
			return "", fmt.Errorf("export --workers %s: %v\n%s", w.n, err, out)
		}
	}
	return dir, nil
})

// bundlesTmp is the directory of exportedBundles once made.
var bundlesTmp string

func bundleDir(t *testing.T) string {
	t.Helper()
	dir, err := exportedBundles()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// offlineServer is `svc serve --pmtiles` of every exported archive on an
// empty data directory.
func offlineServer(t *testing.T, dir string) string {
	t.Helper()
	args := []string{"--init"}
	for _, l := range bundleLayers {
		args = append(args, "--pmtiles", filepath.Join(dir, "he-"+l.name+".pmtiles"))
	}
	return serveData(t, t.TempDir(), args...)
}

// getEnc fetches url with the Accept-Encoding given (Go's transport then
// leaves the body as sent).
func getEnc(t *testing.T, url, accept string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept-Encoding", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportPMTilesLayers exports every map layer (hillshade, buildings,
// terrain-rgb, terrarium, contours) of the demo bbox and judges the
// archives as their users would: the same bytes for --workers 1 and 4;
// protomaps' `pmtiles verify` passes and `pmtiles show` reports each
// archive's tile type and compression (mvt + gzip with vector_layers
// buildings and roofs, or contours, in the metadata of the vector
// archives); `svc serve --pmtiles` on an empty data directory answers
// every tile address of the bbox and zooms as the full server does (byte
// for byte; MVT after decompression, gzip with Content-Encoding when
// asked, stable ETags with 304) and TileJSONs of the archives' bounds and
// zooms with their vector_layers; GDAL's MVT driver reads the same
// buildings and contour lines from the offline server as from the full
// one.
func TestExportPMTilesLayers(t *testing.T) {
	data := demoData(t)
	dir := bundleDir(t)
	for _, l := range bundleLayers {
		one, _ := os.ReadFile(filepath.Join(dir, "he-"+l.name+".pmtiles"))
		four, _ := os.ReadFile(filepath.Join(dir, "w4-"+l.name+".pmtiles"))
		if len(one) == 0 || !bytes.Equal(one, four) {
			t.Fatalf("%s: --workers 1 wrote %d bytes, --workers 4 %d different ones", l.name, len(one), len(four))
		}
	}
	full, off := serveData(t, data), offlineServer(t, dir)

	t.Run("pmtiles verify and show", func(t *testing.T) {
		cli := testtool.PMTilesCLI(t)
		for _, l := range bundleLayers {
			archive := filepath.Join(dir, "he-"+l.name+".pmtiles")
			out, err := exec.Command(cli, "verify", archive).CombinedOutput()
			if err != nil || strings.Contains(string(out), "Invalid") {
				t.Fatalf("pmtiles verify %s: %v\n%s", l.name, err, out)
			}
			out, err = exec.Command(cli, "show", "--header-json", archive).Output()
			if err != nil {
				t.Fatalf("pmtiles show %s: %v\n%s", l.name, err, out)
			}
			var hj struct {
				TileType        string `json:"tile_type"`
				TileCompression string `json:"tile_compression"`
				MinZoom         int    `json:"minzoom"`
				MaxZoom         int    `json:"maxzoom"`
			}
			json.Unmarshal(out, &hj)
			wantType, wantComp := "png", "none"
			if l.ext == ".mvt" {
				wantType, wantComp = "mvt", "gzip"
			}
			if hj.TileType != wantType || hj.TileCompression != wantComp || hj.MinZoom != 12 || hj.MaxZoom != 16 {
				t.Fatalf("pmtiles show %s: %s, want %s, %s, zooms 12-16", l.name, out, wantType, wantComp)
			}
			out, err = exec.Command(cli, "show", "--metadata", archive).Output()
			var meta struct {
				Layer        string `json:"svc_layer"`
				Encoding     string `json:"encoding"`
				VectorLayers []struct {
					ID               string
					Fields           map[string]string
					MinZoom, MaxZoom int
				} `json:"vector_layers"`
			}
			if err != nil || json.Unmarshal(out, &meta) != nil || meta.Layer != l.name {
				t.Fatalf("pmtiles show --metadata %s: %v\n%s", l.name, err, out)
			}
			switch l.name {
			case "buildings":
				if len(meta.VectorLayers) != 2 || meta.VectorLayers[0].ID != "buildings" || meta.VectorLayers[0].Fields["height_m"] != "Number" ||
					meta.VectorLayers[1].ID != "roofs" || meta.VectorLayers[1].MinZoom != 16 || meta.VectorLayers[1].MaxZoom != 16 {
					t.Fatalf("vector_layers of the building archive: %s", out)
				}
			case "contours":
				if len(meta.VectorLayers) != 1 || meta.VectorLayers[0].ID != "contours" || meta.VectorLayers[0].Fields["elevation_m"] != "Number" ||
					meta.VectorLayers[0].Fields["index"] != "Boolean" || meta.VectorLayers[0].MinZoom != 12 || meta.VectorLayers[0].MaxZoom != 16 {
					t.Fatalf("vector_layers of the contour archive: %s", out)
				}
			case "terrain-rgb", "terrarium":
				if want := map[string]string{"terrain-rgb": "mapbox", "terrarium": "terrarium"}[l.name]; meta.Encoding != want {
					t.Fatalf("%s: encoding %q, want %q", l.name, meta.Encoding, want)
				}
			}
		}
	})

	t.Run("served offline equals the full server", func(t *testing.T) {
		bbox, _ := geo.ParseBBox(pmtilesBBox)
		addrs, err := maplayer.Tiles(bbox, 12, 16)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bundleLayers {
			_, stored := archiveTiles(t, filepath.Join(dir, "he-"+l.name+".pmtiles"))
			nonEmpty := 0
			for _, a := range addrs {
				path := fmt.Sprintf("%s/%d/%d/%d%s", l.base, a.Z, a.X, a.Y, l.ext)
				fr, fb := getEnc(t, full+path, "identity")
				or, ob := getEnc(t, off+path, "identity")
				if fr.StatusCode != 200 || or.StatusCode != 200 || !bytes.Equal(fb, ob) {
					t.Fatalf("%s: full server %d (%d bytes), offline %d (%d bytes): want 200 and equal bytes", path, fr.StatusCode, len(fb), or.StatusCode, len(ob))
				}
				if or.Header.Get("Content-Encoding") != "" || or.Header.Get("Content-Type") != fr.Header.Get("Content-Type") {
					t.Fatalf("%s: offline Content-Encoding %q, Content-Type %q (full %q)", path, or.Header.Get("Content-Encoding"), or.Header.Get("Content-Type"), fr.Header.Get("Content-Type"))
				}
				if len(ob) > 0 {
					nonEmpty++
				}
				s := stored[zxy{a.Z, a.X, a.Y}]
				if l.ext == ".png" {
					if !bytes.Equal(s, ob) {
						t.Fatalf("%s: the archive holds %d bytes, the offline server sent %d others", path, len(s), len(ob))
					}
					if l.name != "hillshade" {
						// nodata=fill, what the TileJSON asks for: the
						// offline server makes the stored tile opaque,
						// byte for byte the full server's fill tile.
						_, ff := getEnc(t, full+path+"?nodata=fill", "identity")
						or, of := getEnc(t, off+path+"?nodata=fill", "identity")
						if or.StatusCode != 200 || len(ff) == 0 || !bytes.Equal(ff, of) {
							t.Fatalf("%s?nodata=fill: offline %d (%d bytes), full server %d bytes: want equal bytes", path, or.StatusCode, len(of), len(ff))
						}
					}
					continue
				}
				// MVT: gzip as stored to a client accepting it, the full
				// server's gzip bytes too; ETags stable and answering 304.
				gr, gb := getEnc(t, off+path, "gzip")
				fgr, fgb := getEnc(t, full+path, "gzip")
				if len(ob) == 0 {
					if s != nil || len(gb) != 0 || len(fgb) != 0 {
						t.Fatalf("%s: empty tile, but the archive holds %d bytes, gzip answers %d (offline) %d (full)", path, len(s), len(gb), len(fgb))
					}
					continue
				}
				if gr.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gb, s) || !bytes.Equal(gb, fgb) || fgr.Header.Get("Content-Encoding") != "gzip" ||
					!bytes.Equal(gunzip(t, gb), fb) {
					t.Fatalf("%s: gzip answer %q %d bytes, archive %d, full server %d: want the archive's gzip bytes, which decompress to the tile",
						path, gr.Header.Get("Content-Encoding"), len(gb), len(s), len(fgb))
				}
				etag, getag := or.Header.Get("ETag"), gr.Header.Get("ETag")
				if etag == "" || getag != strings.TrimSuffix(etag, `"`)+`-gz"` {
					t.Fatalf("%s: ETags %q (identity) %q (gzip)", path, etag, getag)
				}
				req, _ := http.NewRequest("GET", off+path, nil)
				req.Header.Set("If-None-Match", getag)
				req.Header.Set("Accept-Encoding", "gzip")
				if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotModified {
					t.Fatalf("%s If-None-Match %s: %v %v", path, getag, err, resp)
				} else {
					resp.Body.Close()
				}
				if r2, _ := getEnc(t, off+path, "gzip"); r2.Header.Get("ETag") != getag {
					t.Fatalf("%s: ETag %q then %q", path, getag, r2.Header.Get("ETag"))
				}
			}
			t.Logf("%s: %d of %d tiles with content", l.name, nonEmpty, len(addrs))
			if nonEmpty < 16 {
				t.Fatalf("%s: %d tiles with content among %d: the test proves little", l.name, nonEmpty, len(addrs))
			}
			// TileJSON: the archive's zooms and bounds (MapLibre asks only
			// for what the archive holds), the layer's particulars.
			_, tj := getBody(t, off+l.base+".json")
			var j struct {
				MinZoom, MaxZoom int
				Bounds           []float64
				Tiles            []string
				Encoding         string
				VectorLayers     []struct{ ID string } `json:"vector_layers"`
			}
			if err := json.Unmarshal(tj, &j); err != nil || j.MinZoom != 12 || j.MaxZoom != 16 || fmt.Sprint(j.Bounds) != "[8.66 50.105 8.7 50.125]" ||
				len(j.Tiles) != 1 || !strings.HasSuffix(strings.TrimSuffix(j.Tiles[0], "?nodata=fill"), l.base+"/{z}/{x}/{y}"+l.ext) ||
				strings.HasSuffix(j.Tiles[0], "?nodata=fill") != (l.name == "terrain-rgb" || l.name == "terrarium") {
				t.Fatalf("offline TileJSON of %s: %s (%v)", l.name, tj, err)
			}
			if l.name == "buildings" && len(j.VectorLayers) != 2 || l.name == "contours" && (len(j.VectorLayers) != 1 || j.VectorLayers[0].ID != "contours") ||
				l.name == "terrain-rgb" && j.Encoding != "mapbox" || l.name == "terrarium" && j.Encoding != "terrarium" {
				t.Fatalf("offline TileJSON of %s: %s", l.name, tj)
			}
		}
	})

	t.Run("GDAL reads the offline contours", func(t *testing.T) {
		ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
		const z, x, y = 16, 34347, 22194 // over the demo town
		read := func(base string) []string {
			out := filepath.Join(t.TempDir(), "tile.json")
			toolOut(t, ogr2ogr, "-f", "GeoJSON", out, fmt.Sprintf("/vsicurl/%s/v1/terrain/contours/%d/%d/%d.mvt", base, z, x, y),
				"-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z), "contours")
			return contourLines(t, out)
		}
		got, want := read(off), read(full)
		t.Logf("GDAL: %d contour lines offline, %d from the full server", len(got), len(want))
		if len(want) < 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("GDAL: %d contour lines from the offline server, %d from the full one (want at least 3, the same)", len(got), len(want))
		}
	})

	t.Run("GDAL reads the offline MVT", func(t *testing.T) {
		ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
		const z, x, y = 16, 34347, 22194 // over the demo town
		read := func(base string) string {
			out := filepath.Join(t.TempDir(), "tile.json")
			toolOut(t, ogr2ogr, "-f", "GeoJSON", out, fmt.Sprintf("/vsicurl/%s/v1/buildings/tiles/%d/%d/%d.mvt", base, z, x, y),
				"-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", z), "buildings")
			return out
		}
		got, want := readFeatures(t, read(off)), readFeatures(t, read(full))
		if len(want) < 20 || len(got) != len(want) {
			t.Fatalf("GDAL: %d buildings from the offline server, %d from the full one", len(got), len(want))
		}
		for id, w := range want {
			g, ok := got[id]
			if !ok || fmt.Sprint(g.props) != fmt.Sprint(w.props) || fmt.Sprint(g.rings) != fmt.Sprint(w.rings) {
				t.Fatalf("building %v: offline %v, full %v", id, g, w)
			}
		}
	})
}

// contourLines are the features of the GeoJSON GDAL wrote from a contour
// tile, each as its elevation_m, index and coordinates, sorted.
func contourLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any
			Geometry   struct {
				Type        string
				Coordinates json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fc.Features {
		if _, ok := f.Properties["elevation_m"]; !ok || !strings.HasSuffix(f.Geometry.Type, "LineString") {
			t.Fatalf("%s: feature %v, a %s", path, f.Properties, f.Geometry.Type)
		}
		out = append(out, fmt.Sprint(f.Properties["elevation_m"], " ", f.Properties["index"], " ", string(f.Geometry.Coordinates)))
	}
	slices.Sort(out)
	return out
}
