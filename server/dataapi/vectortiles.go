package dataapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/tilecache"
)

// Building vector tiles (docs/vector-tiles.md): Mapbox Vector Tile 2.1 of
// the building footprints, for MapLibre's fill-extrusion. Like every tile
// route they are not counted against the keyless limit.
const (
	vectorBase = "/v1/buildings/tiles"
)

// VectorTileRoutes are the building vector tile routes.
func VectorTileRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	zooms := strconv.Itoa(buildings.TileMinZoom) + " to " + strconv.Itoa(buildings.TileMaxZoom)
	return []httpapi.Route{
		{Method: "GET", Path: vectorBase + ".json", OpID: "getBuildingTileJSON", Tag: "Buildings", Stability: "beta", Since: "0.3.0", Exempt: true,
			Summary: "TileJSON of the building vector tiles (beyond the spec)",
			Desc: "TileJSON 3.0.0 for MapLibre GL JS (`{type: 'vector', url: '<base>" + vectorBase + ".json'}`), OpenLayers, QGIS and GDAL's MVT " +
				"driver: the tile URL template, zoom " + zooms + " (clients overzoom beyond " + strconv.Itoa(buildings.TileMaxZoom) +
				"), the bounds of the published LoD2 data, their attribution and `vector_layers` with each layer's fields and types.",
			Responses: []httpapi.Response{{Status: 200, Desc: "TileJSON", Schema: "VectorTileJSON"}},
			Handle:    s.handleVectorTileJSON},
		{Method: "GET", Path: vectorBase + "/{z}/{x}/{tile}", OpID: "getBuildingVectorTile", Tag: "Buildings", Stability: "beta", Since: "0.3.0", Exempt: true,
			Summary: "One building vector tile (Mapbox Vector Tile 2.1; beyond the spec)",
			Desc: "Web Mercator XYZ tile (EPSG:3857, y from the north, as OpenStreetMap), zoom " + zooms + ", extent 4096, clipped with a buffer of " +
				strconv.Itoa(buildings.TileBuffer) + " units. Layer `buildings`: one polygon (or multipolygon) per building whose footprint meets " +
				"the tile, every published BL and both UTM zones; the footprint is the building's ground surfaces, else its roof surfaces " +
				"projected (`footprint_source` of the attributes). Properties `building_id` (with `bl` it names the building), `gmlid`, `bl`, " +
				"`height_m` (top of the roof above the lowest ground, for `fill-extrusion-height`), `ground_m` (lowest ground, DHHN2016) and " +
				"`roof_max_m` (highest roof point, DHHN2016); a height that is not known is left out. `function` and `roof_type` (AdV codes, " +
				"the building's own, else its first part's, as in the 3D Tiles metadata) with `function_label` and `roof_type_label` (the German " +
				"AdV labels) and `storeys` (storeys above ground) where the pack has them. The feature id is " +
				"2^32 × (the BL's position in the alphabetical list of BL codes, 1 for bb to 16 for th) + building_id. From zoom " +
				strconv.Itoa(buildings.RoofMinZoom) + " layer `roofs`: one polygon per roof facet with `building_id`, `surface_id`, `bl`, " +
				"`tilt_deg`, `azimuth_deg` (true north; left out below 5° tilt) and `area_m2` (horizontal); where a solar pack of the BL is " +
				"published (`svc build solar`, for the published LoD2 snapshot) also `annual_kwh_m2` (irradiation on the facet's plane after " +
				"shading, kWh/m² a year, two decimals), `share_of_best` (of the best plane's at the climate's site, three decimals) and " +
				"`class` (>= 0.9 very_good, >= 0.8 good, >= 0.7 fair, else poor), the values GET /v1/buildings/{gmlid}/solar answers from " +
				"that pack; without one the three are left out. Vertices are only rounded to the " +
				"tile grid, no other simplification, so neighbours that share vertices stay touching at every zoom. A tile without buildings " +
				"is an empty body (a tile without layers, 200). gzip-encoded for clients that accept it (`Content-Encoding: gzip`; the strong " +
				"ETag differs per encoding and changes with the published snapshots; If-None-Match answers 304). Like the tile host, not " +
				"counted against the keyless limit.",
			Params: []httpapi.Param{
				{Name: "z", In: "path", Type: "integer", Required: true, Example: 16, Min: httpapi.F64(buildings.TileMinZoom), Max: httpapi.F64(buildings.TileMaxZoom), Pattern: httpapi.TileIndexPattern, Desc: "zoom"},
				{Name: "x", In: "path", Type: "integer", Required: true, Example: 34314, Min: httpapi.F64(0), Pattern: httpapi.TileIndexPattern, Desc: "column from the west, below 2^z"},
				{Name: "tile", In: "path", Type: "string", Required: true, Example: "22175.mvt", Pattern: `^[0-9]{1,9}\.mvt$`, Desc: "`<y>.mvt`, y the row from the north",
					Parse: parseVectorTile},
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "Mapbox Vector Tile 2.1", ContentType: httpapi.MVTType}, {Status: 304, Desc: "Not modified"},
				httpapi.Resp400, httpapi.Resp404, {Status: 413, Desc: "The tile holds more surfaces than one tile may read", Schema: "Problem"}},
			Handle: s.handleVectorTile},
	}
}

