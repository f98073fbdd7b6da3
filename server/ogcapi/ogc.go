// Package ogcapi is the OGC API - Features surface of the server (Part 1
// Core with GeoJSON and HTML, Part 2 CRS by reference) over the LoD2 packs:
// the same surfaces as /v1/buildings, in the shape GIS clients (QGIS, GDAL's
// OAPIF driver) read. What it needs of the server (the catalog, the base
// URL, its OpenAPI document, the damage warnings, the request's state label)
// it gets as an Env; the policy its routes answer under is the server's
// ogcAPI surface.
package ogcapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
)

// Tag is the OpenAPI tag of the surface's operations.
const Tag = "OGC API Features"

// Conformance classes the layer implements.
var ogcConformance = []string{
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
	"http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
	"http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
	"http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
	"http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
	"http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
	"http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
	"http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
	"http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
	"http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions",
	// Sorting is a draft (Part 8 in ldproxy's numbering, the only
	// published URIs for sortby on features).
	"http://www.opengis.net/spec/ogcapi-features-8/0.0/conf/sorting",
	"http://www.opengis.net/spec/ogcapi-features-8/0.0/conf/features-sorting",
}

// The page size of the items: DefaultLimit without limit, at most MaxLimit.
const (
	DefaultLimit = 10
	MaxLimit     = 10000
	// Collection ids: the federated collections and the per-BL prefix.
	collSurfaces = "surfaces"
	collRoofs    = "roofs"
	collBLPrefix = "surfaces-"
)

// Desc describes the surface (the OpenAPI description of /ogc/api and of
// the landing and items operations).
const Desc = "OGC API - Features (Part 1 Core with GeoJSON and HTML, Part 2 CRS by reference), beta. Collections: " +
	"`surfaces` (every published BL, federated like `/v1/buildings`), `surfaces-<bl>` (one BL) and `roofs` (roof " +
	"surfaces with tilt, azimuth and area), and `buildings`: whole buildings, one feature per building with the id " +
	"its gml:id, the footprint (its ground surfaces, 2D) as geometry (with `profile=lod2` all its surfaces as a MultiPolygon Z, " +
	"heights DHHN2016) and the LoD2-DE attributes and derived measures as " +
	"properties (docs/buildings-attributes.md); there `filter` and `sortby` run in SQL on each BL's attribute table " +
	"(what CQL2 cannot say in SQL, e.g. CASEI or a spatial function on the footprint, is evaluated per building), " +
	"`next` carries each BL's keyset position, and `bbox` keeps the buildings whose footprint meets it. Before 0.3.0 `surfaces` was named `buildings` and `surfaces-<bl>` `buildings-<bl>`. In the surface collections a feature is one LoD2 surface (wall, roof, ground), as in `/v1/buildings`, " +
	"with the id `<bl>.<surface_id>`; the building is its `gmlid` property. Paging follows the `next` link: its cursor " +
	"names the snapshot of each BL, and after a reload that replaced one it answers 400 asking to restart; `prev` " +
	"links are not offered (the standard makes them optional). `limit` above its maximum gives a page of the maximum " +
	"(a server-limited page) instead of an error. `numberMatched` is given only without bbox, datetime and filters, where " +
	"it is known without counting (the metadata of each pack keeps its surface and roof counts; a pack written before " +
	"roof_count counts its roofs in the background once, and roofs has no numberMatched until then); a bbox query would have " +
	"to walk every surface of the box to count them, while a page stops at its limit. Coordinates: CRS84 by default, `crs` and `bbox-crs` take " +
	"CRS84, EPSG:4326 and EPSG:4258 (latitude first), EPSG:25832, EPSG:25833 and EPSG:3857; metres have 3 decimals, " +
	"degrees 8. ETRS89 and WGS84 are treated as equal (PROJ's default between them). The `datetime` filter compares " +
	"with the snapshot date of each BL. Property filters: `gmlid` (the building) and `surface_class` (CityGML class " +
	"code, e.g. 712 roof), and CQL2 (Part 3): `filter` in cql2-text or cql2-json over the collection's queryables " +
	"(`/queryables`: the feature's properties and its geometry), `filter-crs` for the geometry literals; " +
	"`sortby` (stable: ties by id) and `properties` (select the properties written). A filtered page is filled to its " +
	"limit and its `next` link carries the filter; a bad filter is 400 with the position and the token. " +
	"Unknown parameters are 400, as Part 1 allows."

func ogcFormat() httpapi.Param {
	return httpapi.Param{Name: "f", In: "query", Type: "string", Enum: []string{"json", "html"}, Component: "f",
		Desc: "response format; default from the Accept header (text/html gives HTML), else JSON"}
}

// Env is what the surface needs of the server that composes it.
type Env struct {
	Catalog *catalog.Catalog
	// BaseURL is the public address of the API, no trailing slash.
	BaseURL string
	// OpenAPI is the OpenAPI document of the /ogc operations alone (GET
	// /ogc/api), built by the server from the routes.
	OpenAPI func() []byte
	// DamagedWarnings words the damaged packs a search skipped.
	DamagedWarnings func([]*lod2store.DamagedError) []string
	// SetBL records which federal state answered the request, for the
	// per-BL usage counters.
	SetBL func(ctx context.Context, code string)
	// TileSets are the tiled datasets of the OGC API - Tiles routes, each
	// served by its /v1 tile handler.
	TileSets []TileSet
}

