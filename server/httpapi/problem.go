package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/export"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/qmesh"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/state"
	"github.com/svc-geodata/svc/terrain"
)

// Problem is an RFC 9457 (formerly 7807) problem detail. Extension members
// are flattened into the JSON object.
type Problem struct {
	Type     string
	Title    string
	Status   int
	Detail   string
	Instance string
	Ext      map[string]any
}

// MarshalJSON writes the standard members first and then the extensions.
func (p Problem) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 5+len(p.Ext))
	for k, v := range p.Ext {
		m[k] = v
	}
	m["type"], m["title"], m["status"], m["detail"], m["instance"] = p.Type, p.Title, p.Status, p.Detail, p.Instance
	return json.Marshal(m)
}

// HTTPError is a problem ready to render: made only by toHTTPError from
// the problem table below, never by a handler.
type HTTPError struct {
	Status int
	Slug   string // last segment of the problem type URI
	Detail string
	Ext    map[string]any
	Header http.Header
	cause  error
}

func (e *HTTPError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Slug, e.Detail, e.cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Slug, e.Detail)
}

func (e *HTTPError) Unwrap() error { return e.cause }

// Kinds of failure the HTTP layer reports itself, for what no package
// has a sentinel of its own (a parameter the declaration does not admit, a
// body of the wrong type). Handlers and middleware report a kind with a
// detail written for the client (report); the problem table decides status
// and problem type.
var (
	ErrMalformed    = errors.New("malformed request")
	ErrInvalid      = errors.New("invalid parameter")
	ErrNotFound     = errors.New("not found")
	ErrMethod       = errors.New("method not allowed")
	ErrTooLarge     = errors.New("request too large")
	ErrMediaType    = errors.New("unsupported media type")
	ErrUnauthorized = errors.New("unauthorized")
	ErrForbidden    = errors.New("forbidden")
	ErrKeylessLimit = errors.New("keyless daily limit")
	ErrUnavailable  = errors.New("component unavailable")
	// ErrNotConfigured is a 503 for a feature the operator has not set up
	// (a serve flag not given): a configuration, not a fault, so the
	// server logs it below ERROR.
	ErrNotConfigured = errors.New("not configured")
	ErrRange         = errors.New("range not satisfiable")
	ErrPrecondition  = errors.New("precondition failed")
)

// Fault is a failure reported for the client: kind (one of the kinds above
// or a package's sentinel) selects the problem, detail, ext and header are
// what the client is told, cause is what the log keeps.
type Fault struct {
	kind   error
	detail string
	ext    map[string]any
	header http.Header
	cause  error
}

func (f *Fault) Error() string {
	if f.cause != nil {
		return f.kind.Error() + ": " + f.detail + ": " + f.cause.Error()
	}
	return f.kind.Error() + ": " + f.detail
}

func (f *Fault) Unwrap() []error {
	if f.cause == nil {
		return []error{f.kind}
	}
	return []error{f.kind, f.cause}
}

// Report makes a fault of kind with a detail for the client.
func Report(kind error, format string, args ...any) *Fault {
	return &Fault{kind: kind, detail: fmt.Sprintf(format, args...)}
}

// Because records the error behind f for the log.
func (f *Fault) Because(err error) *Fault { f.cause = err; return f }

// With adds extension members to the problem.
func (f *Fault) With(ext map[string]any) *Fault { f.ext = ext; return f }

// WithHeader adds a response header to the problem.
func (f *Fault) WithHeader(name, value string) *Fault {
	if f.header == nil {
		f.header = http.Header{}
	}
	f.header.Set(name, value)
	return f
}

// problemRow maps one kind of error to its status and problem type. detail
// is the client's text for an error that reaches the table without a
// fault, straight from a package: package messages name internals
// ("store: corrupt LoD2 file"), so they are never shown.
type problemRow struct {
	kind   error
	status int
	Slug   string
	detail func(err error) string
	header http.Header
}

