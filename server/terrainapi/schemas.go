package terrainapi

import (
	"github.com/svc-geodata/svc/server/apidoc"
	"github.com/svc-geodata/svc/terrain"
)

// Schemas are the component schemas of the OpenAPI document the terrain
// routes take and answer with, by name (AttributionEntry is the server's).
func Schemas() apidoc.Obj {
	return apidoc.Obj{
		"TileJSON": apidoc.Object("TileJSON 3.0.0 of a raster tile layer", []string{"tilejson", "tiles"}, apidoc.Obj{
			"tilejson": apidoc.Str("3.0.0"), "name": apidoc.Str(""), "scheme": apidoc.Enum("", "xyz"), "format": apidoc.Enum("", "png"),
			"tiles": apidoc.Array(apidoc.Str(""), "URL templates"), "minzoom": apidoc.Int(""), "maxzoom": apidoc.Int(""), "tileSize": apidoc.Int(""),
			"bounds": apidoc.Array(apidoc.Num(""), "west, south, east, north (WGS84)"), "attribution": apidoc.Str(""),
			"description": apidoc.Str(""), "encoding": apidoc.Enum("how a raster-dem tile packs heights (terrain-RGB and Terrarium tiles only)", "mapbox", "terrarium")}),
		"ElevationBatchRequest": apidoc.Obj{"type": "object", "description": "Either `locations` ([lat, lon] pairs, latitude first) or a " +
			"GeoJSON MultiPoint or LineString geometry (`type`, `coordinates` as [lon, lat] or [lon, lat, z])",
			"properties": apidoc.Obj{
				"locations": apidoc.Obj{"type": "array", "description": "[lat, lon] pairs in WGS84 degrees", "minItems": 1,
					"items": apidoc.Obj{"type": "array", "items": apidoc.Obj{"type": "number"}, "minItems": 2, "maxItems": 2}},
				"type":        apidoc.Enum("GeoJSON geometry type", "MultiPoint", "LineString"),
				"coordinates": apidoc.Obj{"type": "array", "description": "GeoJSON positions", "items": apidoc.Obj{"type": "array", "items": apidoc.Obj{"type": "number"}, "minItems": 2, "maxItems": 3}},
				"bbox":        apidoc.Obj{"type": "array", "items": apidoc.Obj{"type": "number"}, "description": "GeoJSON bbox, ignored"},
				"crs":         apidoc.Obj{"type": "object", "description": "2008 GeoJSON crs member; only CRS84 / EPSG:4326 are accepted"}},
			"additionalProperties": false,
			"example":              apidoc.Obj{"locations": [][]float64{{50.115, 8.67}, {50.116, 8.672}}}},
		"ElevationBatchResult": apidoc.Object("Batch elevation result, one entry per point in input order", nil, apidoc.Obj{
			"interpolation": apidoc.Enum("", terrain.Interpolations...), "datum": apidoc.Enum("", "DHHN2016"),
			"count": apidoc.Int("points asked for"), "valid": apidoc.Int("points with an elevation"),
			"results": apidoc.Array(apidoc.Object("", nil, apidoc.Obj{
				"lat": apidoc.Num("as sent"), "lon": apidoc.Num("as sent"),
				"elevation_m": apidoc.Nullable("number", "metres above NHN (DHHN2016), 3 decimals; null without a value"),
				"source_bl":   apidoc.Str("BL of the answering dataset; empty outside coverage"),
				"tile_id":     apidoc.Nullable("string", "null without a value"),
				"reason":      apidoc.Obj{"type": []string{"string", "null"}, "enum": []any{"outside", "nodata", "unavailable", "damaged", nil}, "description": "why there is no value; null with a value"}}), ""),
			"svc": apidoc.Object("", nil, apidoc.Obj{"attribution": apidoc.Array(apidoc.Ref("AttributionEntry"), "one entry per BL present")})}),
		"ElevationResult": apidoc.Object("Elevation result (SPEC 2.11)", nil, apidoc.Obj{
			"elevation_m": apidoc.Num("metres above NHN (DHHN2016), 3 decimals"), "datum": apidoc.Enum("", "DHHN2016"),
			"source_bl": apidoc.Str(""), "snapshot": apidoc.StrF("date", ""), "license": apidoc.Str(""), "attribution": apidoc.Str(""), "tile_id": apidoc.Str("")}),
		"ProfileResult": apidoc.Object("Terrain profile, a GeoJSON FeatureCollection (SPEC 2.12)", []string{"type", "properties", "features"}, apidoc.Obj{
			"type": apidoc.Enum("", "FeatureCollection"),
			"properties": apidoc.Object("", nil, apidoc.Obj{"datum": apidoc.Enum("", "DHHN2016"), "coords_count": apidoc.Int("vertices of the polyline"),
				"samples": apidoc.Int("features returned"), "total_length_m": apidoc.Num("polyline length in UTM32N metres, 2 decimals"),
				"partial":         apidoc.Bool("some sample is outside coverage, NoData or on a failed tile"),
				"failed_tile_ids": apidoc.Array(apidoc.Str(""), "tiles whose read failed")}),
			"features": apidoc.Array(apidoc.Object("", nil, apidoc.Obj{"type": apidoc.Enum("", "Feature"), "geometry": apidoc.GeoJSON("Point", "sample position"),
				"properties": apidoc.Object("", nil, apidoc.Obj{"elevation_m": apidoc.Nullable("number", "DHHN2016, 3 decimals; null without a value"),
					"distance_m": apidoc.Num("cumulative from the first point, UTM32N metres"),
					"source_bl":  apidoc.Str("BL of the covering dataset; empty outside coverage"),
					"tile_id":    apidoc.Nullable("string", "null without a value")})}), ""),
			"svc": apidoc.Object("", nil, apidoc.Obj{"attribution": apidoc.Array(apidoc.Ref("AttributionEntry"), "one entry per BL present")})}),
		"CanopyResult": apidoc.Object("Canopy result (SPEC 2.13)", nil, apidoc.Obj{
			"canopy_height_m": apidoc.Num("height above ground"), "crown_base_m": apidoc.Nullable("number", "null when trunk=false or no trunk model"),
			"height_reference": apidoc.Str(""), "transmissivity": apidoc.Object("", nil, apidoc.Obj{
				"leaf_on": apidoc.Array(apidoc.Num(""), "2 numbers, percent"), "leaf_off": apidoc.Array(apidoc.Num(""), "2 numbers, percent")}),
			"source_bl": apidoc.Str(""), "snapshot": apidoc.StrF("date", ""), "crs": apidoc.Str(""), "tile_id": apidoc.Str(""), "license": apidoc.Str(""),
			"attribution": apidoc.Nullable("string", "")}),
		"QuantizedMeshLayer": apidoc.Object("TileJSON 2.1 of the quantized-mesh terrain (the fields CesiumTerrainProvider reads)",
			[]string{"tilejson", "format", "version", "scheme", "tiles", "projection", "available", "minzoom", "maxzoom"}, apidoc.Obj{
				"tilejson": apidoc.Str("2.1.0"), "name": apidoc.Str(""), "description": apidoc.Str(""), "version": apidoc.Str(""),
				"format": apidoc.Enum("", "quantized-mesh-1.0"), "scheme": apidoc.Enum("", "tms"), "projection": apidoc.Enum("", "EPSG:4326"),
				"tiles": apidoc.Array(apidoc.Str("URL template relative to layer.json"), ""), "bounds": apidoc.Array(apidoc.Num(""), "west, south, east, north"),
				"minzoom": apidoc.Int(""), "maxzoom": apidoc.Int(""), "extensions": apidoc.Array(apidoc.Str(""), "supported extensions"),
				"attribution": apidoc.Str("every published DGM's attribution"),
				"available":   apidoc.Array(apidoc.Array(apidoc.Object("", nil, apidoc.Obj{"startX": apidoc.Int(""), "startY": apidoc.Int(""), "endX": apidoc.Int(""), "endY": apidoc.Int("")}), ""), "per level")}),
	}
}
