package buildings

import "github.com/svc-geodata/svc/maplayer"

// VectorLayers are the layers inside a building vector tile
// (docs/vector-tiles.md), as the route's TileJSON and an archive's
// metadata list them.
var VectorLayers = []maplayer.VectorLayer{
	{ID: LayerBuildings, MinZoom: TileMinZoom, MaxZoom: TileMaxZoom,
		Description: "One polygon per building footprint (ground surfaces, else the roof projected)",
		Fields: map[string]string{"building_id": "Number", "gmlid": "String", "bl": "String",
			"height_m": "Number", "ground_m": "Number", "roof_max_m": "Number", "function": "String", "function_label": "String",
			"roof_type": "String", "roof_type_label": "String", "storeys": "Number"}},
	{ID: LayerRoofs, MinZoom: RoofMinZoom, MaxZoom: TileMaxZoom,
		Description: "One polygon per roof facet; annual_kwh_m2, share_of_best and class where a solar pack of the BL is published",
		Fields: map[string]string{"building_id": "Number", "surface_id": "Number", "bl": "String",
			"tilt_deg": "Number", "azimuth_deg": "Number", "area_m2": "Number",
			"annual_kwh_m2": "Number", "share_of_best": "Number", "class": "String"}},
}
