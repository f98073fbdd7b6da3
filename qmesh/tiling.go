// Package qmesh serves the DGM as quantized-mesh-1.0 terrain tiles, the
// format CesiumJS's CesiumTerrainProvider reads: the geographic tiling
// scheme (EPSG:4326, two root tiles, TMS rows counted from the south), per
// tile a right-triangulated irregular network (package rtin) of DHHN2016
// heights sampled from every published DGM and lifted to ellipsoidal heights
// with a geoid model, edge vertices at full resolution so that neighbouring
// tiles share them, and optional oct-encoded vertex normals. Tiles are built
// on demand and kept in a bounded cache. The package knows nothing of HTTP.
//
// Specification: https://github.com/CesiumGS/quantized-mesh (quantized-mesh-1.0).
package qmesh

import (
	"errors"
	"fmt"
	"math"
)

// ErrTile reports a tile address outside the tiling scheme.
var ErrTile = errors.New("qmesh: no such tile")

// MaxZoom is the deepest level served: at z = 18 a tile spans about 76 m of
// latitude, 1.2 m between the 65 samples of its edge, the DGM1's resolution.
const MaxZoom = 18

// Tile addresses one tile: level Z, column X from -180°, row Y from -90°
// (TMS).
type Tile struct{ Z, X, Y int }

// Check reports ErrTile unless t exists in the scheme (up to MaxZoom).
func (t Tile) Check() error {
	if t.Z < 0 || t.Z > MaxZoom || t.X < 0 || t.Y < 0 || t.X >= 2<<t.Z || t.Y >= 1<<t.Z {
		return fmt.Errorf("%w: %d/%d/%d (level 0-%d, x < 2^(z+1), y < 2^z)", ErrTile, t.Z, t.X, t.Y, MaxZoom)
	}
	return nil
}

// Bounds returns the tile's west, south, east and north edges in degrees.
func (t Tile) Bounds() (w, s, e, n float64) {
	size := 180 / math.Ldexp(1, t.Z)
	w, s = -180+float64(t.X)*size, -90+float64(t.Y)*size
	return w, s, w + size, s + size
}

// GeometricError is the error CesiumJS allows a tile of level z (its
// getLevelMaximumGeometricError for the geographic scheme with 65-sample
// height maps): about 77 km at level 0, halving per level.
func GeometricError(z int) float64 {
	const level0 = 6378137.0 * 2 * math.Pi * 0.25 / (65 * 2)
	return level0 / math.Ldexp(1, z)
}

// LayerJSON is the layer.json of the tileset: every tile of every level up
// to MaxZoom is available (outside the data a tile is the geoid surface).
func LayerJSON(attribution string, heightModel string) map[string]any {
	var available [][]map[string]int
	for z := 0; z <= MaxZoom; z++ {
		available = append(available, []map[string]int{{"startX": 0, "startY": 0, "endX": 2<<z - 1, "endY": 1<<z - 1}})
	}
	return map[string]any{
		"tilejson": "2.1.0", "name": "svc DGM", "description": "DGM1 of every published BL, ellipsoidal heights (" + heightModel + ")",
		"version": "1.0.0", "format": "quantized-mesh-1.0", "scheme": "tms", "projection": "EPSG:4326",
		"tiles": []string{"{z}/{x}/{y}.terrain"}, "bounds": []float64{-180, -90, 180, 90},
		"minzoom": 0, "maxzoom": MaxZoom, "available": available, "extensions": []string{"octvertexnormals"},
		"attribution": attribution,
	}
}
