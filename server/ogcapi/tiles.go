package ogcapi

import (
	"math"
	"net/http"
	"strconv"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
)

// TilesTag is the OpenAPI tag of the OGC API - Tiles operations.
const TilesTag = "OGC API Tiles"

// OGC API - Tiles 1.0 (OGC 20-057) over the XYZ tile routes: the tiles are
// the /v1 tiles (the same handler answers both), described as tilesets of
// the WebMercatorQuad tile matrix set. docs/ogc-tiles.md explains the
// choices.

// Data types of a tileset (OGC 20-057, 7.3: vector, map or coverage).
const (
	DataVector = "vector"
	DataMap    = "map"
)

// The link relations of OGC API - Tiles (OGC 20-057, 6.2 and annex).
const (
	relTilesetsVector = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"
	relTilesetsMap    = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-map"
	relTilingScheme   = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"
	relTilingSchemes  = "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes"
	relGeodata        = "http://www.opengis.net/def/rel/ogc/1.0/geodata"
	relDataset        = "http://www.opengis.net/def/rel/ogc/1.0/dataset"
)

// tilesConformance are the OGC API - Tiles classes the routes implement.
var tilesConformance = []string{
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/dataset-tilesets",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/png",
}

// TileServe answers one XYZ tile (zoom z, column x from the west, row y
// from the north) as the /v1 tile route does: the same bytes, headers and
// errors.
type TileServe func(w http.ResponseWriter, r *http.Request, z, x, y int) error

// TileLayer is one layer inside a vector tile and its properties (name to
// JSON Schema type).
type TileLayer struct {
	ID               string
	Title            string
	MinZoom, MaxZoom int
	Properties       map[string]string
}

// TileSet is one tiled dataset the OGC API - Tiles routes publish.
type TileSet struct {
	Title, Desc string
	DataType    string // DataVector or DataMap
	// Collection is the collection whose tilesets list it holds it too;
	// empty: a dataset tileset only. CollectionOnly keeps it out of the
	// dataset's tilesets (where a tileset of the whole dataset stands).
	Collection       string
	CollectionOnly   bool
	MediaType        string
	MinZoom, MaxZoom int
	// Products are whose published packs bound the tileset (its limits).
	Products []pack.Product
	Layers   []TileLayer
	// V1 is the /v1 route of the same tiles, for the descriptions.
	V1    string
	Serve TileServe
}

// tileScope is where a list of tilesets lives: the dataset's vector or map
// tilesets, or a collection's.
type tileScope struct {
	dataType   string
	collection bool
}

func (sc tileScope) base(collectionID string) string {
	p := "/ogc"
	if sc.collection {
		p += "/collections/" + collectionID
	}
	if sc.dataType == DataMap {
		p += "/map"
	}
	return p + "/tiles"
}

var tileScopes = []tileScope{{DataVector, false}, {DataMap, false}, {DataVector, true}}

func tmsParam() httpapi.Param {
	return httpapi.Param{Name: "tileMatrixSetId", In: "path", Type: "string", Required: true, Enum: []string{tmsID}, Refuse: httpapi.ErrNotFound,
		Example: tmsID, Desc: "the tile matrix set; `WebMercatorQuad` only (another is 404)"}
}

