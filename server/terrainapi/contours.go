package terrainapi

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/svc-geodata/svc/contour"
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
	mvtType     = "application/vnd.mapbox-vector-tile"
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
			Responses: []httpapi.Response{{Status: 200, Desc: "Mapbox Vector Tile 2.1", ContentType: mvtType}, {Status: 304, Desc: "Not modified"},
				httpapi.Resp400, httpapi.Resp404, {Status: 502, Desc: "A DGM tile could not be read", Schema: "Problem"}},
			Handle: s.handleContourTile},
	}
}

func parseContourTile(s string) (any, error) {
	return strconv.Atoi(strings.TrimSuffix(s, ".mvt"))
}

func (s *surface) handleContourTile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	z, x, y := in.Integer("z"), in.Integer("x"), httpapi.ParsedAs[int](in, "tile")
	if x >= 1<<z || y >= 1<<z {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: x and y are below 2^z.", z, x, y)
	}
	v, release := s.Catalog.Acquire()
	defer release()
	datasets := query.Datasets(v, pack.Terrain)
	key := fmt.Sprintf("contour|%s|%d/%d/%d", terrainGeneration(v), z, x, y)
	e, err := s.Contours.Get(r.Context(), key, func(ctx context.Context) (tilecache.Entry, error) {
		data, err := contour.NewTiler(datasets).Tile(ctx, z, x, y)
		if err != nil {
			return tilecache.Entry{}, err
		}
		var gz []byte
		if len(data) > 0 {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
			_, _ = zw.Write(data)
			if zw.Close() == nil {
				gz = b.Bytes()
			}
		}
		return tilecache.Entry{Data: data, Meta: gz}, nil
	})
	if err != nil {
		return err
	}
	gz, _ := e.Meta.([]byte)
	body, etag := e.Data, e.ETag
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if gz != nil && httpapi.AcceptsGzip(r) {
		// A strong validator names one representation (RFC 9110 8.8.3):
		// the gzip encoding has its own.
		body, etag = gz, strings.TrimSuffix(etag, `"`)+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Type", mvtType)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=300")
	if inm := r.Header.Get("If-None-Match"); inm != "" && httpapi.ETagMatch(inm, etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

func (s *surface) handleContourTileJSON(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	defer release()
	bounds := []float64{180, 90, -180, -90}
	var attr []string
	for _, p := range v.Packs(pack.Terrain) {
		if b := p.Manifest.BBoxWGS84; len(b) == 4 {
			bounds = []float64{math.Min(bounds[0], b[0]), math.Min(bounds[1], b[1]), math.Max(bounds[2], b[2]), math.Max(bounds[3], b[3])}
		}
		if a := p.Manifest.AttributionText(); !slices.Contains(attr, a) {
			attr = append(attr, a)
		}
	}
	if bounds[0] > bounds[2] {
		bounds = []float64{-180, -85.0511, 180, 85.0511}
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": "svc DGM1 contours", "scheme": "xyz", "format": "pbf",
		"tiles":   []string{s.BaseURL + contourBase + "/{z}/{x}/{y}.mvt"},
		"minzoom": contour.MinZoom, "maxzoom": contour.MaxZoom, "bounds": bounds,
		"attribution": strings.Join(attr, "; "),
		"vector_layers": []map[string]any{
			{"id": contour.Layer, "minzoom": contour.MinZoom, "maxzoom": contour.MaxZoom,
				"description": "Contour lines of the DGM1 (DHHN2016); interval 50 m at zoom 10-11, 10 m at 12-13, 5 m at 14-15, 1 m from 16",
				"fields":      map[string]string{"elevation_m": "Number", "index": "Boolean"}},
		}})
}
