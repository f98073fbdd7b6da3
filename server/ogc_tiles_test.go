package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/mvt"
)

// ogcTileSet is what a client reads of an OGC API - Tiles tileset.
type ogcTileSet struct {
	DataType         string
	CRS              string
	TileMatrixSetURI string
	Links            []struct{ Href, Rel, Type string }
	Limits           []struct {
		TileMatrix                                     string
		MinTileRow, MaxTileRow, MinTileCol, MaxTileCol int
	} `json:"tileMatrixSetLimits"`
}

func (ts ogcTileSet) link(rel string) string {
	for _, l := range ts.Links {
		if l.Rel == rel {
			return l.Href
		}
	}
	return ""
}

// pathOf is the path of an absolute link (the server's base URL is not
// the test server's).
func pathOf(href string) string {
	if i := strings.Index(href, "://"); i >= 0 {
		if j := strings.IndexByte(href[i+3:], '/'); j >= 0 {
			return href[i+3+j:]
		}
	}
	return href
}

// TestOGCTiles follows OGC API - Tiles from the landing page as a client
// does (tilesets-vector / tilesets-map links, the tilesets list, the
// tileset, its item template) and checks that the tile it names is, byte
// for byte and header for header, the /v1 tile of the same z/x/y (for the
// dataset's vector tileset: the /v1 building and contour tiles
// concatenated, layers buildings, roofs and contours, with its own ETag
// and 304); that
// the conformance lists the Tiles classes; and that a tile outside the
// tileMatrixSetLimits or the tileset's zooms is a 404 problem, an unknown
// tile matrix set 404 and a malformed index 400.
func TestOGCTiles(t *testing.T) {
	f := demoFixture(t)
	getJSON := func(path string, v any) {
		t.Helper()
		resp, body := f.do(t, "GET", path, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	rel := func(links []struct{ Href, Rel string }, r string) string {
		for _, l := range links {
			if l.Rel == r {
				return pathOf(l.Href)
			}
		}
		t.Fatalf("no %s link in %v", r, links)
		return ""
	}
	var landing, coll struct{ Links []struct{ Href, Rel string } }
	getJSON("/ogc", &landing)
	getJSON("/ogc/collections/buildings", &coll)
	var conf struct{ ConformsTo []string }
	getJSON("/ogc/conformance", &conf)
	for _, c := range []string{"core", "tileset", "tilesets-list", "geodata-tilesets", "dataset-tilesets", "mvt", "png"} {
		if !slices.Contains(conf.ConformsTo, "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/"+c) {
			t.Errorf("conformance lacks tiles %s", c)
		}
	}
	x16, y16 := xyz(8.67815, 50.11295, 16)
	xh, yh := xyz(8.6685, 50.1153, 16)
	for _, tc := range []struct {
		name, tilesets, mediaType, dataType string
		minZ, maxZ                          int
		x, y                                int
		// v1 are the /v1 tiles whose bodies, concatenated, are the tile;
		// layers the MVT layers it holds.
		v1     []string
		layers []string
	}{
		{"dataset vector", rel(landing.Links, "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"), "application/vnd.mapbox-vector-tile", "vector", 10, 18, x16, y16,
			[]string{fmt.Sprintf("/v1/buildings/tiles/16/%d/%d.mvt", x16, y16), fmt.Sprintf("/v1/terrain/contours/16/%d/%d.mvt", x16, y16)},
			[]string{"buildings", "roofs", "contours"}},
		{"buildings collection vector", rel(coll.Links, "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"), "application/vnd.mapbox-vector-tile", "vector", 12, 18, x16, y16,
			[]string{fmt.Sprintf("/v1/buildings/tiles/16/%d/%d.mvt", x16, y16)}, []string{"buildings", "roofs"}},
		{"dataset map", rel(landing.Links, "http://www.opengis.net/def/rel/ogc/1.0/tilesets-map"), "image/png", "map", 8, 20, xh, yh,
			[]string{fmt.Sprintf("/v1/terrain/hillshade/16/%d/%d.png", xh, yh)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var list struct{ Tilesets []ogcTileSet }
			getJSON(tc.tilesets, &list)
			if len(list.Tilesets) != 1 || list.Tilesets[0].DataType != tc.dataType || !strings.HasSuffix(list.Tilesets[0].TileMatrixSetURI, "/WebMercatorQuad") {
				t.Fatalf("%s: %+v", tc.tilesets, list)
			}
			var ts ogcTileSet
			getJSON(pathOf(list.Tilesets[0].link("self")), &ts)
			if ts.CRS != "http://www.opengis.net/def/crs/EPSG/0/3857" || ts.DataType != tc.dataType || len(ts.Limits) != tc.maxZ-tc.minZ+1 {
				t.Fatalf("tileset: %+v", ts)
			}
			var tms struct {
				ID           string
				TileMatrices []struct{ ID string }
			}
			getJSON(pathOf(ts.link("http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme")), &tms)
			if tms.ID != "WebMercatorQuad" || len(tms.TileMatrices) != 25 {
				t.Fatalf("tiling scheme: %+v", tms)
			}
			var item string
			for _, l := range ts.Links {
				if l.Rel == "item" && l.Type == tc.mediaType {
					item = pathOf(l.Href)
				}
			}
			if !strings.HasSuffix(item, "/{tileMatrix}/{tileRow}/{tileCol}") {
				t.Fatalf("item template %q", item)
			}
			tile := func(z, row, col any) string {
				return strings.NewReplacer("{tileMatrix}", fmt.Sprint(z), "{tileRow}", fmt.Sprint(row), "{tileCol}", fmt.Sprint(col)).Replace(item)
			}
			for _, enc := range []string{"", "gzip"} {
				hdr := map[string]string{"Accept-Encoding": enc}
				got, gotBody := f.do(t, "GET", tile(16, tc.y, tc.x), hdr)
				var want *http.Response
				var wantBody []byte
				for _, p := range tc.v1 {
					var b []byte
					want, b = f.do(t, "GET", p, hdr)
					if want.StatusCode != 200 {
						t.Fatalf("%s: %d", p, want.StatusCode)
					}
					wantBody = append(wantBody, decoded(t, want, b)...)
				}
				plain := decoded(t, got, gotBody)
				if got.StatusCode != 200 || !bytes.Equal(plain, wantBody) || len(plain) == 0 {
					t.Fatalf("%s (%q): %d, %d bytes; /v1 %v: %d bytes", tile(16, tc.y, tc.x), enc, got.StatusCode, len(plain), tc.v1, len(wantBody))
				}
				hs := []string{"Content-Type", "Content-Encoding", "ETag"}
				if len(tc.v1) > 1 {
					// A tileset of several routes has its own ETag; it
					// still answers a conditional request with 304.
					hs = hs[:2]
					c, _ := f.do(t, "GET", tile(16, tc.y, tc.x), map[string]string{"Accept-Encoding": enc, "If-None-Match": got.Header.Get("ETag")})
					if got.Header.Get("ETag") == "" || c.StatusCode != 304 {
						t.Errorf("ETag %q, If-None-Match: %d", got.Header.Get("ETag"), c.StatusCode)
					}
				}
				for _, h := range hs {
					if got.Header.Get(h) != want.Header.Get(h) {
						t.Errorf("%s: %q, /v1 %q", h, got.Header.Get(h), want.Header.Get(h))
					}
				}
				if tc.layers != nil {
					ls, err := mvt.Decode(plain)
					var names []string
					for _, l := range ls {
						names = append(names, l.Name)
					}
					if err != nil || !slices.Equal(names, tc.layers) {
						t.Errorf("layers %v (%v), want %v", names, err, tc.layers)
					}
				}
			}
			l16 := ts.Limits[16-tc.minZ]
			if l16.TileMatrix != "16" || tc.y < l16.MinTileRow || tc.y > l16.MaxTileRow || tc.x < l16.MinTileCol || tc.x > l16.MaxTileCol {
				t.Fatalf("limits at 16 %+v leave out the data's tile %d/%d", l16, tc.y, tc.x)
			}
			tms0 := strings.Replace(tile(16, tc.y, tc.x), "/WebMercatorQuad/", "/WorldCRS84Quad/", 1)
			for _, c := range []struct {
				path   string
				status int
			}{
				{tile(16, l16.MaxTileRow+1, tc.x), 404},
				{tile(16, tc.y, l16.MinTileCol-1), 404},
				{tile(tc.minZ-1, 0, 0), 404},
				{tile(tc.maxZ+1, tc.y, tc.x), 404},
				{tms0, 404},
				{tile(16, "x1", tc.x), 400},
				{tile(16, tc.y, "-3"), 400},
			} {
				resp, body := f.do(t, "GET", c.path, nil)
				if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
					t.Errorf("%s: %d %s, want a %d problem", c.path, resp.StatusCode, body, c.status)
				}
			}
		})
	}
	if resp, _ := f.do(t, "GET", "/ogc/collections/roofs/tiles", nil); resp.StatusCode != 404 {
		t.Errorf("a collection without tiles: %d", resp.StatusCode)
	}
}

// decoded is the body of a tile answer without its gzip content coding.
func decoded(t *testing.T, resp *http.Response, body []byte) []byte {
	t.Helper()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return body
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