// tileRoutes are the OGC API - Tiles routes.
func (s *surface) tileRoutes() []httpapi.Route {
	collP := collectionParam()
	idx := func(name, desc string, ex int) httpapi.Param {
		return httpapi.Param{Name: name, In: "path", Type: "integer", Required: true, Pattern: httpapi.TileIndexPattern, Example: ex,
			Desc: desc + "; outside the tileset's tileMatrixSetLimits 404, not a decimal integer 400"}
	}
	tileP := []httpapi.Param{tmsParam(), idx("tileMatrix", "zoom level (tile matrix id)", 16), idx("tileRow", "row from the north", 22175), idx("tileCol", "column from the west", 34314)}
	doc := func(schema, desc string) []httpapi.Response {
		return []httpapi.Response{{Status: 200, Desc: desc, Schema: schema}, httpapi.Resp400, httpapi.Resp404}
	}
	rs := []httpapi.Route{
		{Method: "GET", Path: "/ogc/tileMatrixSets", OpID: "ogcTileMatrixSets", Tag: TilesTag, Since: "0.4.0", Exempt: true,
			Summary: "Tile matrix sets", Desc: "The tile matrix sets the tilesets use: WebMercatorQuad only.",
			Params: []httpapi.Param{ogcFormat()}, Responses: doc("OGCTileMatrixSets", "The tile matrix sets"), Handle: s.handleTileMatrixSets},
		{Method: "GET", Path: "/ogc/tileMatrixSets/{tileMatrixSetId}", OpID: "ogcTileMatrixSet", Tag: TilesTag, Since: "0.4.0", Exempt: true,
			Summary: "One tile matrix set", Desc: "WebMercatorQuad in the JSON encoding of OGC 17-083r4 (2D Tile Matrix Set 2.0), tile matrices 0 to 24.",
			Params: []httpapi.Param{tmsParam(), ogcFormat()}, Responses: doc("OGCTileMatrixSet", "The tile matrix set"), Handle: s.handleTileMatrixSet},
	}
	for _, sc := range tileScopes {
		var pre []httpapi.Param
		op, what := "ogcDataset", "dataset"
		if sc.collection {
			pre, op, what = []httpapi.Param{collP}, "ogcCollection", "collection"
		}
		kind := "Vector"
		if sc.dataType == DataMap {
			kind = "Map"
		}
		base := sc.base("{collectionId}")
		rs = append(rs,
			httpapi.Route{Method: "GET", Path: base, OpID: op + kind + "Tilesets", Tag: TilesTag, Since: "0.4.0", Exempt: true,
				Summary: kind + " tilesets of the " + what, Desc: tilesDesc,
				Params: append(append([]httpapi.Param{}, pre...), ogcFormat()), Responses: doc("OGCTileSets", "The tilesets"),
				Handle: s.handleTileSets(sc)},
			httpapi.Route{Method: "GET", Path: base + "/{tileMatrixSetId}", OpID: op + kind + "Tileset", Tag: TilesTag, Since: "0.4.0", Exempt: true,
				Summary: "One " + sc.dataType + " tileset of the " + what, Desc: tilesDesc,
				Params: append(append(append([]httpapi.Param{}, pre...), tmsParam()), ogcFormat()), Responses: doc("OGCTileSet", "The tileset"),
				Handle: s.handleTileSet(sc)},
			httpapi.Route{Method: "GET", Path: base + "/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}", OpID: op + kind + "Tile", Tag: TilesTag, Since: "0.4.0", Exempt: true,
				Summary: "One " + sc.dataType + " tile of the " + what,
				Desc: tilesDesc + " The tile is the one the /v1 route answers for zoom tileMatrix, x tileCol and y tileRow, byte for byte " +
					"(with its ETag, gzip encoding and 304), from the same handler; the dataset's vector tile concatenates the plain tiles of its " +
					"routes that have the zoom (its own ETag, gzip and 304 alike). Like the /v1 tile routes, not counted against the keyless limit.",
				Params: append(append([]httpapi.Param{}, pre...), tileP...),
				Responses: []httpapi.Response{{Status: 200, Desc: "The tile (Mapbox Vector Tile or PNG, as the tileset's item link states)", ContentType: "application/octet-stream"},
					{Status: 304, Desc: "Not modified"}, httpapi.Resp400, httpapi.Resp404,
					{Status: 413, Desc: "A vector tile holds more buildings than one tile may cut", Schema: "Problem"},
					{Status: 502, Desc: "A DGM tile could not be read", Schema: "Problem"}},
				Handle: s.handleTile(sc)})
	}
	return rs
}

const tilesDesc = "OGC API - Tiles 1.0 (OGC 20-057), beta. Vector tiles: the dataset's tileset (`/ogc/tiles`) holds in one " +
	"Mapbox Vector Tile the building footprints and roofs of `/v1/buildings/tiles` (layers `buildings` from zoom 12 and `roofs` " +
	"from 16) and the contour lines of `/v1/terrain/contours` (layer `contours`, zoom 10 to 18), each layer as its /v1 route encodes it; " +
	"the `buildings` collection's tileset (`/ogc/collections/buildings/tiles`) is the building tile of `/v1/buildings/tiles` byte for byte. " +
	"Map tiles: the hillshade of `/v1/terrain/hillshade` (PNG, style `shade`, 256 px), a rendered picture, as the dataset's map tileset " +
	"(`/ogc/map/tiles`). The terrain-RGB and Terrarium tiles pack heights into colours: they are coverage tiles, not maps, and are not " +
	"offered here (docs/ogc-tiles.md). Tile matrix set WebMercatorQuad only; `tileMatrixSetLimits` list, per zoom the tileset has, the " +
	"rows and columns that meet the published data; a tile outside them is 404, as is an unknown tile matrix set."

