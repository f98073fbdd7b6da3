package ogcapi

import (
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/server/apidoc"
)

// Schemas are the component schemas of the OpenAPI documents the OGC API
// routes answer with, by name.
func Schemas() apidoc.Obj {
	return apidoc.Obj{
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
