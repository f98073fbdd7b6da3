package server

import (
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/server/dataapi"
	"github.com/svc-geodata/svc/state"
	"github.com/svc-geodata/svc/terrain"
)

// heightModelDoc documents the height_model member of the 3D listings.
const heightModelDoc = "Height model of the 3D content (beyond the spec): vertices are at GRS80 ellipsoidal heights h = H + N, " +
	"H the DHHN2016 normal height of the source and N the undulation of this geoid/quasigeoid grid, so the content sits right on " +
	"CesiumJS and other globes. Default `GCG2016 (de_bkg_gcg2016.tif, BKG; EGM96 beyond it)`: the official German quasigeoid of BKG " +
	"(embedded; © BKG, CC BY 4.0, credited in /v1/attribution and in the tiles), with EGM96 only beyond Germany's border margin; " +
	"`EGM96 (egm96_15.gtx, PROJ; Germany subset)` when built with `--geoid egm96` (0.06 m higher on average, up to 1.8 m off GCG2016, see docs/height-model.md). The same value is in " +
	"each tileset.json under `asset.extras.height_model`. null: built before height models, heights are DHHN2016 written as ellipsoidal " +
	"(35-50 m too low on a globe): rebuild with `svc build`."

// obj is a JSON object of the OpenAPI document.
type obj = map[string]any

// Schema builders: small helpers so the component schemas below read like the
// tables of SPEC section 2.

func str(desc string) obj { return obj{"type": "string", "description": desc} }
func strf(format, desc string) obj {
	return obj{"type": "string", "format": format, "description": desc}
}
func integer(desc string) obj { return obj{"type": "integer", "description": desc} }
func number(desc string) obj  { return obj{"type": "number", "description": desc} }
func boolean(desc string) obj { return obj{"type": "boolean", "description": desc} }
func nullable(t, desc string) obj {
	return obj{"type": []string{t, "null"}, "description": desc}
}
func nullablef(t, format, desc string) obj {
	return obj{"type": []string{t, "null"}, "format": format, "description": desc}
}
func array(items obj, desc string) obj {
	return obj{"type": "array", "items": items, "description": desc}
}
func enum(desc string, values ...string) obj {
	return obj{"type": "string", "enum": values, "description": desc}
}