// tileSetsIn are the tilesets of a scope (for a collection: of collection
// id).
func (s *surface) tileSetsIn(sc tileScope, id string) []TileSet {
	var out []TileSet
	for _, t := range s.TileSets {
		if t.DataType == sc.dataType && (sc.collection && t.Collection == id || !sc.collection && !t.CollectionOnly) {
			out = append(out, t)
		}
	}
	return out
}

// tileSetOf is the one tileset of a scope; a scope holds one per data type
// (one tile matrix set), so the path names it.
func (s *surface) tileSetOf(sc tileScope, in *httpapi.Input) (TileSet, string, error) {
	id := ""
	if sc.collection {
		id = in.Str("collectionId")
	}
	ts := s.tileSetsIn(sc, id)
	if len(ts) == 0 {
		if sc.collection {
			return TileSet{}, "", httpapi.Report(httpapi.ErrNotFound, "The collection %q has no %s tiles; see /ogc/collections.", httpapi.Clip(id), sc.dataType)
		}
		return TileSet{}, "", httpapi.Report(httpapi.ErrNotFound, "This server has no %s tiles.", sc.dataType)
	}
	return ts[0], sc.base(id), nil
}

// boundsOf is the WGS84 box (west, south, east, north) of the published
// packs of products ps; the Web Mercator world when none is published.
func boundsOf(v *catalog.View, ps []pack.Product) [4]float64 {
	b := [4]float64{180, 90, -180, -90}
	for _, p := range ps {
		for _, pk := range v.Packs(p) {
			if m := pk.Manifest.BBoxWGS84; len(m) == 4 {
				b = [4]float64{math.Min(b[0], m[0]), math.Min(b[1], m[1]), math.Max(b[2], m[2]), math.Max(b[3], m[3])}
			}
		}
	}
	if b[0] > b[2] {
		return [4]float64{-180, -85.0511287798, 180, 85.0511287798}
	}
	return b
}

func (s *surface) handleTileMatrixSets(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	return s.ogcAnswer(w, r, html, "Tile matrix sets", map[string]any{
		"links": s.selfLinks("/ogc/tileMatrixSets", nil, html, "application/json"),
		"tileMatrixSets": []map[string]any{{"id": tmsID, "title": "Google Maps Compatible for the World", "uri": tmsURI, "crs": crs3857,
			"links": []ogcLink{{Href: s.BaseURL + "/ogc/tileMatrixSets/" + tmsID, Rel: "self", Type: "application/json", Title: tmsID}}}}})
}

func (s *surface) handleTileMatrixSet(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	doc := tileMatrixSetDoc()
	doc["links"] = s.selfLinks("/ogc/tileMatrixSets/"+tmsID, nil, html, "application/json")
	return s.ogcAnswer(w, r, html, tmsID, doc)
}

// tileSetLinks are the links of a tileset at base/WebMercatorQuad.
func (s *surface) tileSetLinks(t TileSet, base string, inCollection bool) []ogcLink {
	ls := []ogcLink{
		{Href: s.BaseURL + base + "/" + tmsID, Rel: "self", Type: "application/json", Title: t.Title},
		{Href: s.BaseURL + "/ogc/tileMatrixSets/" + tmsID, Rel: relTilingScheme, Type: "application/json", Title: "the tile matrix set " + tmsID},
	}
	if inCollection {
		return append(ls, ogcLink{Href: s.BaseURL + "/ogc/collections/" + t.Collection, Rel: relGeodata, Type: "application/json", Title: "the collection"})
	}
	return append(ls, ogcLink{Href: s.BaseURL + "/ogc", Rel: relDataset, Type: "application/json", Title: "the dataset"})
}

