package maplayer

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pmtiles"
)

// maxMercatorLat is the latitude where the Web Mercator square ends.
const maxMercatorLat = 85.05112877980659

// MaxTiles caps the tiles of one export (a bbox or zoom typo must not
// start a job of days; 2 million hillshade tiles are about 100 GB).
const MaxTiles = 2_000_000

// ErrTooMany is returned when a bbox and zoom range hold more than MaxTiles.
var ErrTooMany = fmt.Errorf("maplayer: more than %d tiles", MaxTiles)

// TileAddr is one tile: zoom, column from the west, row from the north.
type TileAddr struct{ Z, X, Y int }

// tileRange is the columns and rows of zoom z meeting the bbox (WGS84).
func tileRange(b geo.BBox, z int) (x0, y0, x1, y1 int) {
	n := 1 << z
	col := func(lon float64) int { return clampInt(int(math.Floor((lon+180)/360*float64(n))), 0, n-1) }
	row := func(lat float64) int {
		lat = math.Max(-maxMercatorLat, math.Min(maxMercatorLat, lat)) * math.Pi / 180
		return clampInt(int(math.Floor((1-math.Log(math.Tan(lat)+1/math.Cos(lat))/math.Pi)/2*float64(n))), 0, n-1)
	}
	return col(b.MinLon), row(b.MaxLat), col(b.MaxLon), row(b.MinLat)
}

func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }

// Tiles lists the tiles of zooms minZ..maxZ meeting the bbox in ascending
// PMTiles tile id order (the order an archive stores them), or ErrTooMany.
func Tiles(b geo.BBox, minZ, maxZ int) ([]TileAddr, error) {
	total := 0
	for z := minZ; z <= maxZ; z++ {
		x0, y0, x1, y1 := tileRange(b, z)
		if total += (x1 - x0 + 1) * (y1 - y0 + 1); total > MaxTiles {
			return nil, fmt.Errorf("%w at zoom %d: narrow the bbox or lower --maxzoom", ErrTooMany, z)
		}
	}
	ts := make([]TileAddr, 0, total)
	for z := minZ; z <= maxZ; z++ {
		x0, y0, x1, y1 := tileRange(b, z)
		for x := x0; x <= x1; x++ {
			for y := y0; y <= y1; y++ {
				ts = append(ts, TileAddr{z, x, y})
			}
		}
	}
	slices.SortFunc(ts, func(a, b TileAddr) int { return cmp.Compare(a.id(), b.id()) })
	return ts, nil
}

func (t TileAddr) id() uint64 { return pmtiles.TileID(uint8(t.Z), uint32(t.X), uint32(t.Y)) }
