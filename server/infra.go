package server

import (
	"fmt"
	"html"
	"net/http"

	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/static"
)

func (s *Server) infraRoutes() []httpapi.Route {
	return []httpapi.Route{
		{Method: "GET", Path: "/healthz", OpID: "getHealthz", Tag: "Service", Stability: "stable", Since: "0.1.0", Exempt: true,
			Summary:   "Liveness probe",
			Desc:      "Answers 200 with status `ok` while the process runs. Not counted against any limit.",
			Responses: []httpapi.Response{{Status: 200, Desc: "The process is alive", Schema: "Healthz"}},
			Handle: func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
				h := w.Header()
				h["Content-Type"], h["Cache-Control"] = hdrJSON, hdrNoStore
				w.WriteHeader(http.StatusOK)
				if r.Method != http.MethodHead {
					_, _ = w.Write(healthzBody)
				}
				return nil
			}},
		{Method: "GET", Path: "/openapi.json", OpID: "getOpenAPI", Tag: "Service", Stability: "stable", Since: "0.1.0", Exempt: true,
			Summary:   "This OpenAPI 3.1 description",
			Responses: []httpapi.Response{{Status: 200, Desc: "The OpenAPI document", Schema: "OpenAPIDocument"}},
			Handle: func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Cache-Control", "public, max-age=300")
				_, _ = w.Write(s.openapi)
				return nil
			}},
		{Method: "GET", Path: "/docs", OpID: "getDocs", Tag: "Service", Stability: "stable", Since: "0.1.0", Exempt: true,
			Summary:   "Human-readable API documentation (HTML, rendered from the OpenAPI document; works offline)",
			Responses: []httpapi.Response{{Status: 200, Desc: "HTML page", ContentType: "text/html"}},
			Handle: func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
				s.docs.ServeHTTP(w, r)
				return nil
			}},
		{Method: "GET", Path: "/metrics", OpID: "getMetrics", Tag: "Service", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary:   "Prometheus metrics (text exposition format 0.0.4)",
			Responses: []httpapi.Response{{Status: 200, Desc: "Metrics", ContentType: "text/plain"}},
			Handle:    s.handleMetrics},
		{Method: "GET", Path: "/problems/{type}", OpID: "getProblemType", Tag: "Service", Stability: "stable", Since: "0.1.0", Exempt: true,
			Summary:   "Description of a problem type URI",
			Desc:      "Every problem response's `type` is `{errors_base}/<name>`; with the default errors base these URIs resolve here to a short HTML description.",
			Params:    []httpapi.Param{{Name: "type", In: "path", Type: "string", Required: true, Example: "keyless-daily-limit", Desc: "Problem type name, e.g. `keyless-daily-limit`"}},
			Responses: []httpapi.Response{{Status: 200, Desc: "HTML description", ContentType: "text/html"}, httpapi.Resp404},
			Handle:    s.handleProblemType},
		s.tileRoute(),
	}
}

func (s *Server) handleProblemType(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	name := in.Str("type")
	pt, ok := httpapi.ProblemTypes[name]
	if !ok {
		return httpapi.Report(httpapi.ErrNotFound, "Unknown problem type %q.", name)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	fmt.Fprintf(w, "<!doctype html><html lang=en><head><meta charset=utf-8><title>%s</title></head><body><h1>%s</h1><p><code>%s</code></p><p>%s</p><p><a href=\"%s\">API documentation</a></p></body></html>\n",
		html.EscapeString(pt.Title), html.EscapeString(pt.Title), html.EscapeString(s.cfg.ErrorsBase+"/"+name),
		html.EscapeString(pt.Doc), html.EscapeString(s.cfg.DocsURL))
	return nil
}

// healthzBody is the liveness answer, made once.
var healthzBody = []byte(`{"service":"svc","status":"ok"}` + "\n")

// staticEnv is what the static site needs of the server.
func (s *Server) staticEnv() static.Env {
	return static.Env{Catalog: s.deps.Catalog, PublicSourceURL: s.cfg.PublicSourceURL, Fail: s.fail, WriteProblem: s.writeProblem}
}

// tileRoute is the tile host's route, listed among the infrastructure
// routes but on the static site's surface.
func (s *Server) tileRoute() httpapi.Route {
	rt := static.TileRoute(s.staticEnv())
	rt.Surface = staticSite
	return rt
}
