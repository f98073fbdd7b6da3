package terrainapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/contour"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/tilecache"
)

// Contour vector tiles (docs/terrain-tiles.md, "Contours"): Mapbox Vector
// Tile 2.1 of the DGM1 contour lines. Like every tile route they are not
// counted against the keyless limit.
const (
	contourBase = "/v1/terrain/contours"
)

// ContourRoutes are the contour vector tile routes.
func ContourRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	zooms := strconv.Itoa(contour.MinZoom) + " to " + strconv.Itoa(contour.MaxZoom)
	return []httpapi.Route{
		{Method: "GET", Path: contourBase + ".json", OpID: "getContourTileJSON", Tag: "Terrain", Stability: "beta", Since: "0.3.0", Exempt: true,
			Summary: "TileJSON of the contour vector tiles (beyond the spec)",
			Desc: "TileJSON 3.0.0 for MapLibre GL JS (`{type: 'vector', url: '<base>" + contourBase + ".json'}`), OpenLayers, QGIS and GDAL's MVT " +
				"driver: the tile URL template, zoom " + zooms + " (clients overzoom beyond " + strconv.Itoa(contour.MaxZoom) +
				"), the bounds of the published DGM, its attribution and `vector_layers` with the layer's fields and types.",
			Responses: []httpapi.Response{{Status: 200, Desc: "TileJSON", Schema: "VectorTileJSON"}},
			Handle:    s.handleContourTileJSON},
		{Method: "GET", Path: contourBase + "/{z}/{x}/{tile}", OpID: "getContourTile", Tag: "Terrain", Stability: "beta", Since: "0.3.0", Exempt: true,
			Summary: "One contour vector tile (Mapbox Vector Tile 2.1; beyond the spec)",
			Desc: "Web Mercator XYZ tile (EPSG:3857, y from the north, as OpenStreetMap), zoom " + zooms + ", extent 4096, clipped with a buffer of " +
				strconv.Itoa(contour.Buffer) + " units. Layer `contours`: one LineString (MultiLineString where the clip cuts it) per contour line of " +
				"the DGM1 of every published BL and both UTM zones, with `elevation_m` (integer metres, DHHN2016) and `index` (true on every " +
				strconv.Itoa(contour.IndexEvery) + "th level, for thicker lines and labels). The interval follows the zoom: 50 m at 10-11, 10 m at " +
				"12-13, 5 m at 14-15, 1 m from 16. The lines are computed as `gdal_contour -i <interval>` computes them, on the DGM's own grid in its " +
				"UTM zone (from a COG overview below about zoom 14, where a tile spans more than 2304 DGM pixels), over the tile, its buffer and a " +
				"margin, then projected and clipped, so they continue across DGM file and BL edges within a zone and neighbouring tiles meet. " +
				"Vertices are only rounded to the tile grid, no other simplification. NoData breaks a line. A tile without lines is an empty body " +
				"(200). gzip-encoded for clients that accept it (`Content-Encoding: gzip`; the strong ETag differs per encoding and changes with the " +
				"published snapshots; If-None-Match answers 304). Like the tile host, not counted against the keyless limit.",
			Params: []httpapi.Param{
				{Name: "z", In: "path", Type: "integer", Required: true, Example: 15, Min: httpapi.F64(contour.MinZoom), Max: httpapi.F64(contour.MaxZoom), Pattern: httpapi.TileIndexPattern, Desc: "zoom"},
				{Name: "x", In: "path", Type: "integer", Required: true, Example: 17157, Min: httpapi.F64(0), Pattern: httpapi.TileIndexPattern, Desc: "column from the west, below 2^z"},
				{Name: "tile", In: "path", Type: "string", Required: true, Example: "11088.mvt", Pattern: `^[0-9]{1,9}\.mvt$`, Desc: "`<y>.mvt`, y the row from the north",
					Parse: parseContourTile},
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "Mapbox Vector Tile 2.1", ContentType: httpapi.MVTType}, {Status: 304, Desc: "Not modified"},
				httpapi.Resp400, httpapi.Resp404, {Status: 502, Desc: "A DGM tile could not be read", Schema: "Problem"}},
			Handle: s.handleContourTile},
	}
}

func parseContourTile(s string) (any, error) {
	return strconv.Atoi(strings.TrimSuffix(s, ".mvt"))
}

func (s *surface) handleContourTile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	return s.serveContour(w, r, in.Integer("z"), in.Integer("x"), httpapi.ParsedAs[int](in, "tile"))
}

// ServeContourTile answers one contour tile as GET /v1/terrain/contours
// does (same bytes, headers and errors), for the OGC API - Tiles routes;
// a zoom outside contour.MinZoom to contour.MaxZoom is 404.
func ServeContourTile(env Env) func(w http.ResponseWriter, r *http.Request, z, x, y int) error {
	return (&surface{env}).serveContour
}

func (s *surface) serveContour(w http.ResponseWriter, r *http.Request, z, x, y int) error {
	if z < contour.MinZoom || z > contour.MaxZoom || x >= 1<<z || y >= 1<<z {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: zoom %d to %d, x and y below 2^z.", z, x, y, contour.MinZoom, contour.MaxZoom)
	}
	v, release := s.Catalog.Acquire()
	defer release()
	if b, ok := s.terrainBundle(v, contour.Layer); ok {
		return httpapi.WriteBundleMVT(w, r, b, z, x, y)
	}
	datasets := query.Datasets(v, pack.Terrain)
	key := fmt.Sprintf("contour|%s|%d/%d/%d", terrainGeneration(v), z, x, y)
	e, err := s.Contours.Get(r.Context(), key, func(ctx context.Context) (tilecache.Entry, error) {
		data, err := contour.NewTiler(datasets).Tile(ctx, z, x, y)
		if err != nil {
			return tilecache.Entry{}, err
		}
		// The bytes an offline archive stores for this tile (mvt.Gzip is
		// the contour layer's compression too); nil for an empty tile.
		gz, err := mvt.Gzip(data)
		return tilecache.Entry{Data: data, Meta: gz}, err
	})
	if err != nil {
		return err
	}
	gz, _ := e.Meta.([]byte)
	return httpapi.WriteMVT(w, r, func() ([]byte, error) { return e.Data, nil }, gz, e.ETag)
}

func (s *surface) handleContourTileJSON(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	b, ok := s.terrainBundle(v, contour.Layer)
	release()
	if ok {
		return httpapi.BundleVectorTileJSON(w, r, b, s.BaseURL+contourBase+"/{z}/{x}/{y}.mvt")
	}
	bounds, attr := s.terrainCoverage()
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": "svc DGM1 contours", "scheme": "xyz", "format": "pbf",
		"tiles":   []string{s.BaseURL + contourBase + "/{z}/{x}/{y}.mvt"},
		"minzoom": contour.MinZoom, "maxzoom": contour.MaxZoom, "bounds": bounds,
		"attribution": attr, "vector_layers": contour.VectorLayers})
}
