package server

import (
	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/contour"
	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/dataapi"
	"github.com/svc-geodata/svc/server/ogcapi"
	"github.com/svc-geodata/svc/server/terrainapi"
	"github.com/svc-geodata/svc/tilecache"
)

// ogcTileSets are the tilesets of the OGC API - Tiles routes, each served
// by the handler of its /v1 tile route, or for the dataset's vector
// tileset by those of the building and contour routes together
// (docs/ogc-tiles.md).
func ogcTileSets(de dataapi.Env, te terrainapi.Env, cache *tilecache.Cache) []ogcapi.TileSet {
	buildingLayers := []ogcapi.TileLayer{
		{ID: buildings.LayerBuildings, Title: "One polygon per building footprint", MinZoom: buildings.TileMinZoom, MaxZoom: buildings.TileMaxZoom,
			Properties: map[string]string{"building_id": "integer", "gmlid": "string", "bl": "string", "height_m": "number", "ground_m": "number", "roof_max_m": "number"}},
		{ID: buildings.LayerRoofs, Title: "One polygon per roof facet", MinZoom: buildings.RoofMinZoom, MaxZoom: buildings.TileMaxZoom,
			Properties: map[string]string{"building_id": "integer", "surface_id": "integer", "bl": "string", "tilt_deg": "number", "azimuth_deg": "number", "area_m2": "number",
				"annual_kwh_m2": "number", "share_of_best": "number", "class": "string"}}, // the solar fields where a solar pack is published
	}
	contourLayer := ogcapi.TileLayer{ID: contour.Layer, Title: "One line per contour of the DGM1: interval 50 m at zoom 10-11, 10 m at 12-13, 5 m at 14-15, 1 m from 16",
		MinZoom: contour.MinZoom, MaxZoom: contour.MaxZoom, Properties: map[string]string{"elevation_m": "integer", "index": "boolean"}}
	serveBuildings, serveContours := dataapi.ServeVectorTile(de), terrainapi.ServeContourTile(te)
	return []ogcapi.TileSet{
		{Title: "LoD2 buildings", DataType: ogcapi.DataVector, Collection: "buildings", CollectionOnly: true, MediaType: "application/vnd.mapbox-vector-tile",
			Desc: "Building footprints (layer buildings) and, from zoom 16, roof facets (layer roofs) of every published BL, " +
				"the tiles of /v1/buildings/tiles (docs/vector-tiles.md).",
			MinZoom: buildings.TileMinZoom, MaxZoom: buildings.TileMaxZoom, Products: []pack.Product{pack.LoD2}, V1: "/v1/buildings/tiles",
			Layers: buildingLayers, Serve: serveBuildings},
		{Title: "LoD2 buildings and DGM1 contours", DataType: ogcapi.DataVector, MediaType: "application/vnd.mapbox-vector-tile",
			Desc: "The dataset's vector tiles: from zoom 12 the building footprints (layer buildings) and from zoom 16 the roof facets " +
				"(layer roofs) of /v1/buildings/tiles, from zoom 10 the contour lines (layer contours) of /v1/terrain/contours, " +
				"in one tile: each layer as its /v1 route encodes it (docs/ogc-tiles.md).",
			MinZoom: contour.MinZoom, MaxZoom: max(buildings.TileMaxZoom, contour.MaxZoom), Products: []pack.Product{pack.LoD2, pack.Terrain},
			V1:     "/v1/buildings/tiles and /v1/terrain/contours",
			Layers: append(append([]ogcapi.TileLayer{}, buildingLayers...), contourLayer),
			Serve: composeMVT(cache, mvtPart{buildings.TileMinZoom, buildings.TileMaxZoom, serveBuildings},
				mvtPart{contour.MinZoom, contour.MaxZoom, serveContours})},
		{Title: "DGM1 hillshade", DataType: ogcapi.DataMap, MediaType: "image/png",
			Desc: "Grey multidirectional hillshade of the DGM1 of every published BL, 256 px, the tiles of /v1/terrain/hillshade " +
				"(style shade); transparent outside the data.",
			MinZoom: hillshade.MinZoom, MaxZoom: hillshade.MaxZoom, Products: []pack.Product{pack.Terrain}, V1: "/v1/terrain/hillshade",
			Serve: terrainapi.ServeHillshadeTile(te)},
	}
}
