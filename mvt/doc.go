// Package mvt writes and reads Mapbox Vector Tiles 2.1
// (https://github.com/mapbox/vector-tile-spec/tree/master/2.1): the
// protobuf is written by hand (varints, zig-zag, packed fields), so no
// protobuf module is needed. It also holds the Web Mercator (EPSG:3857)
// tile arithmetic and the polygon pipeline a tile needs: quantisation to
// the tile grid, clipping to the tile with a buffer, and the winding the
// specification requires (4.3.4.4: exterior rings clockwise, holes
// counter-clockwise, in tile coordinates with y down).
package mvt

import "errors"

// ErrFormat is wrapped by every error of Decode: the bytes are no vector
// tile this package can read.
var ErrFormat = errors.New("mvt: invalid data")

// Extent is the tile extent this package writes (4096 units a side, the
// specification's default).
const Extent = 4096

// Geometry types (4.3.4).
const (
	Unknown    = 0
	Point      = 1
	LineString = 2
	Polygon    = 3
)
