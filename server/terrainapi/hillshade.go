package terrainapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/demtile"
	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/tilecache"
)

const hillshadeBase = "/v1/terrain/hillshade"

// HillshadeRoutes are the hillshade tile routes.
func HillshadeRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	styleP := httpapi.Param{Name: "style", In: "query", Type: "string", Default: "shade", Enum: []string{"shade", "hypsometric"},
		Desc: "`shade`: grey multidirectional hillshade; `hypsometric`: the shading over an elevation colour ramp"}
	return []httpapi.Route{
		{Method: "GET", Path: hillshadeBase + ".json", OpID: "getHillshadeTileJSON", Tag: "Terrain", Stability: "beta", Since: "0.2.0", Exempt: true,
			Summary: "TileJSON of the hillshade map tiles (beyond the spec)",
			Desc: "TileJSON 3.0.0 for QGIS (XYZ Tiles), Leaflet, OpenLayers and MapLibre (`{type: 'raster', url: '<base>/v1/terrain/hillshade.json'}`): " +
				"the tile URL template, zoom range, the bounds of the published DGM and its attribution. `style` is passed on to the tile URLs.",
			Params:    []httpapi.Param{styleP},
			Responses: []httpapi.Response{{Status: 200, Desc: "TileJSON", Schema: "TileJSON"}, httpapi.Resp422},
			Handle:    s.handleHillshadeJSON},
		{Method: "GET", Path: hillshadeBase + "/{z}/{x}/{tile}", OpID: "getHillshadeTile", Tag: "Terrain", Stability: "beta", Since: "0.2.0", Exempt: true,
			Summary: "One hillshade map tile (beyond the spec)",
			Desc: "Web Mercator XYZ tile (EPSG:3857, y from the north, as OpenStreetMap), 256 px or 512 px with `@2x`, zoom " +
				strconv.Itoa(hillshade.MinZoom) + " to " + strconv.Itoa(hillshade.MaxZoom) + ". The DGM of every published BL (both UTM zones) " +
				"is sampled bilinearly at the tile's pixel centres (from a COG overview when a tile pixel covers at least 4 DGM pixels) and shaded " +
				"as `gdaldem hillshade -multidirectional` does on the DGM warped to the tile (altitude 45°, z factor 1, Web Mercator metres): at zoom " +
				"17 and above the values equal GDAL's within 1 (of 255). Transparent outside coverage and on NoData; a tile without any data is a " +
				"transparent PNG too (200), so map clients show no errors. Tiles are cached; the strong ETag changes with the data, If-None-Match " +
				"answers 304. Like the tile host, not counted against the keyless limit.",
			Params: []httpapi.Param{
				{Name: "z", In: "path", Type: "integer", Required: true, Example: 15, Min: httpapi.F64(hillshade.MinZoom), Max: httpapi.F64(hillshade.MaxZoom), Pattern: httpapi.TileIndexPattern, Desc: "zoom"},
				{Name: "x", In: "path", Type: "integer", Required: true, Example: 17157, Min: httpapi.F64(0), Pattern: httpapi.TileIndexPattern, Desc: "column from the west, below 2^z"},
				{Name: "tile", In: "path", Type: "string", Required: true, Example: "11088.png", Pattern: `^[0-9]{1,9}(@2x)?\.png$`, Desc: "`<y>.png` or `<y>@2x.png`, y the row from the north",
					Parse: parseHillshadeTile},
				styleP,
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "PNG tile", ContentType: "image/png"}, {Status: 304, Desc: "Not modified"},
				httpapi.Resp400, httpapi.Resp404, httpapi.Resp422, {Status: 502, Desc: "A DGM tile could not be read", Schema: "Problem"}},
			Handle: s.handleHillshadeTile},
	}
}

// hillshadeTile is the last segment of a hillshade tile address.
type hillshadeTile struct{ y, sizePx int }

