package httpapi

import (
	"net/http"
	"time"
)

// HandlerFunc is the shape of every API handler: it receives the declared
// parameters parsed and checked (ReadInput) and writes a success response
// or returns an error that the problem table renders.
type HandlerFunc func(w http.ResponseWriter, r *http.Request, in *Input) error

// Route is one operation: what ServeMux dispatches on and what the OpenAPI
// document says about it. The document is generated from the route table,
// so it cannot describe a route that does not exist.
type Route struct {
	Method    string
	Path      string // ServeMux form, e.g. /v1/buildings/{gmlid}
	Pattern   string // method and path, as ServeMux reports a match; set by New
	OpID      string
	Summary   string
	Desc      string
	Tag       string
	Stability string // stable or beta; New refuses an operation without it
	Since     string // version that introduced the route
	Params    []Param
	Body      *RequestBody
	Responses []Response
	// Surface is the API surface whose policy the route inherits
	// (policy.go); On sets it for each group of routes, a route
	// may name its own.
	Surface *Surface
	// Exempt routes do not count against the keyless daily limit (SPEC 8)
	// although their surface counts.
	Exempt bool
	// Lax routes admit query parameters they do not declare although their
	// surface is strict: the tileset files, served like the tile host's
	// (CesiumJS carries the query of a tileset.json onto its content URIs).
	Lax bool
	// Admin routes need the server's admin token, checked before anything
	// else; the OpenAPI security of the operation follows from it. Set from
	// the surface (adminAPI), never declared.
	Admin bool
	// AdminRaises marks a public route on which the admin token, when
	// sent, raises the route's limits (the GLB export): the OpenAPI
	// security lists no key, an API key and the admin token as
	// alternatives. The handler checks the token itself.
	AdminRaises bool
	Handle      HandlerFunc
	// Budget is the time the route may take; its request context carries
	// that deadline into search, sampling and GLB building, and a request
	// past it is answered 503 with Retry-After. 0: the surface's budget;
	// noBudget: none.
	Budget time.Duration
	// Hidden routes (the viewer's files, the redirect at /) are served but
	// not operations of the API: the OpenAPI document and /docs omit them.
	Hidden bool
}

// Param describes one query, path or header parameter.
type Param struct {
	Name     string
	In       string // query, path, header
	Type     string // string, integer, number, boolean
	Format   string
	Required bool
	Desc     string
	Default  any
	Min, Max *float64
	Enum     []string
	Pattern  string
	Example  any // for the docs page's example request (default: def)
	// Fold compares enum values without regard to case (srs=epsg:4326).
	Fold bool
	// Parse turns a structured string (bbox, coords, cursor, CRS) into its
	// value, returned by parsedAs; its error is a paramFault.
	Parse func(string) (any, error)
	// malformed is the kind of a value that does not parse as its type,
	// when not the default of paramErr; refuse, when set, is the kind of
	// every failure of the parameter.
	Malformed, Refuse error
	// Clamp takes a number above max as max instead of refusing it (the
	// OGC limit: a server-limited page as OGC API - Features Part 1 describes
	// it; opengeospatial/ogcapi-features#640).
	// Values below min and values that do not parse are still refused.
	Clamp bool
	// Component names the parameter in components.parameters of the
	// OpenAPI documents; operations refer to it with $ref (QGIS reads the
	// page size of an OGC API from components.parameters.limit alone).
	// Every declaration of one component must be the same.
	Component string
}

type RequestBody struct {
	Schema   string // components schema name
	Required bool
	Desc     string
}

// Response describes one status of an operation. schema names a component
// schema; contentType defaults to application/json (problem+json for >= 400).
type Response struct {
	Status      int
	Desc        string
	Schema      string
	ContentType string
	Headers     []string // names of components.headers
	// Problems are the problem types (slugs) an error response carries;
	// nil: every type the problem table gives its status.
	Problems []string
}

func F64(v float64) *float64 { return &v }

// Common problem responses, shared by many routes.
var (
	Resp400 = Response{Status: 400, Desc: "Malformed parameter", Schema: "Problem"}
	Resp404 = Response{Status: 404, Desc: "Not found", Schema: "Problem"}
	Resp422 = Response{Status: 422, Desc: "Parameter out of range or not allowed", Schema: "Problem"}
)

// Default time budgets: API answers are milliseconds, so 10 s means a
// stuck dependency; streaming the tile host and the viewer's files has none
// (large files on slow links; the server's write timeout bounds them).
const (
	DefaultBudget = 10 * time.Second
	LongBudget    = 2 * time.Minute // GLB exports, admin rescans
)

// TileIndexPattern admits the z and x of a tile address: non-negative
// decimal integers of at most 9 digits.
const TileIndexPattern = `^[0-9]{1,9}$`

// ExposedHeaders are readable by browser scripts on every cross-origin
// response: the ones any response may carry (Content-Length is safelisted
// by the Fetch standard). The GLB export adds its own (glbExposedHeaders),
// so ordinary answers do not carry a 600-byte list.
const ExposedHeaders = "X-Request-Id, X-Keyless-Remaining, Retry-After, ETag, X-Svc-Quota-Used, X-Svc-Quota-Limit, X-Svc-Quota-Exceeded"
