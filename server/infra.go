package server

import (
	"fmt"
	"html"
	"net/http"
	"sort"
)

func (s *Server) infraRoutes() []route {
	return []route{
		{method: "GET", path: "/healthz", opID: "getHealthz", tag: "Service", stability: "stable", since: "0.1.0", exempt: true,
			summary:   "Liveness probe",
			desc:      "Answers 200 with status `ok` while the process runs. Not counted against any limit.",
			responses: []response{{status: 200, desc: "The process is alive", schema: "Healthz"}},
			handle: func(w http.ResponseWriter, r *http.Request, in *input) error {
				h := w.Header()
				h["Content-Type"], h["Cache-Control"] = hdrJSON, hdrNoStore
				w.WriteHeader(http.StatusOK)
				if r.Method != http.MethodHead {
					_, _ = w.Write(healthzBody)
				}
				return nil
			}},
		{method: "GET", path: "/openapi.json", opID: "getOpenAPI", tag: "Service", stability: "stable", since: "0.1.0", exempt: true,
			summary:   "This OpenAPI 3.1 description",
			responses: []response{{status: 200, desc: "The OpenAPI document", schema: "OpenAPIDocument"}},
			handle: func(w http.ResponseWriter, r *http.Request, in *input) error {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Cache-Control", "public, max-age=300")
				_, _ = w.Write(s.openapi)
				return nil
			}},
		{method: "GET", path: "/docs", opID: "getDocs", tag: "Service", stability: "stable", since: "0.1.0", exempt: true,
			summary:   "Human-readable API documentation (HTML, rendered from the OpenAPI document; works offline)",
			responses: []response{{status: 200, desc: "HTML page", contentType: "text/html"}},
			handle:    s.handleDocs},
		{method: "GET", path: "/metrics", opID: "getMetrics", tag: "Service", stability: "beta", since: "0.1.0", exempt: true,
			summary:   "Prometheus metrics (text exposition format 0.0.4)",
			responses: []response{{status: 200, desc: "Metrics", contentType: "text/plain"}},
			handle:    s.handleMetrics},
		{method: "GET", path: "/problems/{type}", opID: "getProblemType", tag: "Service", stability: "stable", since: "0.1.0", exempt: true,
			summary:   "Description of a problem type URI",
			desc:      "Every problem response's `type` is `{errors_base}/<name>`; with the default errors base these URIs resolve here to a short HTML description.",
			params:    []param{{name: "type", in: "path", typ: "string", required: true, example: "keyless-daily-limit", desc: "Problem type name, e.g. `keyless-daily-limit`"}},
			responses: []response{{status: 200, desc: "HTML description", contentType: "text/html"}, resp404},
			handle:    s.handleProblemType},
		{method: "GET", path: "/tiles/{path...}", opID: "getTile", tag: "Tiles", stability: "stable", since: "0.1.0", exempt: true, surface: staticSite,
			summary: "Static tile host: 3D Tiles, GLB/b3dm tiles and COGs of published packs",
			desc: "Serves `{tiles_url}/<product>/<bl>/<snapshot>/<file>` for the products terrain, terrain-mesh, osm-cover, veg and buildings. " +
				"Supports byte ranges (COG reading), ETag/Last-Modified conditional requests, and gzip for JSON. No directory listings; " +
				"only files of published snapshots are served. Not counted against the keyless limit.",
			params: []param{{name: "path", in: "path", typ: "string", required: true, example: "buildings/he/2026-07-20/tileset.json", desc: "`<product>/<bl>/<snapshot>/<file>`"}},
			responses: []response{
				{status: 200, desc: "The file", contentType: "application/octet-stream"},
				{status: 206, desc: "A byte range of the file", contentType: "application/octet-stream"},
				{status: 304, desc: "Not modified"},
				{status: 416, desc: "Range not satisfiable"},
				resp404,
			},
			handle: s.handleTiles},
	}
}

func (s *Server) handleProblemType(w http.ResponseWriter, r *http.Request, in *input) error {
	name := in.str("type")
	pt, ok := problemTypes[name]
	if !ok {
		return report(errNotFound, "Unknown problem type %q.", name)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	fmt.Fprintf(w, "<!doctype html><html lang=en><head><meta charset=utf-8><title>%s</title></head><body><h1>%s</h1><p><code>%s</code></p><p>%s</p><p><a href=\"%s\">API documentation</a></p></body></html>\n",
		html.EscapeString(pt.title), html.EscapeString(pt.title), html.EscapeString(s.cfg.ErrorsBase+"/"+name),
		html.EscapeString(pt.doc), html.EscapeString(s.cfg.DocsURL))
	return nil
}

// problemSlugs lists the problem type names, sorted, for the documentation.
func problemSlugs() []string {
	out := make([]string, 0, len(problemTypes))
	for k := range problemTypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }

// healthzBody is the liveness answer, made once.
var healthzBody = []byte(`{"service":"svc","status":"ok"}` + "\n")
