package terrainapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/demtile"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/tilecache"
)

// demLayer is one encoding of the raster-dem tiles and where it is served.
type demLayer struct {
	enc   demtile.Encoding
	base  string // path without the tile address
	title string // the encoding as people name it
	op    string // operation id stem
	unit  string // the formula, for the descriptions
	layer string // the map layer an offline bundle holds it as
}

var demLayers = []demLayer{
	{demtile.TerrainRGB, "/v1/terrain/rgb", "terrain-RGB", "TerrainRGB",
		"Mapbox terrain-RGB: height = -10000 + (R × 65536 + G × 256 + B) × 0.1 m, rounded to the nearest 0.1 m", "terrain-rgb"},
	{demtile.Terrarium, "/v1/terrain/terrarium", "Terrarium", "Terrarium",
		"Terrarium: height = R × 256 + G + B / 256 - 32768 m, rounded to the nearest 1/256 m", "terrarium"},
}

// DEMTileRoutes are the raster-dem tile routes (terrain-RGB and Terrarium
// PNGs for MapLibre's 3D terrain) and their TileJSON documents.
func DEMTileRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	var rs []httpapi.Route
	for _, l := range demLayers {
		rs = append(rs,
			httpapi.Route{Method: "GET", Path: l.base + ".json", OpID: "get" + l.op + "TileJSON", Tag: "Terrain", Stability: "beta", Since: "0.3.0", Exempt: true,
				Summary: "TileJSON of the " + l.title + " terrain tiles (beyond the spec)",
				Desc: "TileJSON 3.0.0 with `encoding: \"" + l.enc.String() + "\"` for a MapLibre GL JS `raster-dem` source " +
					"(`{type: 'raster-dem', url: '<base>" + l.base + ".json'}`, then `map.setTerrain({source})`): the tile URL template " +
					"(with `nodata=fill`: MapLibre ignores alpha, so pixels without data must be opaque with a filled height), " +
					"zoom " + strconv.Itoa(demtile.MinZoom) + " to " + strconv.Itoa(demtile.MaxZoom) + ", `tileSize` 256 (MapLibre takes it " +
					"from the TileJSON instead of its raster-dem default of 512), the bounds of the published DGM and its attribution.",
				Responses: []httpapi.Response{{Status: 200, Desc: "TileJSON", Schema: "TileJSON"}},
				Handle:    s.demTileJSON(l)},
			httpapi.Route{Method: "GET", Path: l.base + "/{z}/{x}/{tile}", OpID: "get" + l.op + "Tile", Tag: "Terrain", Stability: "beta", Since: "0.3.0", Exempt: true,
				Summary: "One " + l.title + " terrain tile (beyond the spec)",
				Desc: "Web Mercator XYZ tile (EPSG:3857, y from the north), 256 px, zoom " + strconv.Itoa(demtile.MinZoom) + " to " +
					strconv.Itoa(demtile.MaxZoom) + " (MapLibre overzooms beyond), heights of the DGM1 in metres above NHN (DHHN2016, " +
					"not ellipsoidal) packed as " + l.unit + ". The DGM of every published BL (both UTM zones) is sampled bilinearly at the " +
					"tile's pixel centres (from a COG overview when a tile pixel covers at least 4 DGM pixels), as " +
					"`gdalwarp -t_srs EPSG:3857 -r bilinear` does. Pixels outside the data and on NoData carry a filled height: the " +
					"nearest valid height within the tile and its one-pixel border, or in a tile without data the height its nearest " +
					"ancestor tile with data gives there (0 m if none down to zoom " + strconv.Itoa(demtile.MinZoom) + "), so 3D terrain " +
					"continues flat across rivers and beyond the data instead of dropping into a pit. With `nodata=transparent` (the " +
					"default) such pixels are also transparent (alpha 0), the mark of no data for clients that decode the PNG; a " +
					"browser drops the colour of a transparent pixel and MapLibre ignores alpha, so MapLibre would read the encoding's " +
					"lowest height there (-10000 or -32768 m): MapLibre must use `nodata=fill` (opaque), as the TileJSON's URL does. " +
					"A tile with every pixel opaque is an RGB PNG (always 200, so map clients show no errors). Tiles are cached; " +
					"the strong ETag changes with the data, If-None-Match answers 304. Like the tile host, not counted against the keyless limit.",
				Params: []httpapi.Param{
					{Name: "z", In: "path", Type: "integer", Required: true, Example: 15, Min: httpapi.F64(demtile.MinZoom), Max: httpapi.F64(demtile.MaxZoom), Pattern: httpapi.TileIndexPattern, Desc: "zoom"},
					{Name: "x", In: "path", Type: "integer", Required: true, Example: 17157, Min: httpapi.F64(0), Pattern: httpapi.TileIndexPattern, Desc: "column from the west, below 2^z"},
					{Name: "nodata", In: "query", Type: "string", Default: demtile.Transparent.String(), Enum: []string{demtile.Transparent.String(), demtile.Opaque.String()},
						Desc: "How pixels without DGM data are marked (their colour is a filled height either way): `transparent` alpha 0, `fill` opaque (for MapLibre, which ignores alpha)"},
					{Name: "tile", In: "path", Type: "string", Required: true, Example: "11088.png", Pattern: `^[0-9]{1,9}\.png$`, Desc: "`<y>.png`, y the row from the north",
						Parse: func(s string) (any, error) { return strconv.Atoi(strings.TrimSuffix(s, ".png")) }},
				},
				Responses: []httpapi.Response{{Status: 200, Desc: "PNG tile", ContentType: "image/png"}, {Status: 304, Desc: "Not modified"},
					httpapi.Resp400, httpapi.Resp404, httpapi.Resp422, {Status: 502, Desc: "A DGM tile could not be read", Schema: "Problem"}},
				Handle: s.demTile(l)})
	}
	return rs
}

