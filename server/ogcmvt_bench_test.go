package server

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// BenchmarkOGCDatasetTile answers, warm (every part in its tile cache),
// the z15 tiles of the densest demo km² through the whole handler chain
// with gzip asked for: the dataset's OGC vector tile (the /v1 building and
// contour tiles concatenated, then gzipped per request), beside the two
// /v1 tiles it is made of (each served from its cached gzip bytes).
// docs/performance.md, "OGC API - Tiles: the dataset's vector tile".
func BenchmarkOGCDatasetTile(b *testing.B) {
	ts, err := demoServer()
	if err != nil {
		b.Fatal(err)
	}
	h := ts.Config.Handler
	// The tiles inside the tileset's limits (benchTilesZ15 reaches a row
	// south of the demo data, which /v1 answers empty and OGC as 404).
	var tiles [][3]int
	for _, t := range benchTilesZ15() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", fmt.Sprintf("/ogc/tiles/WebMercatorQuad/%d/%d/%d", t[0], t[2], t[1]), nil))
		if rec.Code == 200 {
			tiles = append(tiles, t)
		}
	}
	if len(tiles) == 0 {
		b.Fatal("no tile inside the limits")
	}
	for _, c := range []struct{ name, format string }{
		{"ogc-dataset", "/ogc/tiles/WebMercatorQuad/%[1]d/%[3]d/%[2]d"},
		{"v1-buildings", "/v1/buildings/tiles/%d/%d/%d.mvt"},
		{"v1-contours", "/v1/terrain/contours/%d/%d/%d.mvt"},
	} {
		b.Run(c.name, func(b *testing.B) {
			get := func(t [3]int) {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest("GET", fmt.Sprintf(c.format, t[0], t[1], t[2]), nil)
				req.Header.Set("Accept-Encoding", "gzip")
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("%v: %d %s", t, rec.Code, rec.Body)
				}
			}
			for _, t := range tiles {
				get(t)
			}
			b.ReportAllocs()
			cpu0 := testtool.CPUTime()
			for b.Loop() {
				for _, t := range tiles {
					get(t)
				}
			}
			reportTiles(b, len(tiles), cpu0)
		})
	}
}
