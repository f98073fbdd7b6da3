package server

import (
	"fmt"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/svc-geodata/svc/contour"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
)

// benchContourTiles are the tiles of zoom z meeting the Hesse demo DGM
// (two 1 km files, 476-478 km E, 5551-5552 km N, EPSG:25832).
func benchContourTiles(z int) [][3]int {
	n := math.Exp2(float64(z))
	w, s := geo.FromUTM(geo.Zone32, 476000, 5551000)
	e, nn := geo.FromUTM(geo.Zone32, 478000, 5552000)
	tx := func(lon float64) int { return int((lon + 180) / 360 * n) }
	ty := func(lat float64) int { return int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n) }
	var out [][3]int
	for x := tx(w); x <= tx(e); x++ {
		for y := ty(nn); y <= ty(s); y++ {
			out = append(out, [3]int{z, x, y})
		}
	}
	return out
}

// BenchmarkContourTile draws the contour tiles over the demo DGM at z14
// (5 m lines) and z16 (1 m): cold is contour.Tiler.Tile itself, no tile
// cache (DGM window, marching squares, projection, clipping, encoding;
// the DGM blocks are in the raster cache after the first pass), warm the
// whole handler chain answering from the tile cache (gzip asked for).
func BenchmarkContourTile(b *testing.B) {
	cat, err := demoCatalog()
	if err != nil {
		b.Fatal(err)
	}
	for _, z := range []int{14, 16} {
		tiles := benchContourTiles(z)
		b.Run(fmt.Sprintf("z%d/cold", z), func(b *testing.B) {
			v, release := cat.Acquire()
			defer release()
			tiler := contour.NewTiler(query.Datasets(v, pack.Terrain))
			size := 0
			b.ReportAllocs()
			cpu0 := testtool.CPUTime()
			for b.Loop() {
				size = 0
				for _, t := range tiles {
					data, err := tiler.Tile(b.Context(), t[0], t[1], t[2])
					if err != nil {
						b.Fatal(err)
					}
					size += len(data)
				}
			}
			reportTiles(b, len(tiles), cpu0)
			b.ReportMetric(float64(size)/float64(len(tiles)), "bytes/tile")
		})
		b.Run(fmt.Sprintf("z%d/warm", z), func(b *testing.B) {
			ts, err := demoServer()
			if err != nil {
				b.Fatal(err)
			}
			h := ts.Config.Handler
			get := func(t [3]int) {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest("GET", fmt.Sprintf("/v1/terrain/contours/%d/%d/%d.mvt", t[0], t[1], t[2]), nil)
				req.Header.Set("Accept-Encoding", "gzip")
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("%v: %d", t, rec.Code)
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