func (s *surface) handleTileSets(sc tileScope) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
		html := wantsHTML(r, in)
		t, base, err := s.tileSetOf(sc, in)
		if err != nil {
			return err
		}
		item := map[string]any{"title": t.Title, "dataType": t.DataType, "crs": crs3857, "tileMatrixSetURI": tmsURI,
			"links": s.tileSetLinks(t, base, sc.collection)}
		return s.ogcAnswer(w, r, html, "Tilesets", map[string]any{
			"links": s.selfLinks(base, nil, html, "application/json"), "tilesets": []map[string]any{item}})
	}
}

func (s *surface) handleTileSet(sc tileScope) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
		html := wantsHTML(r, in)
		t, base, err := s.tileSetOf(sc, in)
		if err != nil {
			return err
		}
		v, release := s.Catalog.Acquire()
		b := boundsOf(v, t.Products)
		release()
		links := append(s.tileSetLinks(t, base, sc.collection), ogcLink{Href: s.BaseURL + base + "/" + tmsID + "/{tileMatrix}/{tileRow}/{tileCol}", Rel: "item", Type: t.MediaType,
			Title: t.Title + " tiles"})
		doc := map[string]any{"title": t.Title, "description": t.Desc, "dataType": t.DataType, "crs": crs3857, "tileMatrixSetURI": tmsURI,
			"mediaTypes": []string{t.MediaType}, "links": links, "tileMatrixSetLimits": limitsOf(b, t.MinZoom, t.MaxZoom),
			"boundingBox": map[string]any{"lowerLeft": []float64{round6(b[0]), round6(b[1])}, "upperRight": []float64{round6(b[2]), round6(b[3])},
				"crs": "http://www.opengis.net/def/crs/OGC/1.3/CRS84"}}
		if len(t.Layers) > 0 {
			var ls []map[string]any
			for _, l := range t.Layers {
				props := map[string]any{}
				for k, typ := range l.Properties {
					props[k] = map[string]string{"type": typ}
				}
				ls = append(ls, map[string]any{"id": l.ID, "title": l.Title, "dataType": DataVector, "geometryDimension": 2,
					"minTileMatrix": strconv.Itoa(l.MinZoom), "maxTileMatrix": strconv.Itoa(l.MaxZoom),
					"propertiesSchema": map[string]any{"type": "object", "properties": props}})
			}
			doc["layers"] = ls
		}
		return s.ogcAnswer(w, r, html, t.Title, doc)
	}
}

func (s *surface) handleTile(sc tileScope) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
		t, _, err := s.tileSetOf(sc, in)
		if err != nil {
			return err
		}
		z, row, col := in.Integer("tileMatrix"), in.Integer("tileRow"), in.Integer("tileCol")
		if z < t.MinZoom || z > t.MaxZoom {
			return httpapi.Report(httpapi.ErrNotFound, "No tile matrix %d in this tileset: it has %d to %d.", z, t.MinZoom, t.MaxZoom)
		}
		v, release := s.Catalog.Acquire()
		b := boundsOf(v, t.Products)
		release()
		l := limitsOf(b, z, z)[0]
		if row < l.MinTileRow || row > l.MaxTileRow || col < l.MinTileCol || col > l.MaxTileCol {
			return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d: at tile matrix %d the tileset has rows %d to %d and columns %d to %d (tileMatrixSetLimits).",
				z, row, col, z, l.MinTileRow, l.MaxTileRow, l.MinTileCol, l.MaxTileCol)
		}
		return t.Serve(w, r, z, col, row)
	}
}

// tilesetsLink is the link to the tilesets list of a scope.
//
// A collection's link carries no media type (OGC 20-057
// /req/geodata-tilesets/desc-links asks only for the rel): GDAL's OGCAPI
// driver, opening a collection with API=AUTO, takes the tiles branch for any
// tilesets link typed application/json and never falls back to the items.
// Its vector-tile branch is compiled out of GDAL 3.6 to 3.7.0 (CMake builds,
// GDAL PR 7993), so the open failed; later versions would give one layer per
// zoom level of clipped, simplified footprints. Untyped, GDAL opens the
// collection's features (docs/ogc-tiles.md).
func (s *surface) tilesetsLink(sc tileScope, collectionID string) ogcLink {
	rel, title := relTilesetsVector, "the vector tilesets"
	if sc.dataType == DataMap {
		rel, title = relTilesetsMap, "the map tilesets"
	}
	typ := "application/json"
	if sc.collection {
		typ = ""
	}
	return ogcLink{Href: s.BaseURL + sc.base(collectionID), Rel: rel, Type: typ, Title: title}
}
