package server

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

// httpError is a problem ready to render: made only by toHTTPError from
// the problem table below, never by a handler.
type httpError struct {
	status int
	slug   string // last segment of the problem type URI
	detail string
	ext    map[string]any
	header http.Header
	cause  error
}

func (e *httpError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.status, e.slug, e.detail, e.cause)
	}
	return fmt.Sprintf("%d %s: %s", e.status, e.slug, e.detail)
}

func (e *httpError) Unwrap() error { return e.cause }

// Kinds of failure the HTTP layer reports itself, for what no package
// has a sentinel of its own (a parameter the declaration does not admit, a
// body of the wrong type). Handlers and middleware report a kind with a
// detail written for the client (report); the problem table decides status
// and problem type.
var (
	errMalformed    = errors.New("malformed request")
	errInvalid      = errors.New("invalid parameter")
	errNotFound     = errors.New("not found")
	errMethod       = errors.New("method not allowed")
	errTooLarge     = errors.New("request too large")
	errMediaType    = errors.New("unsupported media type")
	errUnauthorized = errors.New("unauthorized")
	errForbidden    = errors.New("forbidden")
	errKeylessLimit = errors.New("keyless daily limit")
	errUnavailable  = errors.New("component unavailable")
	errRange        = errors.New("range not satisfiable")
	errPrecondition = errors.New("precondition failed")
)

// fault is a failure reported for the client: kind (one of the kinds above
// or a package's sentinel) selects the problem, detail, ext and header are
// what the client is told, cause is what the log keeps.
type fault struct {
	kind   error
	detail string
	ext    map[string]any
	header http.Header
	cause  error
}

func (f *fault) Error() string {
	if f.cause != nil {
		return f.kind.Error() + ": " + f.detail + ": " + f.cause.Error()
	}
	return f.kind.Error() + ": " + f.detail
}

func (f *fault) Unwrap() []error {
	if f.cause == nil {
		return []error{f.kind}
	}
	return []error{f.kind, f.cause}
}

// report makes a fault of kind with a detail for the client.
func report(kind error, format string, args ...any) *fault {
	return &fault{kind: kind, detail: fmt.Sprintf(format, args...)}
}

// because records the error behind f for the log.
func (f *fault) because(err error) *fault { f.cause = err; return f }

// with adds extension members to the problem.
func (f *fault) with(ext map[string]any) *fault { f.ext = ext; return f }

// withHeader adds a response header to the problem.
func (f *fault) withHeader(name, value string) *fault {
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
	slug   string
	detail func(err error) string
	header http.Header
}

// problemTable is the one place errors become statuses: the first row whose
// kind the error is (errors.Is) decides. Anything else is a 500 that
// reveals nothing of its cause.
var problemTable = []problemRow{
	{kind: errMalformed, status: http.StatusBadRequest, slug: "bad-request"},
	{kind: lod2store.ErrCursor, status: http.StatusBadRequest, slug: "bad-request",
		detail: fixed("Parameter cursor does not belong to the current data; restart the search without a cursor.")},
	{kind: errInvalid, status: http.StatusUnprocessableEntity, slug: "validation-error"},
	{kind: export.ErrOptions, status: http.StatusUnprocessableEntity, slug: "validation-error",
		detail: fixed("The export options are not valid together.")},
	{kind: access.ErrInvalid, status: http.StatusUnprocessableEntity, slug: "validation-error",
		detail: fixed("A value of the request is not valid.")},
	{kind: errUnauthorized, status: http.StatusUnauthorized, slug: "unauthorized"},
	{kind: errForbidden, status: http.StatusForbidden, slug: "forbidden"},
	{kind: errNotFound, status: http.StatusNotFound, slug: "not-found"},
	{kind: terrain.ErrOutside, status: http.StatusNotFound, slug: "not-found",
		detail: fixed("No published dataset covers the requested place.")},
	{kind: terrain.ErrNoData, status: http.StatusNotFound, slug: "not-found",
		detail: fixed("The raster holds no value at the requested place (NoData).")},
	{kind: access.ErrNotFound, status: http.StatusNotFound, slug: "not-found", detail: fixed("No such API key.")},
	{kind: catalog.ErrNoTileset, status: http.StatusNotFound, slug: "not-found", detail: fixed("No such tileset.")},
	{kind: lod2store.ErrNotFound, status: http.StatusNotFound, slug: "not-found", detail: fixed("No such building.")},
	{kind: qmesh.ErrTile, status: http.StatusNotFound, slug: "not-found",
		detail: fixed(fmt.Sprintf("No such quantized-mesh tile: levels 0 to %d, x below 2^(z+1), y below 2^z.", qmesh.MaxZoom))},
	{kind: hillshade.ErrTile, status: http.StatusNotFound, slug: "not-found",
		detail: fixed("No such hillshade tile: x and y below 2^z.")},
	{kind: errMethod, status: http.StatusMethodNotAllowed, slug: "method-not-allowed"},
	{kind: errTooLarge, status: http.StatusRequestEntityTooLarge, slug: "payload-too-large"},
	{kind: glb.ErrTooLarge, status: http.StatusRequestEntityTooLarge, slug: "payload-too-large",
		detail: fixed("The answer would hold more vertices than one GLB can; request a smaller bbox.")},
	{kind: errPrecondition, status: http.StatusPreconditionFailed, slug: "precondition-failed"},
	{kind: errRange, status: http.StatusRequestedRangeNotSatisfiable, slug: "range-not-satisfiable"},
	{kind: errMediaType, status: http.StatusUnsupportedMediaType, slug: "unsupported-media"},
	{kind: errKeylessLimit, status: http.StatusTooManyRequests, slug: "keyless-daily-limit"},
	{kind: access.ErrMintLimit, status: http.StatusTooManyRequests, slug: "trial-mint-limit",
		detail: fixed("This IP address has minted the maximum number of trial keys in the last 24 hours.")},
	{kind: raster.ErrUnavailable, status: http.StatusBadGateway, slug: "bad-gateway", detail: unavailableDetail},
	// Damage before the rest: a damaged tile met while answering is
	// reported as damage whatever else the answer ran into.
	{kind: raster.ErrCorrupt, status: http.StatusServiceUnavailable, slug: "data-damaged", detail: damagedDetail,
		header: http.Header{"Retry-After": {"3600"}}},
	{kind: lod2store.ErrCorrupt, status: http.StatusServiceUnavailable, slug: "data-damaged", detail: damagedDetail,
		header: http.Header{"Retry-After": {"3600"}}},
	{kind: state.ErrFull, status: http.StatusServiceUnavailable, slug: "service-unavailable",
		detail: fixed("The server's key and usage store has no space left; nothing was written. Try again later."),
		header: http.Header{"Retry-After": {"60"}}},
	{kind: context.DeadlineExceeded, status: http.StatusServiceUnavailable, slug: "service-unavailable",
		detail: fixed("The request took longer than this operation's time budget and was abandoned; try again shortly."),
		header: http.Header{"Retry-After": {"5"}}},
	{kind: errUnavailable, status: http.StatusServiceUnavailable, slug: "service-unavailable"},
}