type surface struct{ Env }

// maxCursorLen bounds the cursor parameter, as the data API's.
const maxCursorLen = 64

// maxSortedCursorLen bounds a sorted query's cursor, which holds the sort
// values of the last feature.
const maxSortedCursorLen = 1024

// round6 rounds v to 6 decimals, half away from zero.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// collectionParam is the collectionId path parameter, one component of
// the OpenAPI documents for every route that has it.
func collectionParam() httpapi.Param {
	return httpapi.Param{Name: "collectionId", In: "path", Type: "string", Required: true, Example: "surfaces", Component: "collectionId",
		Desc: "`buildings` (whole buildings), `surfaces`, `roofs` or `surfaces-<bl>`"}
}

// Routes are the surface's routes; the server puts them on its ogcAPI
// surface.
func Routes(env Env) []httpapi.Route {
	s := &surface{env}
	collP := collectionParam()
	crsP := httpapi.Param{Name: "crs", In: "query", Type: "string", Default: geo.CRS84.URI(), Parse: parseCRS, Component: "crs",
		Desc: "CRS of the answer's coordinates (a URI of the collection's `crs` list); default CRS84"}
	list := func(status int, schema, desc string) []httpapi.Response {
		return []httpapi.Response{{Status: status, Desc: desc, Schema: schema}, {Status: 400, Desc: "Malformed parameter", Schema: "Problem"}}
	}
	return append([]httpapi.Route{
		{Method: "GET", Path: "/ogc", OpID: "ogcLanding", Tag: Tag, Since: "0.2.0", Exempt: true,
			Summary: "OGC API landing page", Desc: Desc, Params: []httpapi.Param{ogcFormat()},
			Responses: list(200, "OGCLanding", "Links to the API description, conformance and collections"), Handle: s.handleOGCLanding},
		{Method: "GET", Path: "/ogc/conformance", OpID: "ogcConformance", Tag: Tag, Since: "0.2.0", Exempt: true,
			Summary: "Conformance classes of the OGC API", Params: []httpapi.Param{ogcFormat()},
			Responses: list(200, "OGCConformance", "Conformance classes"), Handle: s.handleOGCConformance},
		{Method: "GET", Path: "/ogc/api", OpID: "ogcAPI", Tag: Tag, Since: "0.2.0", Exempt: true,
			Summary:   "OpenAPI description of the OGC API",
			Desc:      "An OpenAPI 3.1 document of the /ogc operations only (the whole server is described at /openapi.json).",
			Responses: []httpapi.Response{{Status: 200, Desc: "OpenAPI document", Schema: "OpenAPIDocument", ContentType: "application/vnd.oai.openapi+json;version=3.1"}},
			Handle:    s.handleOGCAPI},
		{Method: "GET", Path: "/ogc/collections", OpID: "ogcCollections", Tag: Tag, Since: "0.2.0",
			Summary: "Feature collections", Params: []httpapi.Param{ogcFormat()},
			Responses: list(200, "OGCCollections", "The collections"), Handle: s.handleOGCCollections},
		{Method: "GET", Path: "/ogc/collections/{collectionId}", OpID: "ogcCollection", Tag: Tag, Since: "0.2.0",
			Summary: "One feature collection", Params: []httpapi.Param{collP, profileParam(), ogcFormat()},
			Responses: append(list(200, "OGCCollection", "The collection"), httpapi.Resp404), Handle: s.handleOGCCollection},
		{Method: "GET", Path: "/ogc/collections/{collectionId}/items", OpID: "ogcItems", Tag: Tag, Since: "0.2.0",
			Summary: "Features of a collection", Desc: Desc,
			Params: append([]httpapi.Param{collP,
				{Name: "bbox", In: "query", Type: "string", Example: "8.67,50.104,8.684,50.113", Component: "bbox", Desc: "minX,minY,maxX,maxY (or 6 numbers with heights, which are ignored) in `bbox-crs`"},
				{Name: "bbox-crs", In: "query", Type: "string", Default: geo.CRS84.URI(), Parse: parseCRS, Component: "bbox-crs", Desc: "CRS of bbox; default CRS84"},
				crsP,
				{Name: "limit", In: "query", Type: "integer", Default: DefaultLimit, Min: httpapi.F64(1), Max: httpapi.F64(MaxLimit), Clamp: true, Component: "limit",
					Desc: fmt.Sprintf("page size. A value above the maximum is not refused: the page then holds at most %d features "+
						"(a server-limited page, as OGC API - Features Part 1 describes limit; opengeospatial/ogcapi-features#640), "+
						"with a `next` link when more match.", MaxLimit)},
				{Name: "cursor", In: "query", Type: "string", Desc: "opaque position from the `next` link", Parse: decodeOGCCursor, Component: "cursor"},
				{Name: "datetime", In: "query", Type: "string", Component: "datetime", Desc: "instant or interval (RFC 3339, `..` open), compared with each BL's snapshot date", Parse: parseDatetime},
				{Name: "gmlid", In: "query", Type: "string", Pattern: `^\S+$`, Desc: "only the surfaces of this building"},
				{Name: "surface_class", In: "query", Type: "integer", Min: httpapi.F64(1), Desc: "only surfaces of this CityGML class code (709 wall, 710 ground, 712 roof)"},
				profileParam()},
				append(filterParams(), ogcFormat())...),
			Responses: []httpapi.Response{{Status: 200, Desc: "A page of features", Schema: "OGCFeatureCollection", ContentType: "application/geo+json", Headers: []string{"Content-Crs"}},
				{Status: 400, Desc: "Malformed parameter, unsupported CRS, or a cursor from replaced data", Schema: "Problem"}, httpapi.Resp404},
			Handle: s.handleOGCItems},
		{Method: "GET", Path: "/ogc/collections/" + collWhole + "/items", OpID: "ogcBuildingsItems", Tag: Tag, Since: "0.3.0",
			Summary: "Whole buildings", Desc: wholeDesc,
			Params: append(append([]httpapi.Param{
				{Name: "bbox", In: "query", Type: "string", Example: "8.67,50.104,8.684,50.113", Component: "bbox", Desc: "minX,minY,maxX,maxY (or 6 numbers with heights, which are ignored) in `bbox-crs`"},
				{Name: "bbox-crs", In: "query", Type: "string", Default: geo.CRS84.URI(), Parse: parseCRS, Component: "bbox-crs", Desc: "CRS of bbox; default CRS84"},
				crsP,
				{Name: "limit", In: "query", Type: "integer", Default: DefaultLimit, Min: httpapi.F64(1), Max: httpapi.F64(MaxLimit), Clamp: true, Component: "limit",
					Desc: fmt.Sprintf("page size. A value above the maximum is not refused: the page then holds at most %d features "+
						"(a server-limited page, as OGC API - Features Part 1 describes limit; opengeospatial/ogcapi-features#640), "+
						"with a `next` link when more match.", MaxLimit)},
				{Name: "cursor", In: "query", Type: "string", Desc: "opaque position from the `next` link", Parse: decodeOGCCursor, Component: "cursor"},
				{Name: "datetime", In: "query", Type: "string", Component: "datetime", Desc: "instant or interval (RFC 3339, `..` open), compared with each BL's snapshot date", Parse: parseDatetime},
				{Name: "gmlid", In: "query", Type: "string", Pattern: `^\S+$`, Desc: "only the building with this gml:id"},
				profileParam()},
				wholeParams()...), append(filterParams(), ogcFormat())...),
			Responses: []httpapi.Response{{Status: 200, Desc: "A page of buildings", Schema: "OGCFeatureCollection", ContentType: "application/geo+json", Headers: []string{"Content-Crs"}},
				{Status: 400, Desc: "Malformed parameter, unsupported CRS, or a cursor from replaced data", Schema: "Problem"}},
			Handle: s.handleOGCBuildingsItems},
		{Method: "GET", Path: "/ogc/collections/{collectionId}/queryables", OpID: "ogcQueryables", Tag: Tag, Since: "0.3.0",
			Summary: "Queryables of a collection", Desc: queryablesDesc, Params: []httpapi.Param{collP, ogcFormat()},
			Responses: []httpapi.Response{{Status: 200, Desc: "JSON Schema (2020-12) of the properties filter and sortby may use", Schema: "OGCQueryables", ContentType: "application/schema+json"},
				{Status: 400, Desc: "Malformed parameter", Schema: "Problem"}, httpapi.Resp404},
			Handle: s.handleOGCQueryables},
		{Method: "GET", Path: "/ogc/collections/{collectionId}/sortables", OpID: "ogcSortables", Tag: Tag, Since: "0.3.0",
			Summary: "Sortables of a collection", Desc: "The properties `sortby` may name: the queryables without the geometry, as a JSON Schema (2020-12).",
			Params: []httpapi.Param{collP, ogcFormat()},
			Responses: []httpapi.Response{{Status: 200, Desc: "JSON Schema (2020-12) of the properties sortby may use", Schema: "OGCQueryables", ContentType: "application/schema+json"},
				{Status: 400, Desc: "Malformed parameter", Schema: "Problem"}, httpapi.Resp404},
			Handle: s.handleOGCSortables},
		{Method: "GET", Path: "/ogc/collections/{collectionId}/items/{featureId}", OpID: "ogcItem", Tag: Tag, Since: "0.2.0",
			Summary: "One feature",
			Params: []httpapi.Param{collP, {Name: "featureId", In: "path", Type: "string", Required: true, Example: "he.1", Desc: "`<bl>.<surface_id>`; in `buildings` the building's gml:id"},
				crsP, profileParam(), ogcFormat()},
			Responses: []httpapi.Response{{Status: 200, Desc: "The feature", Schema: "OGCFeature", ContentType: "application/geo+json", Headers: []string{"Content-Crs"}},
				{Status: 400, Desc: "Malformed parameter or unsupported CRS", Schema: "Problem"}, httpapi.Resp404},
			Handle: s.handleOGCItem},
	}, s.tileRoutes()...)
}

