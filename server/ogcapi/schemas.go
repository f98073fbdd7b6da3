package ogcapi

import (
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/server/apidoc"
)

// Schemas are the component schemas of the OpenAPI documents the OGC API
// routes answer with, by name.
func Schemas() apidoc.Obj {
	limits := apidoc.Object("Rows and columns of one tile matrix that hold data", []string{"tileMatrix", "minTileRow", "maxTileRow", "minTileCol", "maxTileCol"}, apidoc.Obj{
		"tileMatrix": apidoc.Str(""), "minTileRow": apidoc.Int(""), "maxTileRow": apidoc.Int(""), "minTileCol": apidoc.Int(""), "maxTileCol": apidoc.Int("")})
	tileSetItem := apidoc.Object("A tileset in a list (OGC 20-057 tileSet-item)", []string{"dataType", "crs", "links"}, apidoc.Obj{
		"title": apidoc.Str(""), "dataType": apidoc.Enum("", DataVector, DataMap), "crs": apidoc.StrF("uri", ""), "tileMatrixSetURI": apidoc.StrF("uri", ""),
		"links": apidoc.Array(apidoc.Ref("OGCLink"), "self and tiling-scheme")})
	return apidoc.Obj{
		"OGCTileSets": apidoc.Object("Tilesets (OGC 20-057 TileSetsList)", []string{"tilesets"}, apidoc.Obj{
			"links": apidoc.Array(apidoc.Ref("OGCLink"), ""), "tilesets": apidoc.Array(tileSetItem, "")}),
		"OGCTileSet": apidoc.Object("A tileset (OGC 20-057 TileSet, 2D TileSet Metadata of OGC 17-083r4)", []string{"dataType", "crs", "links"}, apidoc.Obj{
			"title": apidoc.Str(""), "description": apidoc.Str(""), "dataType": apidoc.Enum("", DataVector, DataMap), "crs": apidoc.StrF("uri", ""),
			"tileMatrixSetURI": apidoc.StrF("uri", ""), "mediaTypes": apidoc.Array(apidoc.Str(""), ""),
			"links":               apidoc.Array(apidoc.Ref("OGCLink"), "self, tiling-scheme, item (the URL template with {tileMatrix}, {tileRow}, {tileCol}), geodata or dataset"),
			"tileMatrixSetLimits": apidoc.Array(limits, "per zoom of the tileset, the tiles that meet the published data"),
			"boundingBox":         apidoc.Object("the published data, CRS84", nil, apidoc.Obj{"lowerLeft": apidoc.Array(apidoc.Num(""), ""), "upperRight": apidoc.Array(apidoc.Num(""), ""), "crs": apidoc.StrF("uri", "")}),
			"layers":              apidoc.Array(apidoc.Obj{"type": "object"}, "vector tilesets: the layers inside a tile with their propertiesSchema")}),
		"OGCTileMatrixSets": apidoc.Object("Tile matrix sets", []string{"tileMatrixSets"}, apidoc.Obj{
			"links": apidoc.Array(apidoc.Ref("OGCLink"), ""), "tileMatrixSets": apidoc.Array(apidoc.Object("", []string{"links"}, apidoc.Obj{
				"id": apidoc.Str(""), "title": apidoc.Str(""), "uri": apidoc.StrF("uri", ""), "crs": apidoc.StrF("uri", ""), "links": apidoc.Array(apidoc.Ref("OGCLink"), "")}), "")}),
		"OGCTileMatrixSet": apidoc.Object("A tile matrix set in the JSON encoding of OGC 17-083r4", []string{"crs", "tileMatrices"}, apidoc.Obj{
			"id": apidoc.Str(""), "title": apidoc.Str(""), "uri": apidoc.StrF("uri", ""), "crs": apidoc.StrF("uri", ""), "orderedAxes": apidoc.Array(apidoc.Str(""), ""),
			"wellKnownScaleSet": apidoc.StrF("uri", ""), "boundingBox": apidoc.Obj{"type": "object"},
			"tileMatrices": apidoc.Array(apidoc.Object("", []string{"id", "scaleDenominator", "cellSize", "pointOfOrigin", "tileWidth", "tileHeight", "matrixWidth", "matrixHeight"}, apidoc.Obj{
				"id": apidoc.Str(""), "scaleDenominator": apidoc.Num(""), "cellSize": apidoc.Num("metres"), "cornerOfOrigin": apidoc.Enum("", "topLeft"),
				"pointOfOrigin": apidoc.Array(apidoc.Num(""), ""), "tileWidth": apidoc.Int(""), "tileHeight": apidoc.Int(""), "matrixWidth": apidoc.Int(""), "matrixHeight": apidoc.Int("")}), ""),
			"links": apidoc.Array(apidoc.Ref("OGCLink"), "")}),
		"OGCLink":        apidoc.Object("A link (OGC API Common)", []string{"href", "rel"}, apidoc.Obj{"href": apidoc.StrF("uri", ""), "rel": apidoc.Str(""), "type": apidoc.Str(""), "title": apidoc.Str("")}),
		"OGCLanding":     apidoc.Object("OGC API landing page", []string{"links"}, apidoc.Obj{"title": apidoc.Str(""), "description": apidoc.Str(""), "links": apidoc.Array(apidoc.Ref("OGCLink"), "")}),
		"OGCConformance": apidoc.Object("Conformance classes", nil, apidoc.Obj{"conformsTo": apidoc.Array(apidoc.StrF("uri", ""), "")}),
		"OGCCollection": apidoc.Object("A feature collection", []string{"id", "links"}, apidoc.Obj{
			"id": apidoc.Str(""), "title": apidoc.Str(""), "description": apidoc.Str(""), "itemType": apidoc.Enum("", "feature"),
			"crs": apidoc.Array(apidoc.StrF("uri", ""), "CRS the features can be had in"), "storageCrs": apidoc.StrF("uri", "CRS of the stored geometry (per-BL collections)"),
			"extent": apidoc.Object("", nil, apidoc.Obj{
				"spatial":  apidoc.Object("", nil, apidoc.Obj{"bbox": apidoc.Array(apidoc.Array(apidoc.Num(""), ""), "minLon, minLat, maxLon, maxLat"), "crs": apidoc.StrF("uri", "")}),
				"temporal": apidoc.Object("", nil, apidoc.Obj{"interval": apidoc.Array(apidoc.Array(apidoc.NullableF("string", "date-time", ""), ""), "snapshot dates"), "trs": apidoc.StrF("uri", "")})}),
			"links": apidoc.Array(apidoc.Ref("OGCLink"), "")}),
		"OGCCollections": apidoc.Object("Feature collections", []string{"links", "collections"}, apidoc.Obj{
			"links": apidoc.Array(apidoc.Ref("OGCLink"), ""), "collections": apidoc.Array(apidoc.Ref("OGCCollection"), ""), "crs": apidoc.Array(apidoc.StrF("uri", ""), "")}),
		"OGCFeature": apidoc.Object("A GeoJSON Feature: one surface (collections surfaces, surfaces-<bl>, roofs) or one building (buildings: id the gml:id, geometry the footprint or null)", []string{"type", "id", "geometry", "properties"}, apidoc.Obj{
			"type": apidoc.Enum("", "Feature"), "id": apidoc.Str("<bl>.<surface_id>, or the gml:id in buildings"), "geometry": apidoc.GeoJSON("MultiPolygon", "surface geometry, in the requested crs"),
			"properties": apidoc.Obj{"type": "object", "description": "surfaces (and surfaces-<bl>): " + strings.Join(buildings.OGCSurface.Names(), ", ") +
				"; roofs: " + strings.Join(buildings.OGCRoof.Names(), ", ") + "; buildings: " + strings.Join(wholePropNames(), ", ")},
			"links": apidoc.Array(apidoc.Ref("OGCLink"), "")}),
		"OGCQueryables": apidoc.Object("Queryables or sortables: a JSON Schema (draft 2020-12) of an object (OGC API - Features Part 3)",
			[]string{"$schema", "type", "properties"}, apidoc.Obj{
				"$schema": apidoc.StrF("uri", ""), "$id": apidoc.StrF("uri", ""), "type": apidoc.Enum("", "object"), "title": apidoc.Str(""),
				"properties":           apidoc.Obj{"type": "object", "description": "one JSON Schema per queryable property", "additionalProperties": apidoc.Obj{"type": "object"}},
				"additionalProperties": apidoc.Obj{"type": "boolean"}}),
		"OGCFeatureCollection": apidoc.Object("A page of features", []string{"type", "features", "numberReturned", "links"}, apidoc.Obj{
			"type": apidoc.Enum("", "FeatureCollection"), "features": apidoc.Array(apidoc.Ref("OGCFeature"), ""),
			"numberReturned": apidoc.Int(""), "numberMatched": apidoc.Int("only without bbox, datetime and filters"),
			"timeStamp": apidoc.StrF("date-time", ""), "links": apidoc.Array(apidoc.Ref("OGCLink"), "self, alternate, next, collection")}),
	}
}