// problemsOf returns the problem types (slugs) response r can carry: its
// own list, or every type the table gives its status.
func problemsOf(r response) []string {
	if r.problems != nil {
		return r.problems
	}
	if r.status == http.StatusInternalServerError {
		return []string{"internal-error"}
	}
	var out []string
	for _, row := range problemTable {
		if row.status == r.status && !slices.Contains(out, row.slug) {
			out = append(out, row.slug)
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

// problemTypes maps the slug of each problem type to its title; the slug is
// appended to the configured errors base to form the type URI.
var problemTypes = map[string]struct {
	title string
	doc   string
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

// toHTTPError maps any error to the problem it is rendered as, through
// problemTable.
func toHTTPError(err error) *httpError {
	var f *fault
	// A damaged file met on the way is reported as damage, whatever the
	// handler made of the failure: the operator must hear of it.
	if errors.As(err, &f) && !errors.Is(err, raster.ErrCorrupt) && !errors.Is(err, lod2store.ErrCorrupt) {
		for i := range problemTable {
			if row := &problemTable[i]; row.kind == f.kind {
				e := &httpError{status: row.status, slug: row.slug, cause: err, header: row.header, detail: f.detail, ext: f.ext}
				if f.header != nil {
					e.header = f.header
				}
				return e
			}
		}
	}
	for i := range problemTable {
		if row := &problemTable[i]; errors.Is(err, row.kind) {
			e := &httpError{status: row.status, slug: row.slug, cause: err, header: row.header, detail: http.StatusText(row.status) + "."}
			if row.detail != nil {
				e.detail = row.detail(err)
			}
			return e
		}
	}
	return &httpError{status: http.StatusInternalServerError, slug: "internal-error",
		detail: "An unexpected error occurred; quote the X-Request-Id header when reporting it.", cause: err}
}

// writeProblem renders e for request r. It is the only place problem
// responses are written.
func (s *Server) writeProblem(w http.ResponseWriter, r *http.Request, e *httpError) {
	pt := problemTypes[e.slug]
	p := Problem{
		Type:     s.cfg.ErrorsBase + "/" + e.slug,
		Title:    pt.title,
		Status:   e.status,
		Detail:   e.detail,
		Instance: r.URL.Path,
		Ext:      e.ext,
	}
	if p.Title == "" {
		p.Title = http.StatusText(e.status)
	}
	if s.surfaceOf(r).openTopoData {
		// opentopodata clients read the message from "error".
		p.Ext = maps.Clone(p.Ext)
		if p.Ext == nil {
			p.Ext = map[string]any{}
		}
		p.Ext["error"] = e.detail
	}
	h := w.Header()
	for k, vs := range e.header {
		h[k] = vs
	}
	if ra, ok := e.ext["retry_after"].(int64); ok && h.Get("Retry-After") == "" {
		h.Set("Retry-After", strconv.FormatInt(ra, 10))
	}
	h.Del("Content-Length")
	h.Del("ETag")
	h.Del("Last-Modified")
	h.Del("Content-Encoding")
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_ = json.NewEncoder(w).Encode(p)
	}
}