// wantsHTML tells whether r asks for HTML: f=html, or no f and an Accept
// header that names text/html before any JSON type.
func wantsHTML(r *http.Request, in *httpapi.Input) bool {
	switch in.Str("f") {
	case "html":
		return true
	case "json":
		return false
	}
	acc := r.Header.Get("Accept")
	h := strings.Index(acc, "text/html")
	j := strings.Index(acc, "json")
	return h >= 0 && (j < 0 || h < j)
}

// ogcLink is one entry of a links array.
type ogcLink struct {
	Href  string `json:"href"`
	Rel   string `json:"rel"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title,omitempty"`
}

func (s *surface) ogcURL(path string, q url.Values) string {
	u := s.BaseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// selfLinks are the self and alternate links of a resource at path.
func (s *surface) selfLinks(path string, q url.Values, html bool, jsonType string) []ogcLink {
	jq, hq := url.Values{}, url.Values{}
	for k, v := range q {
		if k != "f" {
			jq[k], hq[k] = v, v
		}
	}
	jq.Set("f", "json")
	hq.Set("f", "html")
	j := ogcLink{Href: s.ogcURL(path, jq), Rel: "self", Type: jsonType, Title: "this document"}
	h := ogcLink{Href: s.ogcURL(path, hq), Rel: "alternate", Type: "text/html", Title: "this document as HTML"}
	if html {
		j.Rel, j.Title, h.Rel, h.Title = "alternate", "this document as JSON", "self", "this document"
		return []ogcLink{h, j}
	}
	return []ogcLink{j, h}
}

func (s *surface) handleOGCLanding(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	links := append(s.selfLinks("/ogc", nil, html, "application/json"),
		ogcLink{Href: s.BaseURL + "/ogc/api", Rel: "service-desc", Type: "application/vnd.oai.openapi+json;version=3.1", Title: "the API definition"},
		ogcLink{Href: s.BaseURL + "/docs", Rel: "service-doc", Type: "text/html", Title: "the API documentation"},
		ogcLink{Href: s.BaseURL + "/ogc/conformance", Rel: "conformance", Type: "application/json", Title: "conformance classes"},
		ogcLink{Href: s.BaseURL + "/ogc/collections", Rel: "data", Type: "application/json", Title: "the feature collections"})
	for _, sc := range tileScopes {
		if !sc.collection && len(s.tileSetsIn(sc, "")) > 0 {
			links = append(links, s.tilesetsLink(sc, ""))
		}
	}
	if len(s.TileSets) > 0 {
		links = append(links, ogcLink{Href: s.BaseURL + "/ogc/tileMatrixSets", Rel: relTilingSchemes, Type: "application/json", Title: "the tile matrix sets"})
	}
	body := map[string]any{"title": "svc geodata: OGC API - Features",
		"description": "LoD2 building surfaces of the German federal states published by this server.", "links": links}
	return s.ogcAnswer(w, r, html, "svc OGC API", body)
}

func (s *surface) handleOGCConformance(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	conf := ogcConformance
	if len(s.TileSets) > 0 {
		conf = append(slices.Clip(conf), tilesConformance...)
	}
	body := map[string]any{"conformsTo": conf}
	return s.ogcAnswer(w, r, html, "Conformance", body)
}

// openAPIType is the media type of the OpenAPI 3.1 document.
const openAPIType = "application/vnd.oai.openapi+json;version=3.1"

func (s *surface) handleOGCAPI(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	ct := openAPIType
	// A client that accepts JSON but names only other OpenAPI versions
	// (GDAL up to 3.6 asks for version=3.0 or application/json and refuses
	// any other type) gets the same document as application/json.
	if acc := r.Header.Get("Accept"); strings.Contains(acc, "application/json") && !strings.Contains(acc, "version=3.1") && !strings.Contains(acc, "*/*") {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(s.OpenAPI())
	return nil
}

// ogcCollection is one collection: what it holds in the current view.
type ogcCollection struct {
	id, title, desc string
	sources         []lod2store.Source
	snapshots       map[string]string // BL -> snapshot
	roofs           bool
	whole           bool // one feature per building (collWhole)
}

// ogcCollections lists the collections of view v, federated ones first.
// With only set, it builds just that collection (the items route needs one).
func ogcCollections(v *catalog.View, only string) []ogcCollection {
	var srcs []lod2store.Source
	snaps := map[string]string{}
	var per []ogcCollection
	for _, p := range v.LoD2() {
		src := lod2store.Source{BL: p.Manifest.BL, Pack: p.ID(), LoD2: p.LoD2}
		srcs = append(srcs, src)
		snaps[src.BL] = p.Manifest.Snapshot
		id := collBLPrefix + src.BL
		if only != "" && only != id {
			continue
		}
		per = append(per, ogcCollection{id: id, title: "LoD2 building surfaces, " + strings.ToUpper(src.BL),
			desc:    fmt.Sprintf("Every LoD2 surface of BL %s, snapshot %s (%s).", src.BL, p.Manifest.Snapshot, p.Manifest.AttributionText()),
			sources: []lod2store.Source{src}, snapshots: map[string]string{src.BL: p.Manifest.Snapshot}})
	}
	if only != "" && only != collSurfaces && only != collRoofs && only != collWhole {
		return per
	}
	slices.SortFunc(per, func(a, b ogcCollection) int { return strings.Compare(a.id, b.id) })
	return append([]ogcCollection{
		{id: collWhole, title: "LoD2 buildings", desc: "Every building of every published BL, one feature per building (its parts included): " +
			"the footprint (the ground surfaces, 2D) as geometry and the LoD2-DE attributes and derived measures as properties " +
			"(docs/buildings-attributes.md). The feature id is the building's gml:id. With profile=lod2 the geometry is every " +
			"LoD2 surface as a MultiPolygon Z, heights in DHHN2016 (EPSG:7837, normal heights as the states deliver them).",
			sources: srcs, snapshots: snaps, whole: true},
		{id: collSurfaces, title: "LoD2 building surfaces", desc: "Every LoD2 surface (wall, roof, ground) of every published BL, one feature per surface.",
			sources: srcs, snapshots: snaps},
		{id: collRoofs, title: "Roof surfaces", desc: "Roof surfaces of every published BL with tilt, azimuth (true north) and horizontal area; " +
			"for a surface of several polygons the area is their sum and tilt and azimuth are those of the largest polygon.",
			sources: srcs, snapshots: snaps, roofs: true},
	}, per...)
}

func findCollection(v *catalog.View, id string) (ogcCollection, error) {
	for _, c := range ogcCollections(v, id) {
		if c.id == id {
			return c, nil
		}
	}
	return ogcCollection{}, httpapi.Report(httpapi.ErrNotFound, "There is no collection %q; see /ogc/collections.", httpapi.Clip(id))
}

// collectionDoc is the JSON of one collection.
func (s *surface) collectionDoc(c ogcCollection, v *catalog.View, html bool, self bool) map[string]any {
	path := "/ogc/collections/" + c.id
	bbox := []float64{180, 90, -180, -90}
	var first, last string
	storage := ""
	for _, src := range c.sources {
		b := src.LoD2.BBox()
		bbox = []float64{math.Min(bbox[0], b.MinLon), math.Min(bbox[1], b.MinLat), math.Max(bbox[2], b.MaxLon), math.Max(bbox[3], b.MaxLat)}
		sn := c.snapshots[src.BL]
		if first == "" || sn < first {
			first = sn
		}
		if sn > last {
			last = sn
		}
		if len(c.sources) == 1 {
			storage = geo.CRS{EPSG: src.LoD2.EPSG()}.URI()
		}
	}
	for i := range bbox {
		bbox[i] = round6(bbox[i])
	}
	var crs []string
	for _, c := range geo.SupportedCRS {
		crs = append(crs, c.URI())
	}
	links := []ogcLink{}
	if self {
		links = s.selfLinks(path, nil, html, "application/json")
	} else {
		links = append(links, ogcLink{Href: s.ogcURL(path, nil), Rel: "self", Type: "application/json", Title: c.title})
	}
	links = append(links,
		ogcLink{Href: s.ogcURL(path+"/items", url.Values{"f": {"json"}}), Rel: "items", Type: "application/geo+json", Title: "the features"},
		ogcLink{Href: s.ogcURL(path+"/items", url.Values{"f": {"html"}}), Rel: "items", Type: "text/html", Title: "the features as HTML"},
		ogcLink{Href: s.ogcURL(path+"/queryables", nil), Rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables", Type: "application/schema+json", Title: "the properties filter may use"},
		ogcLink{Href: s.ogcURL(path+"/sortables", nil), Rel: "http://www.opengis.net/def/rel/ogc/1.0/sortables", Type: "application/schema+json", Title: "the properties sortby may use"})
	for _, sc := range tileScopes {
		if sc.collection && len(s.tileSetsIn(sc, c.id)) > 0 {
			links = append(links, s.tilesetsLink(sc, c.id))
		}
	}
	for _, src := range c.sources {
		if pk, ok := v.Pack(pack.LoD2, src.BL); ok {
			if l := bl.LicenseOf(pk.Manifest.LicenseID); l.URL != "" {
				links = append(links, ogcLink{Href: l.URL, Rel: "license", Title: src.BL + ": " + l.Label})
			}
		}
	}
	doc := map[string]any{"id": c.id, "title": c.title, "description": c.desc, "itemType": "feature", "crs": crs, "links": links}
	if len(c.sources) > 0 {
		doc["extent"] = map[string]any{
			"spatial": map[string]any{"bbox": [][]float64{bbox}, "crs": geo.CRS84.URI()},
			"temporal": map[string]any{"interval": [][]string{{first + "T00:00:00Z", last + "T00:00:00Z"}},
				"trs": "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian"}}
	}
	if storage != "" {
		doc["storageCrs"] = storage
	}
	return doc
}

func (s *surface) handleOGCCollections(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	v, release := s.Catalog.Acquire()
	defer release()
	var cols []map[string]any
	for _, c := range ogcCollections(v, "") {
		cols = append(cols, s.collectionDoc(c, v, html, false))
	}
	crs := []string{}
	for _, c := range geo.SupportedCRS {
		crs = append(crs, c.URI())
	}
	body := map[string]any{"links": s.selfLinks("/ogc/collections", nil, html, "application/json"), "collections": cols, "crs": crs}
	return s.ogcAnswer(w, r, html, "Collections", body)
}

func (s *surface) handleOGCCollection(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	v, release := s.Catalog.Acquire()
	defer release()
	c, err := findCollection(v, in.Str("collectionId"))
	if err != nil {
		return err
	}
	if err := refuseProfile(in, c); err != nil {
		return err
	}
	body := s.collectionDoc(c, v, html, true)
	if in.Has("profile") {
		profileItemsLinks(body, in.Str("profile"))
	}
	return s.ogcAnswer(w, r, html, c.title, body)
}

// ogcCursor is a paging position that also names the snapshot of its BL,
// so a page asked for after a reload can say the data changed.
type ogcCursor struct {
	lod2store.Position
	Snapshot string
	// sorted is the cursor of a sorted query (sortedCursor), as given.
	sorted string
	// whole is the cursor of the buildings collection, without its prefix.
	whole string
}

func (c ogcCursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.BL + "/" + c.Snapshot + "/" + strconv.FormatInt(c.SurfaceID, 10)))
}

func decodeOGCCursor(s string) (any, error) {
	bad := httpapi.SyntaxFault("is not one this server issued; follow the next link unchanged.")
	if c, ok := strings.CutPrefix(s, wholePrefix); ok {
		if c == "" || len(s) > maxWholeCursorLen {
			return nil, bad
		}
		return ogcCursor{whole: c}, nil
	}
	if strings.HasPrefix(s, sortedPrefix) {
		if _, ok := decodeSortedCursor(s); !ok || len(s) > maxSortedCursorLen {
			return nil, bad
		}
		return ogcCursor{sorted: s}, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > maxCursorLen {
		return nil, bad
	}
	parts := strings.Split(string(raw), "/")
	if len(parts) != 3 {
		return nil, bad
	}
	sid, ok := httpapi.DecimalInt(parts[2])
	if !ok || sid <= 0 || parts[0] == "" {
		return nil, bad
	}
	return ogcCursor{Position: lod2store.Position{BL: parts[0], SurfaceID: int64(sid)}, Snapshot: parts[1]}, nil
}

// itemsQuery is a parsed items request.
type itemsQuery struct {
	bbox     geo.BBox
	all      bool // no bbox
	crs      geo.CRS
	limit    int
	after    ogcCursor
	filter   lod2store.Filter
	datetime [2]string // inclusive date bounds, "" open
	hasTime  bool
}

// itemsQueryOf reads an items request from its declared parameters; bbox
// is read here, in the CRS bbox-crs names.
func itemsQueryOf(in *httpapi.Input, surfaces bool) (itemsQuery, error) {
	iq := itemsQuery{all: true, limit: in.Integer("limit"), crs: httpapi.ParsedAs[geo.CRS](in, "crs"),
		after: httpapi.ParsedAs[ogcCursor](in, "cursor")}
	if in.Has("bbox") {
		var err error
		if iq.bbox, err = parseOGCBBox(in.Str("bbox"), httpapi.ParsedAs[geo.CRS](in, "bbox-crs")); err != nil {
			return iq, err
		}
		iq.all = false
	} else if in.Has("bbox-crs") {
		return iq, httpapi.Report(httpapi.ErrMalformed, "Parameter bbox-crs needs a bbox.")
	}
	iq.filter.GMLID = in.Str("gmlid")
	if surfaces {
		iq.filter.Class = in.Integer("surface_class")
	}
	if in.Has("datetime") {
		iq.datetime, iq.hasTime = httpapi.ParsedAs[[2]string](in, "datetime"), true
	}
	return iq, nil
}

// parseCRS reads a CRS URI of geo.SupportedCRS.
func parseCRS(raw string) (any, error) {
	c, ok := geo.ParseCRS(raw)
	if !ok {
		var uris []string
		for _, c := range geo.SupportedCRS {
			uris = append(uris, c.URI())
		}
		return nil, httpapi.SyntaxFault("%q is not supported; supported are %s.", httpapi.Clip(raw), strings.Join(uris, ", "))
	}
	return c, nil
}

// parseOGCBBox reads 4 or 6 numbers in crs (heights ignored) and returns
// the WGS84 box enclosing them.
func parseOGCBBox(raw string, crs geo.CRS) (geo.BBox, error) {
	parts := strings.Split(raw, ",")
	if len(parts) != 4 && len(parts) != 6 {
		return geo.BBox{}, httpapi.Report(httpapi.ErrMalformed, "Parameter bbox must have 4 or 6 numbers, not %d.", len(parts))
	}
	nums := make([]float64, len(parts))
	for i, p := range parts {
		v, ok := geo.ParseDecimal(strings.TrimSpace(p))
		if !ok {
			return geo.BBox{}, httpapi.Report(httpapi.ErrMalformed, "Parameter bbox: %q is not a number.", httpapi.Clip(p))
		}
		nums[i] = v
	}
	if len(nums) == 6 {
		nums = []float64{nums[0], nums[1], nums[3], nums[4]}
	}
	if nums[0] > nums[2] || nums[1] > nums[3] {
		return geo.BBox{}, httpapi.Report(httpapi.ErrMalformed, "Parameter bbox must be lower corner then upper corner (minX,minY,maxX,maxY).")
	}
	b := crs.BBoxToWGS84(nums[0], nums[1], nums[2], nums[3])
	if !crs.Projected() && (b.MinLon < -180 || b.MaxLon > 180 || b.MinLat < -90 || b.MaxLat > 90) {
		return geo.BBox{}, httpapi.Report(httpapi.ErrMalformed, "Parameter bbox is outside longitude ±180, latitude ±90 (axis order of %s).", crs.URI())
	}
	if math.IsNaN(b.MinLon) || math.IsNaN(b.MinLat) || math.IsInf(b.MinLon, 0) {
		return geo.BBox{}, httpapi.Report(httpapi.ErrMalformed, "Parameter bbox cannot be converted to WGS84.")
	}
	b.MinLon, b.MaxLon = math.Max(b.MinLon, -180), math.Min(b.MaxLon, 180)
	b.MinLat, b.MaxLat = math.Max(b.MinLat, -90), math.Min(b.MaxLat, 90)
	return b, nil
}

// parseDatetime reads an RFC 3339 instant or interval into inclusive date
// bounds ("" for an open end).
func parseDatetime(raw string) (any, error) {
	day := func(s string) (string, error) {
		if s == ".." || s == "" {
			return "", nil
		}
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return t.Format("2006-01-02"), nil
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return "", httpapi.SyntaxFault("%q is not an RFC 3339 date or date-time.", httpapi.Clip(s))
		}
		return t.UTC().Format("2006-01-02"), nil
	}
	a, b, interval := strings.Cut(raw, "/")
	lo, err := day(a)
	if err != nil {
		return nil, err
	}
	if !interval {
		if lo == "" {
			return nil, httpapi.SyntaxFault("is an open instant (..); an instant needs a date.")
		}
		return [2]string{lo, lo}, nil
	}
	hi, err := day(b)
	if err != nil {
		return nil, err
	}
	if a == ".." && b == ".." || a == "" && b == "" {
		return nil, httpapi.SyntaxFault("is an interval without ends; give at least one.")
	}
	if lo != "" && hi != "" && lo > hi {
		return nil, httpapi.SyntaxFault("is an interval that ends before it starts.")
	}
	return [2]string{lo, hi}, nil
}

func (iq itemsQuery) admitsSnapshot(snap string) bool {
	if !iq.hasTime {
		return true
	}
	return (iq.datetime[0] == "" || snap >= iq.datetime[0]) && (iq.datetime[1] == "" || snap <= iq.datetime[1])
}

func (s *surface) handleOGCItems(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	iq, err := itemsQueryOf(in, true)
	if err != nil {
		return err
	}
	v, release := s.Catalog.Acquire()
	defer release()
	c, err := findCollection(v, in.Str("collectionId"))
	if err != nil {
		return err
	}
	var srcs []lod2store.Source
	for _, src := range c.sources {
		if iq.admitsSnapshot(c.snapshots[src.BL]) {
			srcs = append(srcs, src)
		}
	}
	if iq.after.BL != "" {
		snap, ok := c.snapshots[iq.after.BL]
		if !ok || snap != iq.after.Snapshot {
			return httpapi.Report(httpapi.ErrMalformed, "The data changed since this cursor was issued (BL %s was at snapshot %s, now %s); restart paging without a cursor.",
				iq.after.BL, iq.after.Snapshot, map[bool]string{true: snap, false: "not published"}[ok])
		}
	}
	if err := refuseProfile(in, c); err != nil {
		return err
	}
	if c.whole {
		return s.handleWholeItems(w, r, in, iq, c, html, true)
	}
	if iq.after.whole != "" {
		return httpapi.Report(httpapi.ErrMalformed, "Parameter cursor belongs to the %s collection; follow the next link unchanged.", collWhole)
	}
	flt, err := itemFilterOf(in, c)
	if err != nil {
		return err
	}
	if iq.after.sorted != "" && flt.sort == nil || iq.after.sorted == "" && iq.after.BL != "" && flt.sort != nil {
		return httpapi.Report(httpapi.ErrMalformed, "Parameter cursor belongs to a query with another sortby; follow the next link unchanged.")
	}
	f := iq.filter
	f.All = iq.all
	if c.roofs {
		if f.Class != 0 && f.Class != lod2store.ClassRoof {
			srcs = nil
		}
		f.Class = lod2store.ClassRoof
	}
	bbox := iq.bbox
	if env := flt.envelope; env != nil {
		// A spatial filter's envelope narrows the index search.
		if f.All {
			bbox, f.All = *env, false
		} else if bbox.Intersects(*env) {
			bbox = geo.BBox{MinLon: max(bbox.MinLon, env.MinLon), MinLat: max(bbox.MinLat, env.MinLat),
				MaxLon: min(bbox.MaxLon, env.MaxLon), MaxLat: min(bbox.MaxLat, env.MaxLat)}
		} else {
			srcs = nil
		}
	}
	res, err := s.search(r.Context(), searchQuery{srcs: srcs, snapshots: c.snapshots, bbox: bbox, store: f, roofs: c.roofs,
		limit: iq.limit, after: iq.after, flt: flt})
	if errors.Is(err, lod2store.ErrCursor) {
		return httpapi.Report(httpapi.ErrMalformed, "Parameter cursor does not belong to the current data; restart paging without a cursor.")
	}
	if err != nil {
		return err
	}
	defer res.release()
	if len(res.feats) > 0 {
		s.SetBL(r.Context(), res.feats[0].BL)
	}
	path := "/ogc/collections/" + c.id + "/items"
	q := in.Values()
	links := s.selfLinks(path, q, html, "application/geo+json")
	if res.next != "" {
		links = append(links, s.nextLink(path, q, res.next, html))
	}
	links = append(links, ogcLink{Href: s.ogcURL("/ogc/collections/"+c.id, nil), Rel: "collection", Type: "application/json", Title: c.title})
	matched := int64(-1)
	if iq.all && !iq.hasTime && iq.filter == (lod2store.Filter{}) && flt.expr == nil {
		matched = 0
		for _, src := range srcs {
			_, n := src.LoD2.Counts()
			if c.roofs {
				var known bool
				if n, known = src.LoD2.RoofCount(); !known {
					matched = -1 // a pack from before roof_count, still counting
					break
				}
			}
			matched += n
		}
	}
	w.Header().Set("Content-Crs", "<"+iq.crs.URI()+">")
	for _, wmsg := range s.DamagedWarnings(res.damaged) {
		// OGC has no place for warnings in a FeatureCollection: RFC 7234's
		// Warning header carries them (code 199, miscellaneous).
		w.Header().Add("Warning", `199 svc "`+strings.ReplaceAll(wmsg, `"`, "'")+`"`)
	}
	body, err := ogcItemsBody(srcs, res.feats, flt.form, iq.crs, links, matched)
	if err != nil {
		return err
	}
	defer httpapi.PutBuffer(body)
	if html {
		var doc map[string]any
		if err := json.Unmarshal(body.Bytes(), &doc); err != nil {
			return err
		}
		return s.writeOGCHTML(w, c.title, doc)
	}
	w.Header().Set("Content-Type", "application/geo+json")
	_, _ = w.Write(body.Bytes())
	return nil
}

// ogcItemsBody writes the FeatureCollection, its features in form.
func ogcItemsBody(srcs []lod2store.Source, feats []buildings.Feature, form *buildings.Form, crs geo.CRS, links []ogcLink, matched int64) (*bytes.Buffer, error) {
	b := httpapi.GetBuffer()
	b.Grow(512 + 1200*len(feats))
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i := range feats {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := form.Write(b, &feats[i], crs); err != nil {
			httpapi.PutBuffer(b)
			return nil, buildings.Damaged(sourceOf(srcs, feats[i].BL), err)
		}
	}
	b.WriteString(`],"numberReturned":` + strconv.Itoa(len(feats)))
	if matched >= 0 {
		b.WriteString(`,"numberMatched":` + strconv.FormatInt(matched, 10))
	}
	b.WriteString(`,"timeStamp":"` + time.Now().UTC().Format(time.RFC3339) + `","links":`)
	l, _ := json.Marshal(links)
	b.Write(l)
	b.WriteString("}\n")
	return b, nil
}

// sourceOf returns the source of BL code in srcs.
func sourceOf(srcs []lod2store.Source, code string) lod2store.Source {
	for _, s := range srcs {
		if s.BL == code {
			return s
		}
	}
	return lod2store.Source{BL: code}
}

func (s *surface) handleOGCItem(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	crs := httpapi.ParsedAs[geo.CRS](in, "crs")
	v, release := s.Catalog.Acquire()
	defer release()
	c, err := findCollection(v, in.Str("collectionId"))
	if err != nil {
		return err
	}
	if err := refuseProfile(in, c); err != nil {
		return err
	}
	fid := in.Str("featureId")
	if c.whole {
		return s.handleWholeItem(w, r, in, c, fid, crs, html)
	}
	blCode, sidText, _ := strings.Cut(fid, ".")
	sid, ok := httpapi.DecimalInt(sidText)
	src := sourceOf(c.sources, blCode)
	if !ok || src.LoD2 == nil {
		return httpapi.Report(httpapi.ErrNotFound, "Collection %s has no feature %q; ids are <bl>.<surface_id>.", c.id, httpapi.Clip(fid))
	}
	h, err := buildings.Surface(c.sources, blCode, int64(sid))
	if errors.Is(err, lod2store.ErrNotFound) || err == nil && c.roofs && h.Class != lod2store.ClassRoof {
		return httpapi.Report(httpapi.ErrNotFound, "Collection %s has no feature %q.", c.id, httpapi.Clip(fid))
	}
	if err != nil {
		return err
	}
	f, form := buildings.Feature{FedHit: h}, buildings.OGCSurface
	if c.roofs {
		rs, err := buildings.RoofSummaries(r.Context(), c.sources, []lod2store.FedHit{h})
		if err != nil {
			return err
		}
		f.Roof, form = rs[0], buildings.OGCRoof
	}
	s.SetBL(r.Context(), blCode)
	var b bytes.Buffer
	if err := form.Write(&b, &f, crs); err != nil {
		return buildings.Damaged(src, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		return err
	}
	path := "/ogc/collections/" + c.id + "/items/" + url.PathEscape(fid)
	doc["links"] = append(s.selfLinks(path, in.Values(), html, "application/geo+json"),
		ogcLink{Href: s.ogcURL("/ogc/collections/"+c.id, nil), Rel: "collection", Type: "application/json", Title: c.title})
	w.Header().Set("Content-Crs", "<"+crs.URI()+">")
	if html {
		return s.writeOGCHTML(w, "Feature "+fid, doc)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/geo+json")
	_, _ = w.Write(append(out, '\n'))
	return nil
}

// ogcAnswer writes an OGC JSON document, or its HTML page.
func (s *surface) ogcAnswer(w http.ResponseWriter, r *http.Request, html bool, title string, doc map[string]any) error {
	if html {
		return s.writeOGCHTML(w, title, doc)
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "", doc)
}

// nextLink is the link to the page after this one of an items answer: the
// request's query (filter, sortby, properties...) with the page's cursor,
// in the answer's own format.
func (s *surface) nextLink(path string, q url.Values, cursor string, html bool) ogcLink {
	nq := url.Values{}
	for k, v := range q {
		nq[k] = v
	}
	nq.Set("cursor", cursor)
	typ := "application/geo+json"
	if html {
		nq.Set("f", "html")
		typ = "text/html"
	} else if nq.Get("f") == "" {
		nq.Set("f", "json")
	}
	return ogcLink{Href: s.ogcURL(path, nq), Rel: "next", Type: typ, Title: "next page"}
}
