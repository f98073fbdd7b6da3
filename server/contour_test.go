package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/svc-geodata/svc/mvt"
)

// TestContourTileHTTP: a contour tile over the Hesse demo DGM is a vector
// tile of one layer "contours" whose lines carry elevation_m (multiples
// of the zoom's interval) and index; the same bytes gzipped for clients
// that take it (each encoding its own ETag, both answering 304); an empty
// 200 where there is no DGM; 404 off the grid or out of the zoom range,
// 400 for a malformed name; the TileJSON points at it and lists the
// fields.
func TestContourTileHTTP(t *testing.T) {
	f := demoFixture(t)
	const lon, lat, z = 8.6783, 50.1153, 15
	n := math.Exp2(z)
	x := int((lon + 180) / 360 * n)
	y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
	path := fmt.Sprintf("/v1/terrain/contours/%d/%d/%d.mvt", z, x, y)
	resp, body := f.do(t, "GET", path, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
		t.Fatalf("%s: %d %v", path, resp.StatusCode, resp.Header)
	}
	layers, err := mvt.Decode(body)
	if err != nil || len(layers) != 1 || layers[0].Name != "contours" || len(layers[0].Features) == 0 {
		t.Fatalf("%s: %v %+v", path, err, layers)
	}
	indexLines := 0
	for _, ft := range layers[0].Features {
		e, ok := ft.Props["elevation_m"].(int64)
		idx, isBool := ft.Props["index"].(bool)
		if ft.Type != mvt.LineString || !ok || !isBool || e%5 != 0 || idx != (e%25 == 0) {
			t.Fatalf("feature %+v", ft)
		}
		if idx {
			indexLines++
		}
	}
	t.Logf("%s: %d lines, %d index lines, %d bytes", path, len(layers[0].Features), indexLines, len(body))
	gzResp, gz := f.do(t, "GET", path, map[string]string{"Accept-Encoding": "gzip"})
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil || gzResp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip: %v %v", err, gzResp.Header)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, body) {
		t.Error("the gzipped tile differs")
	}
	etag, gzTag := resp.Header.Get("ETag"), gzResp.Header.Get("ETag")
	if etag == "" || gzTag == "" || etag == gzTag {
		t.Errorf("ETags %q and %q", etag, gzTag)
	}
	for _, c := range []struct{ tag, enc string }{{etag, ""}, {gzTag, "gzip"}} {
		if r, b := f.do(t, "GET", path, map[string]string{"If-None-Match": c.tag, "Accept-Encoding": c.enc}); r.StatusCode != 304 || len(b) != 0 {
			t.Errorf("If-None-Match %s: %d", c.tag, r.StatusCode)
		}
	}
	for _, c := range []struct {
		path   string
		status int
		empty  bool
	}{
		{"/v1/terrain/contours/14/100/100.mvt", 200, true}, // the Atlantic
		{"/v1/terrain/contours/16/65536/0.mvt", 404, false},
		{"/v1/terrain/contours/9/100/100.mvt", 404, false},
		{"/v1/terrain/contours/19/1/1.mvt", 404, false},
		{"/v1/terrain/contours/16/1/x.mvt", 400, false},
	} {
		r, b := f.do(t, "GET", c.path, nil)
		if r.StatusCode != c.status || (c.empty && len(b) != 0) {
			t.Errorf("%s: %d, %d bytes, want %d", c.path, r.StatusCode, len(b), c.status)
		}
		if c.status >= 400 && r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %s", c.path, r.Header.Get("Content-Type"))
		}
	}
	_, tj := f.do(t, "GET", "/v1/terrain/contours.json", nil)
	var doc struct {
		TileJSON     string `json:"tilejson"`
		Tiles        []string
		MinZoom      int
		MaxZoom      int
		Bounds       []float64
		Attribution  string
		VectorLayers []struct {
			ID     string
			Fields map[string]string
		} `json:"vector_layers"`
	}
	if err := json.Unmarshal(tj, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.TileJSON != "3.0.0" || len(doc.Tiles) != 1 || doc.Tiles[0] != "http://api.test/v1/terrain/contours/{z}/{x}/{y}.mvt" ||
		doc.MinZoom != 10 || doc.MaxZoom != 18 || len(doc.Bounds) != 4 || doc.Attribution == "" ||
		len(doc.VectorLayers) != 1 || doc.VectorLayers[0].ID != "contours" {
		t.Fatalf("TileJSON %s", tj)
	}
	for k := range layers[0].Features[0].Props {
		if _, ok := doc.VectorLayers[0].Fields[k]; !ok {
			t.Errorf("property %s of the tile is not in vector_layers", k)
		}
	}
}
