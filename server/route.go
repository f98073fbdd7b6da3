package server

import (
	"net/http"
	"time"
)

// handlerFunc is the shape of every API handler: it receives the declared
// parameters parsed and checked (readInput) and writes a success response
// or returns an error that the problem table renders.
type handlerFunc func(w http.ResponseWriter, r *http.Request, in *input) error

// route is one operation: what ServeMux dispatches on and what the OpenAPI
// document says about it. The document is generated from the route table,
// so it cannot describe a route that does not exist.
type route struct {
	method    string
	path      string // ServeMux form, e.g. /v1/buildings/{gmlid}
	pattern   string // method and path, as ServeMux reports a match; set by New
	opID      string
	summary   string
	desc      string
	tag       string
	stability string // stable or beta; New refuses an operation without it
	since     string // version that introduced the route
	params    []param
	body      *requestBody
	responses []response
	// surface is the API surface whose policy the route inherits
	// (surface.go); routeTable sets it for each group of routes, a route
	// may name its own.
	surface *surface
	// exempt routes do not count against the keyless daily limit (SPEC 8)
	// although their surface counts.
	exempt bool
	// lax routes admit query parameters they do not declare although their
	// surface is strict: the tileset files, served like the tile host's
	// (CesiumJS carries the query of a tileset.json onto its content URIs).
	lax bool
	// admin routes need the server's admin token, checked before anything
	// else; the OpenAPI security of the operation follows from it. Set from
	// the surface (adminAPI), never declared.
	admin  bool
	handle handlerFunc
	// budget is the time the route may take; its request context carries
	// that deadline into search, sampling and GLB building, and a request
	// past it is answered 503 with Retry-After. 0: the surface's budget;
	// noBudget: none.
	budget time.Duration
	// hidden routes (the viewer's files, the redirect at /) are served but
	// not operations of the API: the OpenAPI document and /docs omit them.
	hidden bool
}

// param describes one query, path or header parameter.
type param struct {
	name     string
	in       string // query, path, header
	typ      string // string, integer, number, boolean
	format   string
	required bool
	desc     string
	def      any
	min, max *float64
	enum     []string
	pattern  string
	example  any // for the docs page's example request (default: def)
	// fold compares enum values without regard to case (srs=epsg:4326).
	fold bool
	// parse turns a structured string (bbox, coords, cursor, CRS) into its
	// value, returned by parsedAs; its error is a paramFault.
	parse func(string) (any, error)
	// malformed is the kind of a value that does not parse as its type,
	// when not the default of paramErr; refuse, when set, is the kind of
	// every failure of the parameter.
	malformed, refuse error
	// clamp takes a number above max as max instead of refusing it (the
	// OGC limit: a server-limited page as OGC API - Features Part 1 describes
	// it; opengeospatial/ogcapi-features#640).
	// Values below min and values that do not parse are still refused.
	clamp bool
	// component names the parameter in components.parameters of the
	// OpenAPI documents; operations refer to it with $ref (QGIS reads the
	// page size of an OGC API from components.parameters.limit alone).
	// Every declaration of one component must be the same.
	component string
}

type requestBody struct {
	schema   string // components schema name
	required bool
	desc     string
}

// response describes one status of an operation. schema names a component
// schema; contentType defaults to application/json (problem+json for >= 400).
type response struct {
	status      int
	desc        string
	schema      string
	contentType string
	headers     []string // names of components.headers
	// problems are the problem types (slugs) an error response carries;
	// nil: every type the problem table gives its status.
	problems []string
}

func f64(v float64) *float64 { return &v }

// Common problem responses, shared by many routes.
var (
	resp400 = response{status: 400, desc: "Malformed parameter", schema: "Problem"}
	resp404 = response{status: 404, desc: "Not found", schema: "Problem"}
	resp422 = response{status: 422, desc: "Parameter out of range or not allowed", schema: "Problem"}
)

// Default time budgets: API answers are milliseconds, so 10 s means a
// stuck dependency; streaming the tile host and the viewer's files has none
// (large files on slow links; the server's write timeout bounds them).
const (
	defaultBudget = 10 * time.Second
	longBudget    = 2 * time.Minute // GLB exports, admin rescans
)