// ProblemTable is the one place errors become statuses: the first row whose
// kind the error is (errors.Is) decides. Anything else is a 500 that
// reveals nothing of its cause.
var ProblemTable = []problemRow{
	{kind: ErrMalformed, status: http.StatusBadRequest, Slug: "bad-request"},
	{kind: lod2store.ErrCursor, status: http.StatusBadRequest, Slug: "bad-request",
		detail: fixed("Parameter cursor does not belong to the current data; restart the search without a cursor.")},
	{kind: ErrInvalid, status: http.StatusUnprocessableEntity, Slug: "validation-error"},
	{kind: export.ErrOptions, status: http.StatusUnprocessableEntity, Slug: "validation-error",
		detail: fixed("The export options are not valid together.")},
	{kind: access.ErrInvalid, status: http.StatusUnprocessableEntity, Slug: "validation-error",
		detail: fixed("A value of the request is not valid.")},
	{kind: ErrUnauthorized, status: http.StatusUnauthorized, Slug: "unauthorized"},
	{kind: ErrForbidden, status: http.StatusForbidden, Slug: "forbidden"},
	{kind: ErrNotFound, status: http.StatusNotFound, Slug: "not-found"},
	{kind: terrain.ErrOutside, status: http.StatusNotFound, Slug: "not-found",
		detail: fixed("No published dataset covers the requested place.")},
	{kind: terrain.ErrNoData, status: http.StatusNotFound, Slug: "not-found",
		detail: fixed("The raster holds no value at the requested place (NoData).")},
	{kind: access.ErrNotFound, status: http.StatusNotFound, Slug: "not-found", detail: fixed("No such API key.")},
	{kind: catalog.ErrNoTileset, status: http.StatusNotFound, Slug: "not-found", detail: fixed("No such tileset.")},
	{kind: lod2store.ErrNotFound, status: http.StatusNotFound, Slug: "not-found", detail: fixed("No such building.")},
	{kind: qmesh.ErrTile, status: http.StatusNotFound, Slug: "not-found",
		detail: fixed(fmt.Sprintf("No such quantized-mesh tile: levels 0 to %d, x below 2^(z+1), y below 2^z.", qmesh.MaxZoom))},
	{kind: hillshade.ErrTile, status: http.StatusNotFound, Slug: "not-found",
		detail: fixed("No such hillshade tile: x and y below 2^z.")},
	{kind: ErrMethod, status: http.StatusMethodNotAllowed, Slug: "method-not-allowed"},
	{kind: ErrTooLarge, status: http.StatusRequestEntityTooLarge, Slug: "payload-too-large"},
	{kind: glb.ErrTooLarge, status: http.StatusRequestEntityTooLarge, Slug: "payload-too-large",
		detail: fixed("The answer would hold more vertices than one GLB can; request a smaller bbox.")},
	{kind: ErrPrecondition, status: http.StatusPreconditionFailed, Slug: "precondition-failed"},
	{kind: ErrRange, status: http.StatusRequestedRangeNotSatisfiable, Slug: "range-not-satisfiable"},
	{kind: ErrMediaType, status: http.StatusUnsupportedMediaType, Slug: "unsupported-media"},
	{kind: ErrKeylessLimit, status: http.StatusTooManyRequests, Slug: "keyless-daily-limit"},
	{kind: access.ErrMintLimit, status: http.StatusTooManyRequests, Slug: "trial-mint-limit",
		detail: fixed("This IP address has minted the maximum number of trial keys in the last 24 hours.")},
	{kind: raster.ErrUnavailable, status: http.StatusBadGateway, Slug: "bad-gateway", detail: unavailableDetail},
	// Damage before the rest: a damaged tile met while answering is
	// reported as damage whatever else the answer ran into.
	{kind: raster.ErrCorrupt, status: http.StatusServiceUnavailable, Slug: "data-damaged", detail: damagedDetail,
		header: http.Header{"Retry-After": {"3600"}}},
	{kind: lod2store.ErrCorrupt, status: http.StatusServiceUnavailable, Slug: "data-damaged", detail: damagedDetail,
		header: http.Header{"Retry-After": {"3600"}}},
	{kind: state.ErrFull, status: http.StatusServiceUnavailable, Slug: "service-unavailable",
		detail: fixed("The server's key and usage store has no space left; nothing was written. Try again later."),
		header: http.Header{"Retry-After": {"60"}}},
	{kind: context.DeadlineExceeded, status: http.StatusServiceUnavailable, Slug: "service-unavailable",
		detail: fixed("The request took longer than this operation's time budget and was abandoned; try again shortly."),
		header: http.Header{"Retry-After": {"5"}}},
	{kind: ErrUnavailable, status: http.StatusServiceUnavailable, Slug: "service-unavailable"},
	{kind: ErrNotConfigured, status: http.StatusServiceUnavailable, Slug: "service-unavailable"},
}

// ProblemsOf returns the problem types (slugs) response r can carry: its
// own list, or every type the table gives its status.
func ProblemsOf(r Response) []string {
	if r.Problems != nil {
		return r.Problems
	}
	if r.Status == http.StatusInternalServerError {
		return []string{"internal-error"}
	}
	var out []string
	for _, row := range ProblemTable {
		if row.status == r.Status && !slices.Contains(out, row.Slug) {
			out = append(out, row.Slug)
		}
	}
	return out
}

func fixed(s string) func(error) string { return func(error) string { return s } }

func damagedDetail(err error) string {
	where := "a data file"
	var te *terrain.TileError
	if errors.As(err, &te) {
		where = "the data file of tile " + te.TileID
	}
	return "This answer needs " + where + ", which is damaged; the operator sees it in /v1/admin/health and /readyz " +
		"(svc verify names the file). Other data keeps being served."
}

func unavailableDetail(err error) string {
	var te *terrain.TileError
	if errors.As(err, &te) {
		return "The COG source of tile " + te.TileID + " could not be read; try again later."
	}
	return "A pass-through raster source could not be read; try again later."
}

