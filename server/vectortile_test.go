package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/pack"
)

// TestVectorTileHTTP: a building vector tile of the Hesse demo town is
// a vector tile with both layers at z16, the same bytes gzipped for
// clients that take it (each encoding its own ETag, both answering 304),
// an empty 200 where there are no buildings, 404 off the grid; the
// TileJSON points at it and lists the layers' fields.
func TestVectorTileHTTP(t *testing.T) {
	f := demoFixture(t)
	const lon, lat, z = 8.67815, 50.11295, 16
	n := math.Exp2(z)
	x := int((lon + 180) / 360 * n)
	y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
	path := fmt.Sprintf("/v1/buildings/tiles/%d/%d/%d.mvt", z, x, y)
	resp, body := f.do(t, "GET", path, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
		t.Fatalf("%s: %d %v", path, resp.StatusCode, resp.Header)
	}
	layers, err := mvt.Decode(body)
	if err != nil || len(layers) != 2 || layers[0].Name != "buildings" || layers[1].Name != "roofs" || len(layers[0].Features) == 0 {
		t.Fatalf("%s: %v %+v", path, err, layers)
	}
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
		{"/v1/buildings/tiles/14/100/100.mvt", 200, true}, // the Atlantic
		{"/v1/buildings/tiles/16/65536/0.mvt", 404, false},
		{"/v1/buildings/tiles/11/1000/700.mvt", 404, false},
		{"/v1/buildings/tiles/19/1/1.mvt", 404, false},
		{"/v1/buildings/tiles/16/1/x.mvt", 400, false},
	} {
		r, b := f.do(t, "GET", c.path, nil)
		if r.StatusCode != c.status || (c.empty && len(b) != 0) {
			t.Errorf("%s: %d, %d bytes, want %d", c.path, r.StatusCode, len(b), c.status)
		}
		if c.status >= 400 && r.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %s", c.path, r.Header.Get("Content-Type"))
		}
	}
	_, tj := f.do(t, "GET", "/v1/buildings/tiles.json", nil)
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
	if doc.TileJSON != "3.0.0" || len(doc.Tiles) != 1 || doc.Tiles[0] != "http://api.test/v1/buildings/tiles/{z}/{x}/{y}.mvt" ||
		doc.MinZoom != 12 || doc.MaxZoom != 18 || len(doc.Bounds) != 4 || doc.Attribution == "" || len(doc.VectorLayers) != 2 {
		t.Fatalf("TileJSON %s", tj)
	}
	for k := range layers[0].Features[0].Props {
		if _, ok := doc.VectorLayers[0].Fields[k]; !ok {
			t.Errorf("property %s of the tile is not in vector_layers", k)
		}
	}
}

// TestVectorTileDamagedIs503: where a BL's search file or tile file (the
// buildings layer's, lod2.sqlite.tiles) is damaged, its vector tile is a
// 503 data-damaged problem (never a tile silently missing that BL's
// buildings), the damage is noted for the admin health, and the answer is
// not cached: the next request meets the damage again.
func TestVectorTileDamagedIs503(t *testing.T) {
	for _, file := range []string{"lod2.sqlite.search", "lod2.sqlite.tiles"} {
		t.Run(file, func(t *testing.T) { damagedTile503(t, file) })
	}
}

func damagedTile503(t *testing.T, file string) {
	ctx := context.Background()
	data := twoStatesLoD2(t)
	idx := filepath.Join(data, "lod2", "rp", "2026-07-20", file)
	st, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	garble(t, idx, st.Size()/2)
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	v, err := cat.Reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Packs(pack.LoD2)) != 2 {
		t.Skipf("the damaged pack did not open (%v)", v.Problems)
	}
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: testToken}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	lon, lat := geo.FromUTM(geo.Zone32, 477070, 5551020)
	const z = 16
	n := math.Exp2(z)
	path := fmt.Sprintf("%s/v1/buildings/tiles/%d/%d/%d.mvt", ts.URL, z, int((lon+180)/360*n),
		int((1-math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi)/2*n))
	for i := range 2 {
		resp, err := ts.Client().Get(path)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Type string }
		json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if resp.StatusCode != 503 || !strings.HasSuffix(p.Type, "/data-damaged") {
			t.Fatalf("request %d: %d %q", i+1, resp.StatusCode, p.Type)
		}
	}
	if l := srv.damage.list(); len(l) != 1 || !strings.Contains(l[0], "lod2/rp/2026-07-20") {
		t.Errorf("damage log %q", l)
	}
}

// TestVectorTileNoCache: without a tile cache (serve --vector-tile-cache-mb
// 0) every request cuts its tile and compresses it only for a client that
// takes gzip: both encodings carry the cached server's tile.
func TestVectorTileNoCache(t *testing.T) {
	cat, err := demoCatalog()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test", VectorTileCacheBytes: -1}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	const lon, lat, z = 8.67815, 50.11295, 16
	n := math.Exp2(z)
	path := fmt.Sprintf("/v1/buildings/tiles/%d/%d/%d.mvt", z, int((lon+180)/360*n), int((1-math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi)/2*n))
	_, want := demoFixture(t).do(t, "GET", path, nil)
	nc := &fixture{ts: ts}
	for range 2 {
		resp, body := nc.do(t, "GET", path, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, want) || len(want) == 0 {
			t.Fatalf("plain: %d %v, %d bytes, want the cached server's %d", resp.StatusCode, resp.Header, len(body), len(want))
		}
		resp, gz := nc.do(t, "GET", path, map[string]string{"Accept-Encoding": "gzip"})
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("gzip: %v %v", err, resp.Header)
		}
		if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, want) {
			t.Fatal("the gzipped tile differs")
		}
	}
}