func (s *surface) demTileJSON(l demLayer) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *httpapi.Input) error {
		v, release := s.Catalog.Acquire()
		b, ok := s.terrainBundle(v, l.layer)
		release()
		if ok {
			return s.bundleDEMTileJSON(w, r, l, b)
		}
		bounds, attr := s.terrainCoverage()
		return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
			"tilejson": "3.0.0", "name": "svc DGM1 " + l.title, "scheme": "xyz", "format": "png", "encoding": l.enc.String(),
			"description": "DGM1 heights in metres above NHN (DHHN2016) as " + l.unit + "; outside the data and on NoData the nearest valid height, opaque (nodata=fill).",
			"tiles":       []string{s.BaseURL + l.base + "/{z}/{x}/{y}.png?nodata=" + demtile.Opaque.String()},
			"minzoom":     demtile.MinZoom, "maxzoom": demtile.MaxZoom, "bounds": bounds, "tileSize": demtile.TileSize,
			"attribution": attr})
	}
}

func (s *surface) demTile(l demLayer) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
		z, x, y := in.Integer("z"), in.Integer("x"), httpapi.ParsedAs[int](in, "tile")
		mark := demtile.Transparent
		if in.Str("nodata") == demtile.Opaque.String() {
			mark = demtile.Opaque
		}
		if z < demtile.MinZoom || z > demtile.MaxZoom || x >= 1<<z || y >= 1<<z {
			return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: zoom %d to %d, x and y below 2^z.", z, x, y, demtile.MinZoom, demtile.MaxZoom)
		}
		v, release := s.Catalog.Acquire()
		defer release()
		if b, ok := s.terrainBundle(v, l.layer); ok {
			return bundleDEMTile(w, r, b, l, mark, z, x, y)
		}
		datasets := query.Datasets(v, pack.Terrain)
		// demtile.Format names the rendering, so the ETag of tiles drawn by
		// an older one (pits at the data's edge) never validates a cache.
		key := fmt.Sprintf("dem|%s|%s|%d/%d/%d|%s|%s", demtile.Format, terrainGeneration(v), z, x, y, l.enc, mark)
		e, err := s.DEMTiles.Get(r.Context(), key, func(ctx context.Context) (tilecache.Entry, error) {
			b, err := demtile.New(demtile.DGM(datasets), l.enc, mark).Tile(ctx, z, x, y)
			return tilecache.Entry{Data: b}, err
		})
		if err != nil {
			return err
		}
		writePNG(w, r, e)
		return nil
	}
}