func parseHillshadeTile(s string) (any, error) {
	name := strings.TrimSuffix(s, ".png")
	t := hillshadeTile{sizePx: 256}
	if n, two := strings.CutSuffix(name, "@2x"); two {
		name, t.sizePx = n, 512
	}
	var err error
	t.y, err = strconv.Atoi(name)
	return t, err
}

func styleOf(in *httpapi.Input) hillshade.Style {
	if in.Str("style") == "hypsometric" {
		return hillshade.Hypsometric
	}
	return hillshade.Shade
}

func (s *surface) handleHillshadeJSON(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	v, release := s.Catalog.Acquire()
	b, ok := s.hillshadeBundle(v)
	release()
	if ok {
		return s.bundleTileJSON(w, r, in, b)
	}
	bounds, attr := s.terrainCoverage()
	q := ""
	if in.Has("style") {
		q = "?style=" + in.Str("style")
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": "svc DGM1 hillshade", "scheme": "xyz", "format": "png",
		"tiles":   []string{s.BaseURL + hillshadeBase + "/{z}/{x}/{y}.png" + q},
		"minzoom": hillshade.MinZoom, "maxzoom": hillshade.MaxZoom, "bounds": bounds, "tileSize": 256,
		"attribution": attr})
}

// terrainCoverage is the WGS84 bounds of the published DGM packs (the
// whole Web Mercator world when none is published) and their attributions
// joined with "; ", for the TileJSON documents.
func (s *surface) terrainCoverage() ([]float64, string) {
	v, release := s.Catalog.Acquire()
	defer release()
	bounds, attr := v.Coverage(pack.Terrain, catalog.World)
	return bounds[:], attr
}

func (s *surface) handleHillshadeTile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	t := httpapi.ParsedAs[hillshadeTile](in, "tile")
	return s.serveHillshade(w, r, in.Integer("z"), in.Integer("x"), t.y, t.sizePx, styleOf(in))
}

// ServeHillshadeTile answers the 256 px `shade` hillshade tile z/x/y (XYZ,
// y from the north) as GET /v1/terrain/hillshade/{z}/{x}/{y}.png does, for
// the OGC API - Tiles routes: the same cache or bundle, bytes and errors.
func ServeHillshadeTile(env Env) func(w http.ResponseWriter, r *http.Request, z, x, y int) error {
	s := &surface{env}
	return func(w http.ResponseWriter, r *http.Request, z, x, y int) error {
		return s.serveHillshade(w, r, z, x, y, 256, hillshade.Shade)
	}
}

func (s *surface) serveHillshade(w http.ResponseWriter, r *http.Request, z, x, y, size int, style hillshade.Style) error {
	if z < hillshade.MinZoom || z > hillshade.MaxZoom || x >= 1<<z || y >= 1<<z {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: zoom %d to %d, x and y below 2^z.", z, x, y, hillshade.MinZoom, hillshade.MaxZoom)
	}
	v, release := s.Catalog.Acquire()
	defer release()
	if b, ok := s.hillshadeBundle(v); ok {
		return s.bundleTile(w, r, b, z, x, y, size, style)
	}
	datasets := query.Datasets(v, pack.Terrain)
	key := fmt.Sprintf("hs|%s|%d/%d/%d|%d|%d", terrainGeneration(v), z, x, y, size, style)
	e, err := s.Hillshade.Get(r.Context(), key, func(ctx context.Context) (tilecache.Entry, error) {
		b, err := hillshade.Tile(ctx, demtile.DGM(datasets), z, x, y, size, style)
		return tilecache.Entry{Data: b}, err
	})
	if err != nil {
		return err
	}
	writePNG(w, r, e)
	return nil
}

// writePNG answers a cached PNG tile: its strong ETag, an hour of client
// caching, 304 when If-None-Match names the ETag.
func writePNG(w http.ResponseWriter, r *http.Request, e tilecache.Entry) {
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("ETag", e.ETag)
	h.Set("Cache-Control", "public, max-age=3600")
	if inm := r.Header.Get("If-None-Match"); inm != "" && httpapi.ETagMatch(inm, e.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(e.Data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(e.Data)
}
