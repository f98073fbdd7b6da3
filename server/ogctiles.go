package server

import (
	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/dataapi"
	"github.com/svc-geodata/svc/server/ogcapi"
	"github.com/svc-geodata/svc/server/terrainapi"
)

// ogcTileSets are the tilesets of the OGC API - Tiles routes, each served
// by the handler of its /v1 tile route (docs/ogc-tiles.md).
func ogcTileSets(de dataapi.Env, te terrainapi.Env) []ogcapi.TileSet {
	return []ogcapi.TileSet{
		{Title: "LoD2 buildings", DataType: ogcapi.DataVector, Collection: "buildings", MediaType: "application/vnd.mapbox-vector-tile",
			Desc: "Building footprints (layer buildings) and, from zoom 16, roof facets (layer roofs) of every published BL, " +
				"the tiles of /v1/buildings/tiles (docs/vector-tiles.md).",
			MinZoom: buildings.TileMinZoom, MaxZoom: buildings.TileMaxZoom, Product: pack.LoD2, V1: "/v1/buildings/tiles",
			Layers: []ogcapi.TileLayer{
				{ID: buildings.LayerBuildings, Title: "One polygon per building footprint", MinZoom: buildings.TileMinZoom, MaxZoom: buildings.TileMaxZoom,
					Properties: map[string]string{"building_id": "integer", "gmlid": "string", "bl": "string", "height_m": "number", "ground_m": "number", "roof_max_m": "number"}},
				{ID: buildings.LayerRoofs, Title: "One polygon per roof facet", MinZoom: buildings.RoofMinZoom, MaxZoom: buildings.TileMaxZoom,
					Properties: map[string]string{"building_id": "integer", "surface_id": "integer", "bl": "string", "tilt_deg": "number", "azimuth_deg": "number", "area_m2": "number",
						"annual_kwh_m2": "number", "share_of_best": "number", "class": "string"}}, // the solar fields where a solar pack is published
			},
			Serve: dataapi.ServeVectorTile(de)},
		{Title: "DGM1 hillshade", DataType: ogcapi.DataMap, MediaType: "image/png",
			Desc: "Grey multidirectional hillshade of the DGM1 of every published BL, 256 px, the tiles of /v1/terrain/hillshade " +
				"(style shade); transparent outside the data.",
			MinZoom: hillshade.MinZoom, MaxZoom: hillshade.MaxZoom, Product: pack.Terrain, V1: "/v1/terrain/hillshade",
			Serve: terrainapi.ServeHillshadeTile(te)},
	}
}