// ProblemTypes maps the slug of each problem type to its title; the slug is
// appended to the configured errors base to form the type URI.
var ProblemTypes = map[string]struct {
	Title string
	Doc   string
}{
	"bad-request":             {"Bad Request", "A parameter is malformed: a bbox, coordinate list or cursor that cannot be parsed. The detail names the parameter and the expected form."},
	"validation-error":        {"Unprocessable Entity", "A parameter is well-formed but out of its allowed range or not one of its allowed values. The detail names the parameter and the range."},
	"not-found":               {"Not Found", "The route or the resource does not exist, or no published data covers the requested place."},
	"method-not-allowed":      {"Method Not Allowed", "The route exists but not for this HTTP method; the Allow header lists the methods it answers."},
	"payload-too-large":       {"Payload Too Large", "The request asks for more than the limit of the route allows (for example a GLB bbox over 1 km2)."},
	"unsupported-media":       {"Unsupported Media Type", "The request body is not of the media type the route accepts."},
	"unauthorized":            {"Unauthorized", "The API key or admin credential is missing, unknown, expired or revoked."},
	"forbidden":               {"Forbidden", "The operation is switched off on this server."},
	"keyless-daily-limit":     {"Too Many Requests", "The keyless daily request budget of this IP address is used up. It resets at 00:00 UTC; an API key lifts the limit."},
	"trial-mint-limit":        {"Too Many Requests", "This IP address has minted the maximum number of trial keys in the last 24 hours."},
	"internal-error":          {"Internal Server Error", "An unexpected error occurred. The response carries a request id (header X-Request-Id) to quote when reporting it; no internal detail is exposed."},
	"bad-gateway":             {"Bad Gateway", "An upstream data source (a pass-through raster source) could not be read."},
	"service-unavailable":     {"Service Unavailable", "A component the route needs is not available or switched off."},
	"gateway-timeout":         {"Gateway Timeout", "The request took longer than the server allows and was abandoned."},
	"header-fields-too-large": {"Request Header Fields Too Large", "The request headers are larger than the server reads (net/http's MaxHeaderBytes, 1 MB by default); the request was not read."},
	"not-implemented":         {"Not Implemented", "The request uses an HTTP feature this server does not implement, such as an unknown transfer encoding."},
	"range-not-satisfiable":   {"Range Not Satisfiable", "The Range header of a tile or file request lies outside the file; Content-Range names its size."},
	"precondition-failed":     {"Precondition Failed", "An If-Match or If-Unmodified-Since condition of the request does not hold for the current file."},
	"data-damaged":            {"Data Damaged", "A file the answer needs is damaged on disk; only the product and BL of that file are affected, and the operator is told (admin health, /readyz, svc verify)."},
}

// ToHTTPError maps any error to the problem it is rendered as, through
// problemTable.
func ToHTTPError(err error) *HTTPError {
	var f *Fault
	// A damaged file met on the way is reported as damage, whatever the
	// handler made of the failure: the operator must hear of it.
	if errors.As(err, &f) && !errors.Is(err, raster.ErrCorrupt) && !errors.Is(err, lod2store.ErrCorrupt) {
		for i := range ProblemTable {
			if row := &ProblemTable[i]; row.kind == f.kind {
				e := &HTTPError{Status: row.status, Slug: row.Slug, cause: err, Header: row.header, Detail: f.detail, Ext: f.ext}
				if f.header != nil {
					e.Header = f.header
				}
				return e
			}
		}
	}
	for i := range ProblemTable {
		if row := &ProblemTable[i]; errors.Is(err, row.kind) {
			e := &HTTPError{Status: row.status, Slug: row.Slug, cause: err, Header: row.header, Detail: http.StatusText(row.status) + "."}
			if row.detail != nil {
				e.Detail = row.detail(err)
			}
			return e
		}
	}
	return &HTTPError{Status: http.StatusInternalServerError, Slug: "internal-error",
		Detail: "An unexpected error occurred; quote the X-Request-Id header when reporting it.", cause: err}
}

// WriteProblem renders e for request r, answered under the policy of sf,
// with problem types below base (the server's {errors_base}). It is the
// only place problem responses are written.
func WriteProblem(w http.ResponseWriter, r *http.Request, e *HTTPError, base string, sf *Surface) {
	pt := ProblemTypes[e.Slug]
	p := Problem{
		Type:     base + "/" + e.Slug,
		Title:    pt.Title,
		Status:   e.Status,
		Detail:   e.Detail,
		Instance: r.URL.Path,
		Ext:      e.Ext,
	}
	if p.Title == "" {
		p.Title = http.StatusText(e.Status)
	}
	if sf.OpenTopoData {
		// opentopodata clients read the message from "error".
		p.Ext = maps.Clone(p.Ext)
		if p.Ext == nil {
			p.Ext = map[string]any{}
		}
		p.Ext["error"] = e.Detail
	}
	h := w.Header()
	for k, vs := range e.Header {
		h[k] = vs
	}
	if ra, ok := e.Ext["retry_after"].(int64); ok && h.Get("Retry-After") == "" {
		h.Set("Retry-After", strconv.FormatInt(ra, 10))
	}
	h.Del("Content-Length")
	h.Del("ETag")
	h.Del("Last-Modified")
	h.Del("Content-Encoding")
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(e.Status)
	if r.Method != http.MethodHead {
		_ = json.NewEncoder(w).Encode(p)
	}
}
