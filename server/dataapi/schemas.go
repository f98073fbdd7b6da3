package dataapi

import (
	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/server/apidoc"
)

// Schemas are the component schemas of the OpenAPI document the data API's
// discovery, building and tileset routes answer with, by name.
func Schemas() apidoc.Obj {
	return apidoc.Obj{
		"LoD2Dataset": apidoc.Object("LoD2 dataset (SPEC 2.1)", nil, apidoc.Obj{
			"id": apidoc.Str("BL code"), "bundesland_code": apidoc.Str("BL code"), "name": apidoc.Str("display string with attribution text"),
			"license_id": apidoc.Str("e.g. dl-de-zero-2.0, cc-by-4.0, dl-de-by-2.0"), "source_url": apidoc.Str("source download location"),
			"snapshot_date": apidoc.StrF("date", "date of the source download"), "building_count": apidoc.Int(""),
			"validation_pass_pct": apidoc.Nullable("number", "share of buildings passing geometric validation; null when no validation ran"),
			"last_sync":           apidoc.StrF("date-time", "when the import finished")}),
		"VectorTileJSON": apidoc.Object("TileJSON 3.0.0 of a vector tile layer set", []string{"tilejson", "tiles", "vector_layers"}, apidoc.Obj{
			"tilejson": apidoc.Str("3.0.0"), "name": apidoc.Str(""), "scheme": apidoc.Enum("", "xyz"), "format": apidoc.Enum("", "pbf"),
			"tiles": apidoc.Array(apidoc.Str(""), "URL templates"), "minzoom": apidoc.Int(""), "maxzoom": apidoc.Int(""),
			"bounds": apidoc.Array(apidoc.Num(""), "west, south, east, north (WGS84)"), "attribution": apidoc.Str(""),
			"vector_layers": apidoc.Array(apidoc.Object("", []string{"id", "fields"}, apidoc.Obj{
				"id": apidoc.Str("layer name"), "description": apidoc.Str(""), "minzoom": apidoc.Int(""), "maxzoom": apidoc.Int(""),
				"fields": apidoc.Obj{"type": "object", "description": "field name to type (Number, String, Boolean)",
					"additionalProperties": apidoc.Enum("", "Number", "String", "Boolean")}}), "")}),
		"SolarTileJSON": apidoc.Object("TileJSON 3.0.0 of the solar potential map tiles with the extension member `solar_legend`", []string{"tilejson", "tiles", "legend", "solar_legend"}, apidoc.Obj{
			"tilejson": apidoc.Str("3.0.0"), "name": apidoc.Str(""), "scheme": apidoc.Enum("", "xyz"), "format": apidoc.Enum("", "png"),
			"tiles": apidoc.Array(apidoc.Str(""), "URL templates"), "minzoom": apidoc.Int(""), "maxzoom": apidoc.Int(""), "tileSize": apidoc.Int("pixels"),
			"bounds": apidoc.Array(apidoc.Num(""), "west, south, east, north (WGS84)"), "attribution": apidoc.Str("the LoD2 data, the model and the climate input"),
			"legend": apidoc.Str("TileJSON 3.0.0 section 3.11: the ramp and the classes as literal text"),
			"solar_legend": apidoc.Object("The colour ramp for a program (extension member: TileJSON's `legend` is a string)", []string{"property", "unit", "stops", "classes"}, apidoc.Obj{
				"property": apidoc.Str("the roof facets' value the colour shows: annual_kwh_m2"), "unit": apidoc.Str("kWh/m²"),
				"description": apidoc.Str(""),
				"stops": apidoc.Array(apidoc.Object("", []string{"value", "color"}, apidoc.Obj{
					"value": apidoc.Num("annual irradiation on the facet's plane, kWh/m²"), "color": apidoc.Str("#rrggbb"),
					"class": apidoc.Str("the class of the value when every published store has the same best plane")}), "ascending"),
				"classes": apidoc.Array(apidoc.Object("", []string{"class", "min_share_of_best"}, apidoc.Obj{
					"class":             apidoc.Enum("", "very_good", "good", "fair", "poor"),
					"min_share_of_best": apidoc.Num("the class starts at this share of the best plane's annual irradiation"),
					"min_kwh_m2":        apidoc.Num("where the class starts, kWh/m² (when every published store has the same best plane)"),
					"color":             apidoc.Str("the ramp's colour at min_kwh_m2")}), "best first"),
				"best_plane": apidoc.Object("the best plane at the climate's site (when every published store has the same)", nil, apidoc.Obj{
					"tilt_deg": apidoc.Num(""), "azimuth_deg": apidoc.Num(""), "annual_kwh_m2": apidoc.Num("")}),
				"climate": apidoc.Array(apidoc.Object("model and climate input of the stores of some BLs", nil, apidoc.Obj{
					"bl": apidoc.Array(apidoc.Str(""), "BL codes"), "model": apidoc.Str(""), "source": apidoc.Str(""), "file": apidoc.Str(""),
					"first_year": apidoc.Int(""), "last_year": apidoc.Int("")}), "")})}),
		"LoD2DatasetList": apidoc.ListOf("LoD2Dataset", "datasets", true),
		"AttributionListEntry": apidoc.Object("Licence and attribution of one published product of one BL", nil, apidoc.Obj{
			"bundesland_code": apidoc.Str(""), "product": apidoc.Enum("`height-model`: the height model whose undulation the 3D content's heights carry (bundesland_code empty), listed when its licence asks for credit; "+
				"`solar`: a BL's precomputed roof irradiation (svc build solar); `solar-climate`: the built-in default climate of the solar route (bundesland_code empty), listed while the route uses it",
				"lod2", "terrain", "terrain-mesh", "osm-cover", "veg", "buildings", "solar", HeightModelProduct, SolarClimateProduct),
			"snapshot": apidoc.StrF("date", ""), "source": apidoc.Str("authority"), "license": apidoc.Str("licence label"), "license_id": apidoc.Str(""),
			"url": apidoc.StrF("uri", "licence URL"), "attribution": apidoc.Str("display string"),
			"must_display": apidoc.Bool("true when the licence requires showing the source visibly (all but DL-DE/Zero 2.0)")}),
		"AttributionList": apidoc.Object("", nil, apidoc.Obj{"attribution": apidoc.Array(apidoc.Ref("AttributionListEntry"), ""), "count": apidoc.Int("")}),
		"TerrainDataset": apidoc.Object("Terrain dataset (SPEC 2.7)", nil, apidoc.Obj{
			"bl": apidoc.Str("BL code"), "license": apidoc.Str("licence id"), "snapshot": apidoc.StrF("date", ""), "format": apidoc.Str("e.g. GeoTIFF (COG)"),
			"source": apidoc.Enum("how the tiles are held", "convert+storage-box", "mirror", "pass-through"), "tile_count": apidoc.Int(""),
			"crs": apidoc.Enum("", "EPSG:25832", "EPSG:25833"), "vertical_datum": apidoc.Str("DHHN2016"), "attribution": apidoc.Str(""),
			"coverage_pct": apidoc.Nullable("number", "always null at present")}),
		"TerrainDatasetList": apidoc.ListOf("TerrainDataset", "datasets", true),
		"TerrainMeshDataset": apidoc.Object("Terrain mesh dataset (SPEC 2.8); b3dm with Draco-compressed glTF", nil, apidoc.Obj{
			"bundesland_code": apidoc.Str(""), "snapshot_date": apidoc.StrF("date", ""), "tileset_url": apidoc.StrF("uri", "{tiles_url}/terrain-mesh/<bl>/<snapshot>/tileset.json"),
			"tile_count": apidoc.Int(""), "rtin_tolerance_m": apidoc.Num("maximum error of the RTIN approximation"),
			"tiling_scheme": apidoc.Enum("", "single-level-quadtree", "multi-level-quadtree"), "license": apidoc.Str(""), "attribution": apidoc.Str(""),
			"built_at": apidoc.StrF("date-time", ""), "height_model": apidoc.Nullable("string", heightModelDoc)}),
		"TerrainMeshDatasetList": apidoc.ListOf("TerrainMeshDataset", "datasets", false),
		"OsmCoverTheme": apidoc.Object("", nil, apidoc.Obj{"name": apidoc.Enum("", "surface", "transport", "canopy", "sea"),
			"tileset_url": apidoc.StrF("uri", ""), "tile_count": apidoc.Int("")}),
		"OsmCoverDataset": apidoc.Object("OSM cover dataset (SPEC 2.9)", nil, apidoc.Obj{
			"bundesland_code": apidoc.Str(""), "snapshot_date": apidoc.StrF("date", ""), "themes": apidoc.Array(apidoc.Ref("OsmCoverTheme"), "3 themes inland, 4 on the coast"),
			"bbox": apidoc.BBox4(), "license": apidoc.Str("odbl-1.0"), "attribution": apidoc.Str(""), "built_at": apidoc.StrF("date-time", ""), "height_model": apidoc.Nullable("string", heightModelDoc)}),
		"OsmCoverDatasetList": apidoc.ListOf("OsmCoverDataset", "datasets", false),
		"VegetationTheme": apidoc.Object("", nil, apidoc.Obj{"name": apidoc.Enum("", "cdsm", "tdsm", "trees", "plantcover"),
			"kind": apidoc.Enum("", "raster_cog", "3dtiles"), "url": apidoc.StrF("uri", "COG directory base or tileset.json")}),
		"VegetationDataset": apidoc.Object("Vegetation dataset (SPEC 2.10). Clients must check `snapshot` before consuming plantcover colours.", nil, apidoc.Obj{
			"bundesland_code": apidoc.Str(""), "snapshot": apidoc.StrF("date", ""), "crs": apidoc.Str(""), "tile_size_m": apidoc.Num("COG sampling grid tile size"),
			"license": apidoc.Str(""), "attribution": apidoc.Str("display string; every dataset has one (DL-DE/Zero sources too, though they do not require it)"),
			"themes":       apidoc.Array(apidoc.Ref("VegetationTheme"), ""),
			"height_model": apidoc.Nullable("string", heightModelDoc)}),
		"VegetationDatasetList": apidoc.ListOf("VegetationDataset", "datasets", false),
		"Tileset": apidoc.Object("Building 3D Tiles tileset (SPEC 2.2)", nil, apidoc.Obj{
			"tileset_id": apidoc.StrF("uuid", "new id per snapshot"), "region_code": apidoc.Str("BL code"), "bundesland_code": apidoc.Str("BL code"),
			"snapshot_date": apidoc.StrF("date", ""), "s3_key": apidoc.Str("object key of tileset.json below {tiles_url}"),
			"tileset_url": apidoc.StrF("uri", "loadable by 3D Tiles viewers"), "tile_count": apidoc.Int(""), "total_bytes": apidoc.Int(""),
			"building_count": apidoc.Int(""), "generated_at": apidoc.StrF("date-time", ""), "bounding_volume": apidoc.GeoJSON("Polygon", ""),
			"height_model": apidoc.Nullable("string", heightModelDoc)}),
		"TilesetList": apidoc.Object("Tilesets meeting a bbox (SPEC 4.3)", nil, apidoc.Obj{
			"tilesets": apidoc.Array(apidoc.Ref("Tileset"), ""), "count": apidoc.Int(""), "bbox": apidoc.BBox4(),
			"svc": apidoc.Object("", nil, apidoc.Obj{"attribution": apidoc.Array(apidoc.Ref("AttributionEntry"), "one entry per BL listed; tiles_count is the tileset's tile count")})}),
		"CodeLabel": apidoc.Object("A code with its AdV code list labels", []string{"code"}, apidoc.Obj{
			"code": apidoc.Str("the code as written"), "codespace": apidoc.Str("codeSpace attribute, absent when the file gives none"),
			"label_de": apidoc.Str("German label of the AdV list; absent for a code outside it"), "label_en": apidoc.Str("English label; absent with label_de")}),
		"PostalAddress": apidoc.Object("A postal address as the file writes it (xAL); \"\" for an element it lacks", nil, apidoc.Obj{
			"street": apidoc.Str("ThoroughfareName"), "house_number": apidoc.Str("ThoroughfareNumber"), "postal_code": apidoc.Str("PostalCodeNumber"),
			"locality": apidoc.Str("LocalityName"), "country": apidoc.Str("CountryName")}),
		"OwnerAttributes": apidoc.Object("Attributes of a building or building part (docs/buildings-attributes.md)",
			[]string{"gmlid", "function", "roof_type", "measured_height_m", "storeys", "creation_date", "municipality_key", "municipality_name",
				"source_roof", "source_ground", "source_position", "footprint_date", "addresses", "generic"}, apidoc.Obj{
				"gmlid": apidoc.Str(""), "parent_gmlid": apidoc.Str("parts only: the building or part holding it"),
				"function":          apidoc.Array(apidoc.Ref("CodeLabel"), "bldg:function values"),
				"roof_type":         apidoc.Obj{"oneOf": []apidoc.Obj{apidoc.Ref("CodeLabel"), {"type": "null"}}, "description": "bldg:roofType"},
				"measured_height_m": apidoc.Nullable("number", "bldg:measuredHeight (m)"), "storeys": apidoc.Nullable("integer", "bldg:storeysAboveGround"),
				"creation_date":    apidoc.Nullable("string", "core:creationDate as written"),
				"municipality_key": apidoc.Nullable("string", "generic Gemeindeschluessel (AGS)"), "municipality_name": apidoc.Nullable("string", "generic Gemeindename"),
				"source_roof": apidoc.Nullable("string", "generic DatenquelleDachhoehe"), "source_ground": apidoc.Nullable("string", "generic DatenquelleBodenhoehe"),
				"source_position": apidoc.Nullable("string", "generic DatenquelleLage"), "footprint_date": apidoc.Nullable("string", "generic Grundrissaktualitaet"),
				"addresses": apidoc.Array(apidoc.Ref("PostalAddress"), "bldg:address, in file order"),
				"generic": apidoc.Array(apidoc.Object("", []string{"name", "type", "value"}, apidoc.Obj{"name": apidoc.Str(""),
					"type":  apidoc.Enum("", "stringAttribute", "intAttribute", "doubleAttribute", "dateAttribute", "uriAttribute", "measureAttribute"),
					"value": apidoc.Str("as written"), "uom": apidoc.Str("measureAttribute only")}), "every generic attribute, in file order"),
				"invalid": apidoc.Array(apidoc.Str(""), "values that could not be read; absent when none")}),
		"BuildingAttributes": apidoc.Object("All attributes of one building, its parts and its derived measures", nil, apidoc.Obj{
			"gmlid": apidoc.Str("the building's gml:id (also when a part's was asked for)"), "bl": apidoc.Str("BL code"),
			"point": apidoc.GeoJSON("Point", "centre of the building's bounding box"), "building": apidoc.Ref("OwnerAttributes"),
			"parts": apidoc.Array(apidoc.Ref("OwnerAttributes"), "building parts, nested ones included, in file order"),
			"measures": apidoc.Object("Derived from the geometry of the building with all its parts; null when not derivable", nil, apidoc.Obj{
				"footprint_area_m2": apidoc.Nullable("number", "horizontal area (m², UTM)"), "footprint_source": apidoc.Nullable("string", "ground, roof or none"),
				"ground_z_m": apidoc.Nullable("number", "lowest ground height (m)"), "eaves_z_m": apidoc.Nullable("number", "lowest roof height (m)"),
				"ridge_z_m": apidoc.Nullable("number", "highest roof height (m)"), "height_m": apidoc.Nullable("number", "ridge_z_m - ground_z_m"),
				"roof_area_flat_m2": apidoc.Nullable("number", "roof tilted below 10°"), "roof_area_low_m2": apidoc.Nullable("number", "10° to below 30°"),
				"roof_area_medium_m2": apidoc.Nullable("number", "30° to below 45°"), "roof_area_steep_m2": apidoc.Nullable("number", "45° and more"),
				"roof_area_m2": apidoc.Nullable("number", "all roof polygons (3D area)"), "wall_area_m2": apidoc.Nullable("number", "wall polygons (3D area)"),
				"volume_m3":     apidoc.Nullable("number", "enclosed volume; null when a shell is not closed"),
				"volume_reason": apidoc.Nullable("string", "why volume_m3 is null"), "height_system": apidoc.Enum("heights are normal heights", "DHHN2016")})}),
		"AddressSearchResponse": apidoc.Object("Buildings matching an address, best first", nil, apidoc.Obj{
			"query": apidoc.Object("how q was read", nil, apidoc.Obj{"street": apidoc.Str(""), "house_number": apidoc.Str("\"\" when none"),
				"postal_code": apidoc.Str("\"\" when none"), "locality": apidoc.Str("\"\" when none")}),
			"count": apidoc.Int("matches answered"),
			"matches": apidoc.Array(apidoc.Object("", nil, apidoc.Obj{"gmlid": apidoc.Str("the building's gml:id"), "bl": apidoc.Str("BL code"),
				"address": apidoc.Ref("PostalAddress"), "point": apidoc.GeoJSON("Point", "centre of the building's bounding box"),
				"score": apidoc.Num("1 a perfect match; street likeness 0.6, house number 0.3 (0.2 with a letter suffix), postcode or city 0.1")}), "")}),
		"BuildingSurfaceProperties": apidoc.Object("Exactly these six properties (SPEC 2.3)", nil, propertiesSchema(buildings.SearchSurface)),
		"BuildingSurfaceFeature": apidoc.Object("One surface of a building", nil, apidoc.Obj{
			"type": apidoc.Enum("", "Feature"), "id": apidoc.Str("the gmlid"), "geometry": apidoc.GeoJSON("MultiPolygon", "with Z"),
			"properties": apidoc.Ref("BuildingSurfaceProperties")}),
		"BuildingDetail": apidoc.Object("Building detail (SPEC 2.4)", nil, apidoc.Obj{
			"gmlid": apidoc.Str("echo of the request"), "bundesland_code": apidoc.Str(""), "building_id": apidoc.Int(""), "lod": apidoc.Enum("", "LoD2"),
			"geometry": apidoc.GeoJSON("MultiPolygon", "all surfaces of the building, with Z")}),
		"RoofSurfaceFeature": apidoc.Object("A planar roof facet (SPEC 2.5)", nil, apidoc.Obj{
			"type": apidoc.Enum("", "Feature"), "geometry": apidoc.GeoJSON("Polygon", "with Z"),
			"properties": apidoc.Object("", nil, apidoc.Obj{
				"tilt_deg":    apidoc.Num("inclination against the horizontal, 0 to 90"),
				"azimuth_deg": apidoc.Nullable("number", "compass direction of the outward normal (0 N, 90 E); null when tilt < 5"),
				"area_m2":     apidoc.Num("projected (horizontal) area in m2, computed in UTM")})}),
		"BuildingSearchResponse": apidoc.Object("GeoJSON FeatureCollection of building surfaces (SPEC 4.4)", nil, apidoc.Obj{
			"type": apidoc.Enum("", "FeatureCollection"), "bbox": apidoc.BBox4(), "count": apidoc.Int("features on this page"), "limit": apidoc.Int("the page size asked for"),
			"features": apidoc.Array(apidoc.Ref("BuildingSurfaceFeature"), ""),
			"svc": apidoc.Object("", []string{"attribution", "next"}, apidoc.Obj{"attribution": apidoc.Array(apidoc.Ref("AttributionEntry"), "one entry per BL present"),
				"next":     apidoc.Str("cursor of the next page; empty when there is none"),
				"warnings": apidoc.Array(apidoc.Str(""), "present only when a state was skipped because its LoD2 data is damaged; the page then holds the other states' surfaces")})}),
		"RoofResponse": apidoc.Object("Roof facets of one building (SPEC 4.4)", nil, apidoc.Obj{
			"type": apidoc.Enum("", "FeatureCollection"), "count": apidoc.Int(""), "features": apidoc.Array(apidoc.Ref("RoofSurfaceFeature"), ""),
			"svc": apidoc.Object("", []string{"gmlid", "bl"}, apidoc.Obj{"gmlid": apidoc.Str("the resolved id"), "bl": apidoc.Str("source BL"),
				"attribution": apidoc.Array(apidoc.Ref("AttributionEntry"), "licence of the source BL")})}),
		"SolarResponse": apidoc.Object("Solar irradiation of a building's roof facets (docs/solar.md section 10)",
			[]string{"gmlid", "bl", "facets", "total", "model", "shading", "best_plane", "climate", "attribution", "computed"}, apidoc.Obj{
				"gmlid": apidoc.Str("the requested id"), "bl": apidoc.Str("source BL"),
				"facets": apidoc.Array(apidoc.Object("", nil, apidoc.Obj{
					"index":                  apidoc.Int("position of the facet in GET /v1/buildings/{gmlid}/roof"),
					"tilt_deg":               apidoc.Num("tilt against the horizontal"),
					"azimuth_deg":            apidoc.Nullable("number", "true compass direction of the outward normal; null when tilt < 5 (computed facing south)"),
					"area_m2":                apidoc.Num("horizontal projected area"),
					"plane_area_m2":          apidoc.Num("area on the facet's plane: area_m2 / cos tilt"),
					"annual_kwh_m2":          apidoc.Num("irradiation on the plane over the climate year with shading, kWh/m2 (unshaded when shading is not evaluated)"),
					"unshaded_annual_kwh_m2": apidoc.Num("the same on the open plane, kWh/m2"),
					"loss_kwh_m2": apidoc.Nullable("object", "annual loss by shading, kWh/m2, keys terrain, buildings, trees (in that order of evaluation; "+
						"they add up to unshaded_annual_kwh_m2 - annual_kwh_m2); null when shading is not evaluated"),
					"monthly_kwh_m2": apidoc.Array(apidoc.Num(""), "12 values, January to December (UTC months), kWh/m2"),
					"yield_kwh":      apidoc.Num("annual_kwh_m2 x plane_area_m2: irradiation received by the facet in a year, kWh (not electricity)"),
					"share_of_best":  apidoc.Num("annual_kwh_m2 (shaded) / best_plane.annual_kwh_m2"),
					"class":          apidoc.Enum("share_of_best >= 0.9 very_good, >= 0.8 good, >= 0.7 fair, else poor", "very_good", "good", "fair", "poor"),
				}), "one entry per roof facet; empty for a building without roof facets"),
				"total": apidoc.Object("", nil, apidoc.Obj{"plane_area_m2": apidoc.Num("sum of the facets' plane areas"),
					"yield_kwh": apidoc.Num("sum of the facets' yield_kwh")}),
				"model":   apidoc.Str("sun position, sky diffuse model, albedo and time step"),
				"shading": apidoc.Str("what shades the facets: \"terrain, buildings\" or \"terrain, buildings, trees\" (with a vegetation pack), or \"not evaluated: <reason>\" (no DGM pack in the building's CRS; open-plane values)"),
				"best_plane": apidoc.Object("the unshaded plane of the highest annual irradiation at the climate's site (tilt 1° and azimuth 5° steps)", nil, apidoc.Obj{
					"tilt_deg": apidoc.Num(""), "azimuth_deg": apidoc.Num(""), "annual_kwh_m2": apidoc.Num("")}),
				"climate": apidoc.Object("the climate input: the operator's file (--irradiance) or the built-in default climate of Germany",
					[]string{"format", "source", "first_year", "last_year", "latitude", "longitude", "elevation_m"}, apidoc.Obj{
						"file": apidoc.Str("base name of the operator's file; absent for the default climate"),
						"format": apidoc.Enum("cmsaf-monthly-means: the default climate, an hourly year synthesized from CM SAF monthly means",
							"pvgis-tmy-csv", "pvgis-tmy-json", "epw", "cmsaf-monthly-means"),
						"source":     apidoc.Str("where the data come from, as the file states it (default climate: CM SAF SIS monthly means, period, grid)"),
						"first_year": apidoc.Int("first year the records were taken from (0: not stated)"), "last_year": apidoc.Int("last year"),
						"latitude": apidoc.Num("site of the file, or the default climate's grid point, degrees"), "longitude": apidoc.Num("degrees"),
						"elevation_m": apidoc.Num("metres (default climate: 0, the grid point at sea level)"),
						"method":      apidoc.Str("default climate only: how its hourly year is made from the monthly means"),
						"attribution": apidoc.Str("default climate only: the credit its data ask for (CM SAF / EUMETSAT, IWU clidamonger CC BY 4.0)")}),
				"attribution": apidoc.Array(apidoc.Ref("AttributionEntry"), "licence of the source BL"),
				"computed": apidoc.Enum("precomputed: read from the BL's solar pack (svc build solar; whole Wh/m2, so a value may differ from the on-demand one "+
					"by 0.01 in its last decimal); on_demand: computed for this request", "precomputed", "on_demand")}),
	}
}

