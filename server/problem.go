package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/store"
	"github.com/svc-geodata/svc/store/state"
	"github.com/svc-geodata/svc/terrain"
	"maps"
	"net/http"
	"strconv"
	"strings"
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

// httpError is the one error value handlers return for client-visible
// failures. Domain sentinels from other packages are translated into it by
// toHTTPError.
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

// problemTypes maps the slug of each problem type to its title; the slug is
// appended to the configured errors base to form the type URI.
var problemTypes = map[string]struct {
	title string
	doc   string
}{
	"bad-request":         {"Bad Request", "A parameter is malformed: a bbox, coordinate list or cursor that cannot be parsed. The detail names the parameter and the expected form."},
	"validation-error":    {"Unprocessable Entity", "A parameter is well-formed but out of its allowed range or not one of its allowed values. The detail names the parameter and the range."},
	"not-found":           {"Not Found", "The route or the resource does not exist, or no published data covers the requested place."},
	"method-not-allowed":  {"Method Not Allowed", "The route exists but not for this HTTP method; the Allow header lists the methods it answers."},
	"payload-too-large":   {"Payload Too Large", "The request asks for more than the limit of the route allows (for example a GLB bbox over 1 km2)."},
	"unsupported-media":   {"Unsupported Media Type", "The request body is not of the media type the route accepts."},
	"unauthorized":        {"Unauthorized", "The API key or admin credential is missing, unknown, expired or revoked."},
	"forbidden":           {"Forbidden", "The operation is switched off on this server."},
	"keyless-daily-limit": {"Too Many Requests", "The keyless daily request budget of this IP address is used up. It resets at 00:00 UTC; an API key lifts the limit."},
	"trial-mint-limit":    {"Too Many Requests", "This IP address has minted the maximum number of trial keys in the last 24 hours."},
	"internal-error":      {"Internal Server Error", "An unexpected error occurred. The response carries a request id (header X-Request-Id) to quote when reporting it; no internal detail is exposed."},
	"bad-gateway":         {"Bad Gateway", "An upstream data source (a pass-through raster source) could not be read."},
	"service-unavailable": {"Service Unavailable", "A component the route needs is not available or switched off."},
	"gateway-timeout":     {"Gateway Timeout", "The request took longer than the server allows and was abandoned."},
	"data-damaged":        {"Data Damaged", "A file the answer needs is damaged on disk; only the product and BL of that file are affected, and the operator is told (admin health, /readyz, svc verify)."},
}

func errf(status int, slug, format string, args ...any) *httpError {
	return &httpError{status: status, slug: slug, detail: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *httpError {
	return errf(http.StatusBadRequest, "bad-request", format, args...)
}

func invalid(format string, args ...any) *httpError {
	return errf(http.StatusUnprocessableEntity, "validation-error", format, args...)
}

func notFound(format string, args ...any) *httpError {
	return errf(http.StatusNotFound, "not-found", format, args...)
}

// toHTTPError maps any error to the problem it is rendered as. Unknown
// errors become a generic 500 that reveals nothing of the cause.
func toHTTPError(err error) *httpError {
	var he *httpError
	switch {
	case errors.As(err, &he):
		return he
	case errors.Is(err, raster.ErrCorrupt) || errors.Is(err, store.ErrCorrupt):
		where := "a data file"
		var te *terrain.TileError
		if errors.As(err, &te) {
			where = "the data file of tile " + te.TileID
		}
		return &httpError{status: http.StatusServiceUnavailable, slug: "data-damaged", cause: err,
			detail: "This answer needs " + where + ", which is damaged; the operator sees it in /v1/admin/health and /readyz " +
				"(svc verify names the file). Other data keeps being served.",
			header: http.Header{"Retry-After": {"3600"}}}
	case errors.Is(err, state.ErrFull):
		return &httpError{status: http.StatusServiceUnavailable, slug: "service-unavailable", cause: err,
			detail: "The server's key and usage store has no space left; nothing was written. Try again later.",
			header: http.Header{"Retry-After": {"60"}}}
	case errors.Is(err, context.DeadlineExceeded):
		return &httpError{status: http.StatusServiceUnavailable, slug: "service-unavailable", cause: err,
			detail: "The request took longer than this operation's time budget and was abandoned; try again shortly.",
			header: http.Header{"Retry-After": {"5"}}}
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
	if strings.HasPrefix(r.URL.Path, "/opentopodata/") {
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
