package contour

import "github.com/svc-geodata/svc/maplayer"

// VectorLayers are the layers inside a contour vector tile
// (docs/terrain-tiles.md, "Contours"), as the route's TileJSON and an
// offline archive's metadata list them.
var VectorLayers = []maplayer.VectorLayer{
	{ID: Layer, MinZoom: MinZoom, MaxZoom: MaxZoom,
		Description: "Contour lines of the DGM1 (DHHN2016); interval 50 m at zoom 10-11, 10 m at 12-13, 5 m at 14-15, 1 m from 16",
		Fields:      map[string]string{"elevation_m": "Number", "index": "Boolean"}},
}