// heightModelDoc documents the height_model member of the 3D listings.
const heightModelDoc = "Height model of the 3D content (beyond the spec): vertices are at GRS80 ellipsoidal heights h = H + N, " +
	"H the DHHN2016 normal height of the source and N the undulation of this geoid/quasigeoid grid, so the content sits right on " +
	"CesiumJS and other globes. Default `GCG2016 (de_bkg_gcg2016.tif, BKG; EGM96 beyond it)`: the official German quasigeoid of BKG " +
	"(embedded; © BKG, CC BY 4.0, credited in /v1/attribution and in the tiles), with EGM96 only beyond Germany's border margin; " +
	"`EGM96 (egm96_15.gtx, PROJ; Germany subset)` when built with `--geoid egm96` (0.06 m higher on average, up to 1.8 m off GCG2016, see docs/height-model.md). The same value is in " +
	"each tileset.json under `asset.extras.height_model`. null: built before height models, heights are DHHN2016 written as ellipsoidal " +
	"(35-50 m too low on a globe): rebuild with `svc build`."

// propertiesSchema describes the properties object of a surface feature
// form from the form's own property list, so that what the writer writes
// and what the document describes cannot drift apart.
func propertiesSchema(f *buildings.Form) apidoc.Obj {
	props := apidoc.Obj{}
	for _, p := range f.Properties {
		t := any(p.Type)
		if p.Nullable {
			t = []string{p.Type, "null"}
		}
		o := apidoc.Obj{"type": t, "description": p.Desc}
		if p.Enum != nil {
			o["enum"] = p.Enum
		}
		props[p.Name] = o
	}
	return props
}
