package ogcapi

import (
	"math"
	"strconv"
)

// The one tile matrix set the tiles are published in: WebMercatorQuad of
// OGC 17-083r4 (2D Tile Matrix Set 2.0, annex D.1), the grid of the XYZ
// routes (/v1/buildings/tiles, /v1/terrain/hillshade): tile matrix z is
// zoom z, tileRow is y from the north, tileCol is x from the west.
const (
	tmsID   = "WebMercatorQuad"
	tmsURI  = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad"
	crs3857 = "http://www.opengis.net/def/crs/EPSG/0/3857"
	// tmsMaxZoom is the deepest tile matrix of the definition (0 to 24).
	tmsMaxZoom = 24
	// mercHalf is half the Web Mercator world's width in metres.
	mercHalf = 20037508.3427892
)

// tileMatrixSetDoc is the WebMercatorQuad definition in the JSON encoding
// of OGC 17-083r4 (2D Tile Matrix Set 2.0: id, crs, tileMatrices with
// cellSize and pointOfOrigin). It also carries the members of the 2019
// encoding (17-083r2: type TileMatrixSetType, identifier, supportedCRS,
// tileMatrix with topLeftCorner), because GDAL before 3.7 reads only that
// one and fails with "Invalid tiling matrix set name" on a 2.0 document;
// GDAL 3.7 and later read the 2.0 members. The 2.0 schema allows
// additional members, so the document stays valid.
func tileMatrixSetDoc() map[string]any {
	var tms, legacy []map[string]any
	for z := 0; z <= tmsMaxZoom; z++ {
		cell := 2 * mercHalf / 256 / float64(int64(1)<<z)
		id, origin, n := strconv.Itoa(z), []float64{-mercHalf, mercHalf}, int64(1)<<z
		tms = append(tms, map[string]any{
			"id": id, "scaleDenominator": cell / 0.28e-3, "cellSize": cell, "cornerOfOrigin": "topLeft", "pointOfOrigin": origin,
			"tileWidth": 256, "tileHeight": 256, "matrixWidth": n, "matrixHeight": n})
		legacy = append(legacy, map[string]any{
			"type": "TileMatrixType", "identifier": id, "scaleDenominator": cell / 0.28e-3, "topLeftCorner": origin,
			"tileWidth": 256, "tileHeight": 256, "matrixWidth": n, "matrixHeight": n})
	}
	lower, upper := []float64{-mercHalf, -mercHalf}, []float64{mercHalf, mercHalf}
	return map[string]any{
		"id": tmsID, "title": "Google Maps Compatible for the World", "uri": tmsURI, "crs": crs3857,
		"orderedAxes": []string{"E", "N"}, "wellKnownScaleSet": "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible",
		"boundingBox": map[string]any{"lowerLeft": lower, "upperRight": upper, "crs": crs3857,
			"type": "BoundingBoxType", "lowerCorner": lower, "upperCorner": upper},
		"tileMatrices": tms,
		"type":         "TileMatrixSetType", "identifier": tmsID, "supportedCRS": crs3857, "tileMatrix": legacy,
	}
}

// tileLimits are the rows and columns of one tile matrix that hold data.
type tileLimits struct {
	TileMatrix string `json:"tileMatrix"`
	MinTileRow int    `json:"minTileRow"`
	MaxTileRow int    `json:"maxTileRow"`
	MinTileCol int    `json:"minTileCol"`
	MaxTileCol int    `json:"maxTileCol"`
}

// limitsOf are the tileMatrixSetLimits of zooms minZ to maxZ for
// boundsWGS84 (west, south, east, north in degrees): the tiles that meet
// the box, both edges included.
func limitsOf(boundsWGS84 [4]float64, minZ, maxZ int) []tileLimits {
	var ls []tileLimits
	for z := minZ; z <= maxZ; z++ {
		c0, r1 := tileOf(boundsWGS84[0], boundsWGS84[1], z)
		c1, r0 := tileOf(boundsWGS84[2], boundsWGS84[3], z)
		ls = append(ls, tileLimits{TileMatrix: strconv.Itoa(z), MinTileRow: r0, MaxTileRow: r1, MinTileCol: c0, MaxTileCol: c1})
	}
	return ls
}

// tileOf is the column and row of the zoom z tile that holds lon, lat
// (degrees), clamped to the matrix (latitudes beyond ±85.0511° to its
// first or last row).
func tileOf(lon, lat float64, z int) (col, row int) {
	n := float64(int64(1) << z)
	lat = math.Max(-85.0511287798, math.Min(85.0511287798, lat))
	x := (lon + 180) / 360 * n
	s := math.Sin(lat * math.Pi / 180)
	y := (0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)) * n
	clamp := func(v float64) int { return int(math.Max(0, math.Min(n-1, math.Floor(v)))) }
	return clamp(x), clamp(y)
}