func parseVectorTile(s string) (any, error) {
	return strconv.Atoi(strings.TrimSuffix(s, ".mvt"))
}

// vectorMeta is kept with a cached vector tile: its gzip encoding and the
// BL it starts in (for usage by BL).
type vectorMeta struct {
	gz []byte
	bl string
}

func (s *surface) handleVectorTile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	return s.serveVectorTile(w, r, in.Integer("z"), in.Integer("x"), httpapi.ParsedAs[int](in, "tile"))
}

// ServeVectorTile answers the building vector tile z/x/y (XYZ, y from the
// north) as GET /v1/buildings/tiles/{z}/{x}/{y}.mvt does, for the OGC API -
// Tiles routes: the same cache, bytes, encoding and errors.
func ServeVectorTile(env Env) func(w http.ResponseWriter, r *http.Request, z, x, y int) error {
	return (&surface{env}).serveVectorTile
}

func (s *surface) serveVectorTile(w http.ResponseWriter, r *http.Request, z, x, y int) error {
	if x >= 1<<z || y >= 1<<z {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: x and y are below 2^z.", z, x, y)
	}
	v, release := s.Catalog.Acquire()
	defer release()
	if b, ok := s.buildingBundle(v); ok {
		return httpapi.WriteBundleMVT(w, r, b, z, x, y)
	}
	key := fmt.Sprintf("mvt|%s|%s|%d/%d/%d", lod2Generation(v), solarGeneration(v), z, x, y)
	e, err := s.VectorTiles.Get(r.Context(), key, func(ctx context.Context) (tilecache.Entry, error) {
		res, err := buildings.NewTiler(buildings.Sources(v)).WithSolar(buildings.SolarStores(v)).TileResult(ctx, z, x, y)
		if err != nil {
			return tilecache.Entry{}, err
		}
		meta := vectorMeta{bl: res.BL}
		// The bytes an offline archive stores for this tile (mvt.Gzip is
		// the building layer's compression too); without a cache only for
		// a client that takes them (gzip cost about as much CPU as the
		// cut itself, docs/performance.md).
		if s.VectorTiles.Keeps() || httpapi.AcceptsGzip(r) {
			if gz, err := mvt.Gzip(res.Data); err == nil {
				meta.gz = gz
			}
		}
		return tilecache.Entry{Data: res.Data, Meta: meta}, nil
	})
	var d *lod2store.DamagedError
	switch {
	case errors.As(err, &d):
		s.NoteDamage(d)
		return err
	case errors.Is(err, buildings.ErrTileTooLarge):
		return httpapi.Report(httpapi.ErrTooLarge, "Tile %d/%d/%d holds too many buildings to cut; ask for a higher zoom.", z, x, y)
	case err != nil:
		return err
	}
	meta, _ := e.Meta.(vectorMeta)
	if meta.bl != "" {
		s.SetBL(r.Context(), meta.bl)
	}
	return httpapi.WriteMVT(w, r, func() ([]byte, error) { return e.Data, nil }, meta.gz, e.ETag)
}

func (s *surface) handleVectorTileJSON(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	defer release()
	if b, ok := s.buildingBundle(v); ok {
		return httpapi.BundleVectorTileJSON(w, r, b, s.BaseURL+vectorBase+"/{z}/{x}/{y}.mvt")
	}
	bounds, attr := v.Coverage(pack.LoD2, catalog.World)
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": "svc LoD2 buildings", "scheme": "xyz", "format": "pbf",
		"tiles":   []string{s.BaseURL + vectorBase + "/{z}/{x}/{y}.mvt"},
		"minzoom": buildings.TileMinZoom, "maxzoom": buildings.TileMaxZoom, "bounds": bounds[:],
		"attribution":   attr,
		"vector_layers": buildings.VectorLayers})
}