// object builds a closed-description object schema; required lists the
// required properties (nil: all of them).
func object(desc string, required []string, props obj) obj {
	if required == nil {
		required = []string{}
		for k := range props {
			required = append(required, k)
		}
		sortStrings(required)
	}
	return obj{"type": "object", "description": desc, "required": required, "properties": props}
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func listOf(item, key string, withCount bool) obj {
	props := obj{key: array(ref(item), "")}
	if withCount {
		props["count"] = integer("number of entries")
	}
	return object("", nil, props)
}

var bbox4 = obj{"type": "array", "items": obj{"type": "number"}, "minItems": 4, "maxItems": 4,
	"description": "minLon,minLat,maxLon,maxLat (WGS84)"}

func geoJSON(kind, desc string) obj {
	position := obj{"type": "array", "items": obj{"type": "number"}, "minItems": 2, "maxItems": 3, "description": "lon, lat[, z]"}
	nest := func(o obj, depth int) obj {
		for range depth {
			o = obj{"type": "array", "items": o}
		}
		return o
	}
	coords := map[string]obj{"Point": position, "MultiPoint": nest(position, 1), "LineString": nest(position, 1),
		"Polygon": nest(position, 2), "MultiPolygon": nest(position, 3)}[kind]
	if coords == nil {
		coords = obj{"type": "array", "items": obj{}}
	}
	return obj{"type": "object", "description": desc + " (RFC 7946, coordinates lon,lat[,z] WGS84)", "required": []string{"type", "coordinates"},
		"properties": obj{"type": enum("", kind), "coordinates": coords}}
}

// propertiesSchema describes the properties object of a surface feature
// form from the form's own property list, so that what the writer writes
// and what the document describes cannot drift apart.
func propertiesSchema(f *buildings.Form) obj {
	props := obj{}
	for _, p := range f.Properties {
		t := any(p.Type)
		if p.Nullable {
			t = []string{p.Type, "null"}
		}
		o := obj{"type": t, "description": p.Desc}
		if p.Enum != nil {
			o["enum"] = p.Enum
		}
		props[p.Name] = o
	}
	return props
}

func components(cfg Config) obj {
	limits := object("", nil, obj{"requests_per_minute": integer(""), "requests_per_day": integer("")})
	schemas := obj{
		"Problem": obj{"type": "object", "description": "RFC 9457 problem detail; extension members may follow.",
			"required": []string{"type", "title", "status", "detail", "instance"},
			"properties": obj{"type": strf("uri", "{errors_base}/<name>"), "title": str(""), "status": integer("HTTP status"),
				"detail": str("what went wrong, naming the parameter"), "instance": str("request path; empty for a request the server could not parse (400 malformed, 431)"),
				"retry_after": integer("seconds until the limit resets (429 only)"), "limit": integer("the exhausted limit (keyless 429)"),
				"key_url": strf("uri", "where to get a key (keyless 429)"), "docs_url": strf("uri", "documentation (keyless 429)")},
			"additionalProperties": true},
		"Healthz":         object("", nil, obj{"status": str("`ok` while the process runs"), "service": str("service name")}),
		"OpenAPIDocument": obj{"type": "object", "description": "An OpenAPI 3.1 document"},
		"LoD2Dataset": object("LoD2 dataset (SPEC 2.1)", nil, obj{
			"id": str("BL code"), "bundesland_code": str("BL code"), "name": str("display string with attribution text"),
			"license_id": str("e.g. dl-de-zero-2.0, cc-by-4.0, dl-de-by-2.0"), "source_url": str("source download location"),
			"snapshot_date": strf("date", "date of the source download"), "building_count": integer(""),
			"validation_pass_pct": nullable("number", "share of buildings passing geometric validation; null when no validation ran"),
			"last_sync":           strf("date-time", "when the import finished")}),
		"LoD2DatasetList": listOf("LoD2Dataset", "datasets", true),
		"AttributionEntry": object("Attribution of one BL in a response (SPEC 2.6)", nil, obj{
			"source": str("authority or geodata agency"), "license": enum("", "DL-DE/Zero 2.0", "CC BY 4.0", "DL-DE BY 2.0"),
			"url": strf("uri", "licence URL"), "tiles_count": integer("always 1 on the building search")}),
		"AttributionListEntry": object("Licence and attribution of one published product of one BL", nil, obj{
			"bundesland_code": str(""), "product": enum("`height-model`: the height model whose undulation the 3D content's heights carry (bundesland_code empty), listed when its licence asks for credit",
				"lod2", "terrain", "terrain-mesh", "osm-cover", "veg", "buildings", dataapi.HeightModelProduct),
			"snapshot": strf("date", ""), "source": str("authority"), "license": str("licence label"), "license_id": str(""),
			"url": strf("uri", "licence URL"), "attribution": str("display string"),
			"must_display": boolean("true when the licence requires showing the source visibly (all but DL-DE/Zero 2.0)")}),
		"AttributionList": object("", nil, obj{"attribution": array(ref("AttributionListEntry"), ""), "count": integer("")}),
		"TerrainDataset": object("Terrain dataset (SPEC 2.7)", nil, obj{
			"bl": str("BL code"), "license": str("licence id"), "snapshot": strf("date", ""), "format": str("e.g. GeoTIFF (COG)"),
			"source": enum("how the tiles are held", "convert+storage-box", "mirror", "pass-through"), "tile_count": integer(""),
			"crs": enum("", "EPSG:25832", "EPSG:25833"), "vertical_datum": str("DHHN2016"), "attribution": str(""),
			"coverage_pct": nullable("number", "always null at present")}),
		"TerrainDatasetList": listOf("TerrainDataset", "datasets", true),
		"TerrainMeshDataset": object("Terrain mesh dataset (SPEC 2.8); b3dm with Draco-compressed glTF", nil, obj{
			"bundesland_code": str(""), "snapshot_date": strf("date", ""), "tileset_url": strf("uri", "{tiles_url}/terrain-mesh/<bl>/<snapshot>/tileset.json"),
			"tile_count": integer(""), "rtin_tolerance_m": number("maximum error of the RTIN approximation"),
			"tiling_scheme": enum("", "single-level-quadtree", "multi-level-quadtree"), "license": str(""), "attribution": str(""),
			"built_at": strf("date-time", ""), "height_model": nullable("string", heightModelDoc)}),
		"TerrainMeshDatasetList": listOf("TerrainMeshDataset", "datasets", false),
		"OsmCoverTheme": object("", nil, obj{"name": enum("", "surface", "transport", "canopy", "sea"),
			"tileset_url": strf("uri", ""), "tile_count": integer("")}),
		"OsmCoverDataset": object("OSM cover dataset (SPEC 2.9)", nil, obj{
			"bundesland_code": str(""), "snapshot_date": strf("date", ""), "themes": array(ref("OsmCoverTheme"), "3 themes inland, 4 on the coast"),
			"bbox": bbox4, "license": str("odbl-1.0"), "attribution": str(""), "built_at": strf("date-time", ""), "height_model": nullable("string", heightModelDoc)}),
		"OsmCoverDatasetList": listOf("OsmCoverDataset", "datasets", false),
		"VegetationTheme": object("", nil, obj{"name": enum("", "cdsm", "tdsm", "trees", "plantcover"),
			"kind": enum("", "raster_cog", "3dtiles"), "url": strf("uri", "COG directory base or tileset.json")}),
		"VegetationDataset": object("Vegetation dataset (SPEC 2.10). Clients must check `snapshot` before consuming plantcover colours.", nil, obj{
			"bundesland_code": str(""), "snapshot": strf("date", ""), "crs": str(""), "tile_size_m": number("COG sampling grid tile size"),
			"license": str(""), "attribution": str("display string; every dataset has one (DL-DE/Zero sources too, though they do not require it)"),
			"themes":       array(ref("VegetationTheme"), ""),
			"height_model": nullable("string", heightModelDoc)}),
		"VegetationDatasetList": listOf("VegetationDataset", "datasets", false),
		"Tileset": object("Building 3D Tiles tileset (SPEC 2.2)", nil, obj{
			"tileset_id": strf("uuid", "new id per snapshot"), "region_code": str("BL code"), "bundesland_code": str("BL code"),
			"snapshot_date": strf("date", ""), "s3_key": str("object key of tileset.json below {tiles_url}"),
			"tileset_url": strf("uri", "loadable by 3D Tiles viewers"), "tile_count": integer(""), "total_bytes": integer(""),
			"building_count": integer(""), "generated_at": strf("date-time", ""), "bounding_volume": geoJSON("Polygon", ""),
			"height_model": nullable("string", heightModelDoc)}),
		"TilesetList": object("Tilesets meeting a bbox (SPEC 4.3)", nil, obj{
			"tilesets": array(ref("Tileset"), ""), "count": integer(""), "bbox": bbox4,
			"svc": object("", nil, obj{"attribution": array(ref("AttributionEntry"), "one entry per BL listed; tiles_count is the tileset's tile count")})}),
		"BuildingSurfaceProperties": object("Exactly these six properties (SPEC 2.3)", nil, propertiesSchema(buildings.SearchSurface)),
		"BuildingSurfaceFeature": object("One surface of a building", nil, obj{
			"type": enum("", "Feature"), "id": str("the gmlid"), "geometry": geoJSON("MultiPolygon", "with Z"),
			"properties": ref("BuildingSurfaceProperties")}),
		"BuildingDetail": object("Building detail (SPEC 2.4)", nil, obj{
			"gmlid": str("echo of the request"), "bundesland_code": str(""), "building_id": integer(""), "lod": enum("", "LoD2"),
			"geometry": geoJSON("MultiPolygon", "all surfaces of the building, with Z")}),
		"RoofSurfaceFeature": object("A planar roof facet (SPEC 2.5)", nil, obj{
			"type": enum("", "Feature"), "geometry": geoJSON("Polygon", "with Z"),
			"properties": object("", nil, obj{
				"tilt_deg":    number("inclination against the horizontal, 0 to 90"),
				"azimuth_deg": nullable("number", "compass direction of the outward normal (0 N, 90 E); null when tilt < 5"),
				"area_m2":     number("projected (horizontal) area in m2, computed in UTM")})}),
		"BuildingSearchResponse": object("GeoJSON FeatureCollection of building surfaces (SPEC 4.4)", nil, obj{
			"type": enum("", "FeatureCollection"), "bbox": bbox4, "count": integer("features on this page"), "limit": integer("the page size asked for"),
			"features": array(ref("BuildingSurfaceFeature"), ""),
			"svc": object("", []string{"attribution", "next"}, obj{"attribution": array(ref("AttributionEntry"), "one entry per BL present"),
				"next":     str("cursor of the next page; empty when there is none"),
				"warnings": array(str(""), "present only when a state was skipped because its LoD2 data is damaged; the page then holds the other states' surfaces")})}),
		"RoofResponse": object("Roof facets of one building (SPEC 4.4)", nil, obj{
			"type": enum("", "FeatureCollection"), "count": integer(""), "features": array(ref("RoofSurfaceFeature"), ""),
			"svc": object("", []string{"gmlid", "bl"}, obj{"gmlid": str("the resolved id"), "bl": str("source BL"),
				"attribution": array(ref("AttributionEntry"), "licence of the source BL")})}),
		"TileJSON": object("TileJSON 3.0.0 of a raster tile layer", []string{"tilejson", "tiles"}, obj{
			"tilejson": str("3.0.0"), "name": str(""), "scheme": enum("", "xyz"), "format": enum("", "png"),
			"tiles": array(str(""), "URL templates"), "minzoom": integer(""), "maxzoom": integer(""), "tileSize": integer(""),
			"bounds": array(number(""), "west, south, east, north (WGS84)"), "attribution": str("")}),
		"OGCLink":        object("A link (OGC API Common)", []string{"href", "rel"}, obj{"href": strf("uri", ""), "rel": str(""), "type": str(""), "title": str("")}),
		"OGCLanding":     object("OGC API landing page", []string{"links"}, obj{"title": str(""), "description": str(""), "links": array(ref("OGCLink"), "")}),
		"OGCConformance": object("Conformance classes", nil, obj{"conformsTo": array(strf("uri", ""), "")}),
		"OGCCollection": object("A feature collection", []string{"id", "links"}, obj{
			"id": str(""), "title": str(""), "description": str(""), "itemType": enum("", "feature"),
			"crs": array(strf("uri", ""), "CRS the features can be had in"), "storageCrs": strf("uri", "CRS of the stored geometry (per-BL collections)"),
			"extent": object("", nil, obj{
				"spatial":  object("", nil, obj{"bbox": array(array(number(""), ""), "minLon, minLat, maxLon, maxLat"), "crs": strf("uri", "")}),
				"temporal": object("", nil, obj{"interval": array(array(nullablef("string", "date-time", ""), ""), "snapshot dates"), "trs": strf("uri", "")})}),
			"links": array(ref("OGCLink"), "")}),
		"OGCCollections": object("Feature collections", []string{"links", "collections"}, obj{
			"links": array(ref("OGCLink"), ""), "collections": array(ref("OGCCollection"), ""), "crs": array(strf("uri", ""), "")}),
		"OGCFeature": object("One surface as a GeoJSON Feature", []string{"type", "id", "geometry", "properties"}, obj{
			"type": enum("", "Feature"), "id": str("<bl>.<surface_id>"), "geometry": geoJSON("MultiPolygon", "surface geometry, in the requested crs"),
			"properties": obj{"type": "object", "description": "buildings: " + strings.Join(buildings.OGCSurface.Names(), ", ") +
				"; roofs: " + strings.Join(buildings.OGCRoof.Names(), ", ")},
			"links": array(ref("OGCLink"), "")}),
		"OGCFeatureCollection": object("A page of features", []string{"type", "features", "numberReturned", "links"}, obj{
			"type": enum("", "FeatureCollection"), "features": array(ref("OGCFeature"), ""),
			"numberReturned": integer(""), "numberMatched": integer("only without bbox, datetime and filters"),
			"timeStamp": strf("date-time", ""), "links": array(ref("OGCLink"), "self, alternate, next, collection")}),
		"ElevationBatchRequest": obj{"type": "object", "description": "Either `locations` ([lat, lon] pairs, latitude first) or a " +
			"GeoJSON MultiPoint or LineString geometry (`type`, `coordinates` as [lon, lat] or [lon, lat, z])",
			"properties": obj{
				"locations": obj{"type": "array", "description": "[lat, lon] pairs in WGS84 degrees", "minItems": 1,
					"items": obj{"type": "array", "items": obj{"type": "number"}, "minItems": 2, "maxItems": 2}},
				"type":        enum("GeoJSON geometry type", "MultiPoint", "LineString"),
				"coordinates": obj{"type": "array", "description": "GeoJSON positions", "items": obj{"type": "array", "items": obj{"type": "number"}, "minItems": 2, "maxItems": 3}},
				"bbox":        obj{"type": "array", "items": obj{"type": "number"}, "description": "GeoJSON bbox, ignored"},
				"crs":         obj{"type": "object", "description": "2008 GeoJSON crs member; only CRS84 / EPSG:4326 are accepted"}},
			"additionalProperties": false,
			"example":              obj{"locations": [][]float64{{50.115, 8.67}, {50.116, 8.672}}}},
		"ElevationBatchResult": object("Batch elevation result, one entry per point in input order", nil, obj{
			"interpolation": enum("", terrain.Interpolations...), "datum": enum("", "DHHN2016"),
			"count": integer("points asked for"), "valid": integer("points with an elevation"),
			"results": array(object("", nil, obj{
				"lat": number("as sent"), "lon": number("as sent"),
				"elevation_m": nullable("number", "metres above NHN (DHHN2016), 3 decimals; null without a value"),
				"source_bl":   str("BL of the answering dataset; empty outside coverage"),
				"tile_id":     nullable("string", "null without a value"),
				"reason":      obj{"type": []string{"string", "null"}, "enum": []any{"outside", "nodata", "unavailable", "damaged", nil}, "description": "why there is no value; null with a value"}}), ""),
			"svc": object("", nil, obj{"attribution": array(ref("AttributionEntry"), "one entry per BL present")})}),
		"OpenTopoDataRequest": obj{"type": "object", "description": "opentopodata POST parameters (JSON or form fields)",
			"properties": obj{
				"locations":     obj{"description": "`lat,lon|lat,lon` or [[lat, lon], ...]", "oneOf": []any{obj{"type": "string"}, obj{"type": "array", "items": obj{"type": "array", "items": obj{"type": "number"}, "minItems": 2, "maxItems": 2}}}},
				"interpolation": enum("", terrain.Interpolations...),
				"nodata_value":  obj{"type": []string{"string", "integer", "null"}, "description": "null or an integer"}},
			"example": obj{"locations": "50.115,8.67|50.116,8.672", "interpolation": "bilinear"}},
		"OpenTopoDataResult": object("opentopodata's answer", nil, obj{
			"results": array(object("", nil, obj{
				"dataset":   str(""),
				"elevation": nullable("number", "metres above NHN (DHHN2016), 3 decimals; null (or nodata_value) without a value"),
				"location":  object("", nil, obj{"lat": number(""), "lng": number("")})}), "input order"),
			"status": enum("", "OK")}),
		"ElevationResult": object("Elevation result (SPEC 2.11)", nil, obj{
			"elevation_m": number("metres above NHN (DHHN2016), 3 decimals"), "datum": enum("", "DHHN2016"),
			"source_bl": str(""), "snapshot": strf("date", ""), "license": str(""), "attribution": str(""), "tile_id": str("")}),
		"ProfileResult": object("Terrain profile, a GeoJSON FeatureCollection (SPEC 2.12)", []string{"type", "properties", "features"}, obj{
			"type": enum("", "FeatureCollection"),
			"properties": object("", nil, obj{"datum": enum("", "DHHN2016"), "coords_count": integer("vertices of the polyline"),
				"samples": integer("features returned"), "total_length_m": number("polyline length in UTM32N metres, 2 decimals"),
				"partial":         boolean("some sample is outside coverage, NoData or on a failed tile"),
				"failed_tile_ids": array(str(""), "tiles whose read failed")}),
			"features": array(object("", nil, obj{"type": enum("", "Feature"), "geometry": geoJSON("Point", "sample position"),
				"properties": object("", nil, obj{"elevation_m": nullable("number", "DHHN2016, 3 decimals; null without a value"),
					"distance_m": number("cumulative from the first point, UTM32N metres"),
					"source_bl":  str("BL of the covering dataset; empty outside coverage"),
					"tile_id":    nullable("string", "null without a value")})}), ""),
			"svc": object("", nil, obj{"attribution": array(ref("AttributionEntry"), "one entry per BL present")})}),
		"CanopyResult": object("Canopy result (SPEC 2.13)", nil, obj{
			"canopy_height_m": number("height above ground"), "crown_base_m": nullable("number", "null when trunk=false or no trunk model"),
			"height_reference": str(""), "transmissivity": object("", nil, obj{
				"leaf_on": array(number(""), "2 numbers, percent"), "leaf_off": array(number(""), "2 numbers, percent")}),
			"source_bl": str(""), "snapshot": strf("date", ""), "crs": str(""), "tile_id": str(""), "license": str(""),
			"attribution": nullable("string", "")}),
		"TrialKey": object("Trial key mint response (SPEC 2.14)", nil, obj{
			"key": str("plaintext, returned exactly once"), "tier": enum("", "trial"), "expires_at": strf("date-time", "7 days after mint"),
			"limits": limits, "scopes": array(str(""), "[\"read\"]"), "docs_url": strf("uri", "")}),
		"TrialKeyStatus": object("Trial key status record (SPEC 2.14)", nil, obj{
			"key_prefix": str(""), "tier": str(""), "status": enum("", "active", "expired", "revoked"), "created_at": strf("date-time", ""), "expires_at": strf("date-time", ""),
			"seconds_remaining": integer("0 unless active"), "requests_today": integer("UTC day"), "requests_total": integer(""), "limits": limits}),
		"ApiKeyCreateRequest": object("", []string{"customer_name", "tier"}, obj{
			"customer_name": str(""), "tier": enum("", "trial", "pro", "business", "internal"), "contact_email": nullable("string", ""),
			"monthly_call_quota": nullable("integer", "soft monthly quota, at least 1; null: unlimited"), "notes": nullable("string", ""),
			"payment_customer_id": nullable("string", "payment-provider customer reference")}),
		"ApiKeyCreatedResponse": object("", []string{"api_key_id", "plaintext_key", "key_prefix", "customer_name", "tier", "created_at"}, obj{
			"api_key_id": str(""), "plaintext_key": str("shown once only"), "key_prefix": str(""), "customer_name": str(""), "tier": str(""),
			"created_at": strf("date-time", ""), "contact_email": nullable("string", ""), "monthly_call_quota": nullable("integer", ""),
			"notes": nullable("string", ""), "payment_customer_id": nullable("string", "")}),
		"ApiKeyListItem": object("", []string{"api_key_id", "key_prefix", "customer_name", "tier", "created_at", "updated_at"}, obj{
			"api_key_id": str(""), "key_prefix": str(""), "customer_name": str(""), "tier": str(""), "created_at": strf("date-time", ""),
			"updated_at": strf("date-time", ""), "contact_email": nullable("string", ""), "last_used_at": nullablef("string", "date-time", ""),
			"monthly_call_quota": nullable("integer", ""), "notes": nullable("string", ""), "revoked_at": nullablef("string", "date-time", ""),
			"payment_customer_id": nullable("string", "")}),
		"ApiKeyListResponse": object("", nil, obj{"api_keys": array(ref("ApiKeyListItem"), ""), "count": integer("")}),
		"AuditEvent": object("One key change", []string{"seq", "at", "action", "api_key_id", "actor", "detail"}, obj{
			"seq": integer("Position in the trail; grows with every event"), "at": strf("date-time", "When the change took effect"),
			"action": enum("", state.AuditKeyCreate, state.AuditKeyMint, state.AuditKeyRevoke), "api_key_id": str(""),
			"actor": str("Who asked: admin-api request <id>, cli, or client:<hex>"), "detail": str("Customer, tier and campaign of the key")}),
		"AuditTrail": object("One page of the audit trail", []string{"events", "count"}, obj{
			"events": array(ref("AuditEvent"), ""), "count": integer(""),
			"next_after": integer("Pass as `after` for the next page; absent on the last page")}),
		"QuantizedMeshLayer": object("TileJSON 2.1 of the quantized-mesh terrain (the fields CesiumTerrainProvider reads)",
			[]string{"tilejson", "format", "version", "scheme", "tiles", "projection", "available", "minzoom", "maxzoom"}, obj{
				"tilejson": str("2.1.0"), "name": str(""), "description": str(""), "version": str(""),
				"format": enum("", "quantized-mesh-1.0"), "scheme": enum("", "tms"), "projection": enum("", "EPSG:4326"),
				"tiles": array(str("URL template relative to layer.json"), ""), "bounds": array(number(""), "west, south, east, north"),
				"minzoom": integer(""), "maxzoom": integer(""), "extensions": array(str(""), "supported extensions"),
				"attribution": str("every published DGM's attribution"),
				"available":   array(array(object("", nil, obj{"startX": integer(""), "startY": integer(""), "endX": integer(""), "endY": integer("")}), ""), "per level")}),
		"Readiness": object("Readiness report", []string{"status", "published_packs", "problems"}, obj{
			"status": enum("", "ready", "degraded", "not-ready"), "published_packs": integer("packs being served"),
			"problems": array(str(""), "what is degraded or missing, one line each")}),
		"ApiKeyRevokedResponse": object("", nil, obj{"api_key_id": str(""), "customer_name": str(""), "key_prefix": str(""), "tier": str(""), "revoked_at": strf("date-time", "")}),
		"HealthProbe": object("One probe of the health report", []string{"name", "status", "latency_ms"}, obj{
			"name": str("what was probed"), "status": enum("", "ok", "fail"), "detail": str("failure reason"), "latency_ms": number("")}),
		"AdminHealthResponse": object("SPEC 2.16", nil, obj{
			"status": enum("ok when every probe passes", "ok", "degraded"), "probes": array(ref("HealthProbe"), ""),
			"lod2_db_bl": integer("BL with a published LoD2 database"), "lod2_mesh_bl": integer("BL with a published building tileset"),
			"terrain_tiff_bl": integer("BL with published terrain COGs"), "terrain_mesh_bl": integer("BL with a published terrain mesh"),
			"checked_at": strf("date-time", "")}),
		"UsagePeriod": object("A calendar-month bucket (UTC)", nil, obj{
			"month": str("YYYY-MM"), "start": strf("date", "first day"), "end": strf("date", "last day"),
			"call_count": integer(""), "error_count": integer("responses with status >= 400")}),
		"ApiKeyBlDistribution": object("", nil, obj{"bundesland_code": str(""), "call_count": integer("")}),
		"ApiKeyTopEndpoint":    object("", nil, obj{"endpoint_pattern": str(""), "call_count": integer(""), "error_count": integer("")}),
		"AnonymousUsageReport": object("Keyless traffic (SPEC 2.16)", []string{"window_months", "total_calls", "current_month_calls", "unique_ips", "periods"}, obj{
			"window_months": integer(""), "total_calls": integer(""), "current_month_calls": integer(""),
			"unique_ips": integer("rough distinct-caller proxy"), "periods": array(ref("UsagePeriod"), ""),
			"bl_distribution": array(ref("ApiKeyBlDistribution"), "default []"), "top_endpoints": array(ref("ApiKeyTopEndpoint"), "default []")}),
		"DatasetReloadResponse": object("Result of a rescan of the data directory", nil, obj{
			"published": array(object("", nil, obj{"product": str(""), "bundesland_code": str(""), "snapshot": strf("date", "")}), ""),
			"count":     integer("published packs"), "skipped": array(object("", nil, obj{"path": str("relative to the data directory"), "reason": str("")}), ""),
			"scanned_at": strf("date-time", "")}),
	}
	headers := obj{
		"Cache-Control":       obj{"schema": obj{"type": "string"}, "description": "public, max-age=300"},
		"Retry-After":         obj{"schema": obj{"type": "integer"}, "description": "seconds to wait before retrying: until the limit resets (429), or until the server expects to answer (503)"},
		"X-Keyless-Remaining": obj{"schema": obj{"type": "integer"}, "description": "remaining keyless requests today for this IP"},
		"Content-Crs":         obj{"schema": obj{"type": "string"}, "description": "CRS of the coordinates, as <URI> (OGC API Features Part 2)"},
	}
	for k, v := range dataapi.GLBHeaderDocs() {
		headers[k] = v
	}
	for k, v := range accessSchemas() {
		schemas[k] = v
	}
	return obj{"schemas": schemas, "headers": headers, "securitySchemes": obj{
		"apiKey":     obj{"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "Optional on data endpoints; lifts the keyless limit."},
		"adminToken": obj{"type": "apiKey", "in": "header", "name": "X-Svc-Admin-Token", "description": "The server's admin token (or Authorization: Bearer)."},
	}}
}

// accessSchemas are the component schemas of the key and usage routes that
// schemas.go does not define.
func accessSchemas() obj {
	usage := obj{"window_months": integer("calendar months in the report"), "total_calls": integer("calls in the window"),
		"current_month_calls": integer("calls in the running month"), "periods": array(ref("UsagePeriod"), "oldest first"),
		"bl_distribution": array(ref("ApiKeyBlDistribution"), "calls per BL that answered, descending"),
		"top_endpoints":   array(ref("ApiKeyTopEndpoint"), "the 10 busiest route patterns, descending")}
	props := obj{"api_key_id": str(""), "key_prefix": str(""), "customer_name": str(""), "tier": str(""),
		"monthly_call_quota": nullable("integer", "monthly quota; 35000 for trial keys; null when unlimited")}
	for k, v := range usage {
		props[k] = v
	}
	return obj{
		"TrialKeyRequest": obj{"type": "object", "description": "Optional mint body (SPEC 4.7); unknown members are ignored",
			"properties": obj{"source": obj{"type": "string", "pattern": "^[a-z0-9_-]{1,64}$", "description": "campaign or channel label"},
				"email": strf("email", "contact address; optional, unverified, never written to")}},
		"ApiKeyUsageReport": object("Usage of one API key", nil, props),
	}
}
