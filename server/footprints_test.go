package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/url"
	"testing"
)

// TestFootprintTile: a footprint tile holds exactly the ground surfaces
// /v1/buildings gives for the tile's bbox, answers 304 to its ETag, and
// refuses addresses off the grid.
func TestFootprintTile(t *testing.T) {
	f := demoFixture(t)
	// The tile of the middle of the Hesse demo data.
	const lon, lat, z = 8.67815, 50.11295, 15
	n := math.Exp2(z)
	x := int((lon + 180) / 360 * n)
	y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
	path := fmt.Sprintf("/v1/buildings/footprints/%d/%d/%d.geojson", z, x, y)
	resp, body := f.do(t, "GET", path, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/geo+json" {
		t.Fatalf("%s: %d %s %.300s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var tile searchPage
	if err := json.Unmarshal(body, &tile); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, ft := range tile.Features {
		if ft.Properties["surface_class"] != 710.0 {
			t.Fatalf("%s holds a surface of class %v", path, ft.Properties["surface_class"])
		}
		got[fmt.Sprint(ft.Properties["bundesland"], ft.Properties["surface_id"])] = true
	}
	bbox := fmt.Sprintf("%.12f,%.12f,%.12f,%.12f", tile.BBox[0], tile.BBox[1], tile.BBox[2], tile.BBox[3])
	want := map[string]bool{}
	for cursor := ""; ; {
		q := "limit=1000&bbox=" + bbox
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		p := f.search(t, q)
		for _, ft := range p.Features {
			if ft.Properties["surface_class"] == 710.0 {
				want[fmt.Sprint(ft.Properties["bundesland"], ft.Properties["surface_id"])] = true
			}
		}
		if cursor = p.Svc.Next; cursor == "" {
			break
		}
	}
	if len(want) == 0 || len(got) != len(want) || len(got) != len(tile.Features) || tile.Count != len(tile.Features) {
		t.Fatalf("tile %s: %d features (%d distinct, count %d); /v1/buildings?bbox=%s has %d ground surfaces",
			path, len(tile.Features), len(got), tile.Count, bbox, len(want))
	}
	for k := range want {
		if !got[k] {
			t.Fatalf("ground surface %s of the search is not in the tile", k)
		}
	}
	if len(tile.Svc.Attribution) == 0 || tile.Svc.Next != "" {
		t.Errorf("svc of the tile: %+v", tile.Svc)
	}
	// Sent gzipped to clients that take it: the same GeoJSON.
	if r, gz := f.do(t, "GET", path, map[string]string{"Accept-Encoding": "gzip"}); r.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("Accept-Encoding: gzip: Content-Encoding %q", r.Header.Get("Content-Encoding"))
	} else if zr, err := gzip.NewReader(bytes.NewReader(gz)); err != nil {
		t.Error(err)
	} else if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, body) {
		t.Errorf("gzipped tile: %v, %d bytes, plain %d bytes (gzip %d)", err, len(plain), len(body), len(gz))
	} else {
		t.Logf("tile %s: %d bytes, %d gzipped", path, len(body), len(gz))
	}
	etag := resp.Header.Get("ETag")
	if r2, _ := f.do(t, "GET", path, map[string]string{"If-None-Match": etag}); etag == "" || r2.StatusCode != 304 {
		t.Errorf("If-None-Match %q: %d", etag, r2.StatusCode)
	}
	for p, status := range map[string]int{
		"/v1/buildings/footprints/14/8578/5543.geojson":   404, // only zoom 15
		"/v1/buildings/footprints/15/32768/11087.geojson": 404, // x off the grid
		"/v1/buildings/footprints/15/17157/11087.png":     400,
	} {
		if r, b := f.do(t, "GET", p, nil); r.StatusCode != status || r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s, want %d problem: %.200s", p, r.StatusCode, r.Header.Get("Content-Type"), status, b)
		}
	}
}

// TestFootprintTilesNotCounted: footprint tiles leave the keyless budget
// alone and are served past the limit, which the viewer relies on.
func TestFootprintTilesNotCounted(t *testing.T) {
	t.Parallel()
	f := newAccFixture(t, accOpts{limit: 2})
	xff := map[string]string{"X-Forwarded-For": "198.51.100.9"}
	for i, tc := range []struct {
		path        string
		status, rem int
	}{
		{"/v1/buildings/footprints/15/17157/11087.geojson", 200, 2},
		{"/v1/terrain/datasets", 200, 1},
		{"/v1/terrain/datasets", 200, 0},
		{"/v1/terrain/datasets", 429, 0},
		{"/v1/buildings/footprints/15/17157/11088.geojson", 200, 0},
	} {
		resp, body := f.send(t, "GET", tc.path, "", xff)
		if resp.StatusCode != tc.status || resp.Header.Get("X-Keyless-Remaining") != fmt.Sprint(tc.rem) {
			t.Errorf("%d %s: %d, X-Keyless-Remaining %q; want %d, %d: %.200s", i, tc.path, resp.StatusCode,
				resp.Header.Get("X-Keyless-Remaining"), tc.status, tc.rem, body)
		}
	}
}
