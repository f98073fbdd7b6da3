package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/keysadmin"
	"github.com/svc-geodata/svc/server/ogcapi"
)

// APIVersion is the version of the interface this build implements
// (SPEC 9: info.version of the OpenAPI document).
const APIVersion = "0.1.0"

type obj = map[string]any

// buildOpenAPI renders the OpenAPI 3.1 document from the route table and the
// component schemas, so the document lists exactly the routes that exist.
func (s *Server) buildOpenAPI() ([]byte, error) {
	return s.openAPIOf(func(rt *httpapi.Route) bool { return true }, "svc geodata API",
		"German open geodata per federal state: LoD2 buildings, DGM1 terrain, canopy height, 3D Tiles.", apiDescription)
}

// buildOGCOpenAPI is the document of the OGC API layer alone (/ogc/api).
func (s *Server) buildOGCOpenAPI() ([]byte, error) {
	return s.openAPIOf(func(rt *httpapi.Route) bool { return rt.Surface == ogcAPI },
		"svc geodata: OGC API - Features", "LoD2 building surfaces as OGC API - Features collections.", ogcapi.Desc)
}

// openAPIOf renders the routes keep admits.
func (s *Server) openAPIOf(keep func(*httpapi.Route) bool, title, summary, desc string) ([]byte, error) {
	paths := obj{}
	used := map[string]bool{}
	params := obj{} // components.parameters
	for i := range s.routes {
		rt := s.routes[i]
		if rt.Hidden || !keep(&rt) {
			continue
		}
		used[rt.Tag] = true
		for _, p := range rt.Params {
			if p.Component == "" {
				continue
			}
			d := paramDoc(p)
			if prev, ok := params[p.Component]; ok {
				a, _ := json.Marshal(prev)
				b, _ := json.Marshal(d)
				if string(a) != string(b) {
					return nil, fmt.Errorf("server: parameter component %s is declared in two ways (%s: %s, before %s)", p.Component, rt.OpID, b, a)
				}
			}
			params[p.Component] = d
		}
		item, _ := paths[openapiPath(rt.Path)].(obj)
		if item == nil {
			item = obj{}
			paths[openapiPath(rt.Path)] = item
		}
		item[strings.ToLower(rt.Method)] = s.operation(rt)
	}
	version := s.cfg.Version
	if version == "" {
		version = APIVersion
	}
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       title,
			"version":     version,
			"summary":     summary,
			"description": desc,
			"license":     obj{"name": "Data: per dataset, see /v1/attribution", "url": s.cfg.BaseURL + "/v1/attribution"},
			"contact":     obj{"name": "The operator of this server", "url": s.cfg.BaseURL + "/docs"},
		},
		// Keys are optional: keyless requests count against the daily
		// limit, a key lifts it. Admin operations override this.
		"security":   []obj{{}, {"apiKey": []string{}}},
		"servers":    []obj{{"url": s.cfg.BaseURL}},
		"tags":       usedTags(used),
		"paths":      paths,
		"components": usedComponents(paths, components(s.cfg)),
	}
	if len(params) > 0 {
		doc["components"].(obj)["parameters"] = params
	}
	return json.MarshalIndent(doc, "", "  ")
}

var schemaRef = regexp.MustCompile(`#/components/(schemas|headers)/([A-Za-z0-9_.-]+)`)

// usedComponents keeps the schemas and headers the paths refer to, directly
// or through other schemas, so a partial document (/ogc/api) carries no
// unused components.
func usedComponents(paths obj, comps obj) obj {
	schemas, _ := comps["schemas"].(obj)
	headers, _ := comps["headers"].(obj)
	keptS, keptH := obj{}, obj{}
	queue := []any{paths}
	for len(queue) > 0 {
		b, _ := json.Marshal(queue[0])
		queue = queue[1:]
		for _, m := range schemaRef.FindAllStringSubmatch(string(b), -1) {
			kind, name := m[1], m[2]
			if kind == "headers" {
				if h, ok := headers[name]; ok && keptH[name] == nil {
					keptH[name] = h
				}
				continue
			}
			if sc, ok := schemas[name]; ok && keptS[name] == nil {
				keptS[name] = sc
				queue = append(queue, sc)
			}
		}
	}
	out := obj{}
	for k, v := range comps {
		out[k] = v
	}
	out["schemas"], out["headers"] = keptS, keptH
	return out
}

func (s *Server) operation(rt httpapi.Route) obj {
	op := obj{"operationId": rt.OpID, "summary": rt.Summary, "tags": []string{rt.Tag}, "description": rt.Summary + "."}
	if rt.Desc != "" {
		op["description"] = rt.Desc
	}
	switch {
	case rt.Admin:
		op["security"] = []obj{{"adminToken": []string{}}}
	case rt.OpID == "getBuildingsGlb": // the admin token lifts the size limits
		op["security"] = []obj{{}, {"apiKey": []string{}}, {"adminToken": []string{}}}
	}
	if rt.Stability != "" {
		op["x-stability"] = rt.Stability
	}
	if rt.Since != "" {
		op["x-since"] = rt.Since
	}
	op["x-keyless-limit"] = rt.Counted()
	if b := httpapi.BudgetOf(&rt); b > 0 {
		op["x-time-budget-ms"] = b.Milliseconds()
	}
	var params []obj
	for _, p := range rt.Params {
		if p.Component != "" {
			params = append(params, obj{"$ref": "#/components/parameters/" + p.Component})
			continue
		}
		params = append(params, paramDoc(p))
	}
	if params != nil {
		op["parameters"] = params
	}
	if rt.Body != nil {
		op["requestBody"] = obj{"required": rt.Body.Required, "description": rt.Body.Desc,
			"content": obj{"application/json": obj{"schema": ref(rt.Body.Schema),
				"example": exampleOf(s.schemas[rt.Body.Schema], s.schemas, 0)}}}
	}
	resps := obj{}
	for _, r := range s.withCommonResponses(rt) {
		d := responseDoc(r)
		if r.Status >= 400 {
			var uris []string
			for _, slug := range httpapi.ProblemsOf(r) {
				uris = append(uris, s.cfg.ErrorsBase+"/"+slug)
			}
			d["x-problem-types"] = uris
		}
		resps[strconv.Itoa(r.Status)] = d
	}
	op["responses"] = resps
	return op
}

// withCommonResponses adds the statuses a route can answer whatever its
// handler does: 401 where the access layer checks X-API-Key, 429 where the
// keyless limit applies, 503 where a time budget or the usage counters
// can stop a request, and 500 for unexpected failures.
func (s *Server) withCommonResponses(rt httpapi.Route) []httpapi.Response {
	rs := append([]httpapi.Response(nil), rt.Responses...)
	has := map[int]bool{}
	for _, r := range rs {
		has[r.Status] = true
	}
	keyed, counted := rt.Keyed(), rt.Counted()
	if keyed && !has[401] {
		rs = append(rs, httpapi.Response{Status: 401, Desc: "X-API-Key malformed, unknown, expired or revoked (send no key to use the keyless budget)",
			Schema: "Problem", Problems: []string{"unauthorized"}})
	}
	if (httpapi.BudgetOf(&rt) > 0 || counted) && !has[503] {
		rs = append(rs, httpapi.Response{Status: 503, Desc: "The request outlasted the operation's time budget, the shared usage counters are unavailable, " +
			"or a data file it needs is damaged; retry after Retry-After seconds", Schema: "Problem", Headers: []string{"Retry-After"}})
	}
	if counted && !has[429] {
		rs = append(rs, httpapi.Response{Status: 429, Desc: "Keyless daily limit exhausted (type ends in /keyless-daily-limit)", Problems: []string{"keyless-daily-limit"},
			Schema: "Problem", Headers: []string{"Retry-After", "X-Keyless-Remaining"}})
	}
	if !has[500] {
		rs = append(rs, httpapi.Response{Status: 500, Desc: "Unexpected server error; the body carries no internal detail, quote X-Request-Id", Schema: "Problem"})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Status < rs[j].Status })
	return rs
}

func paramDoc(p httpapi.Param) obj {
	schema := obj{"type": p.Type}
	if p.Format != "" {
		schema["format"] = p.Format
	}
	if p.Default != nil {
		schema["default"] = p.Default
	}
	if p.Min != nil {
		schema["minimum"] = *p.Min
	}
	if p.Max != nil {
		schema["maximum"] = *p.Max
	}
	if p.Enum != nil {
		schema["enum"] = p.Enum
	}
	if p.Pattern != "" {
		schema["pattern"] = p.Pattern
	}
	d := obj{"name": p.Name, "in": p.In, "required": p.Required || p.In == "path", "schema": schema}
	if p.Example != nil {
		d["example"] = p.Example
	}
	if p.Desc != "" {
		d["description"] = p.Desc
	}
	return d
}

func responseDoc(r httpapi.Response) obj {
	d := obj{"description": r.Desc}
	ct := r.ContentType
	if ct == "" && r.Schema != "" {
		ct = "application/json"
		if r.Status >= 400 {
			ct = "application/problem+json"
		}
	}
	if ct != "" {
		media := obj{}
		if r.Schema != "" {
			media["schema"] = ref(r.Schema)
		} else if strings.HasPrefix(ct, "text/") {
			media["schema"] = obj{"type": "string"}
		} else {
			media["schema"] = obj{"type": "string", "contentEncoding": "binary"}
		}
		d["content"] = obj{ct: media}
	}
	if len(r.Headers) > 0 {
		hs := obj{}
		for _, h := range r.Headers {
			hs[h] = obj{"$ref": "#/components/headers/" + h}
		}
		d["headers"] = hs
	}
	return d
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

// usedTags lists the tags of the operations in a document.
func usedTags(used map[string]bool) []obj {
	var out []obj
	for _, t := range tags() {
		if used[t["name"].(string)] {
			out = append(out, t)
		}
	}
	return out
}

func tags() []obj {
	return []obj{
		{"name": "Discovery", "description": "Which datasets are published, with licences and attribution."},
		{"name": "Buildings", "description": "LoD2 building surfaces: federated bbox search, detail, roof facets, GLB export."},
		{"name": "Terrain", "description": "DGM1 terrain: point elevation, batches of points and line profiles."},
		{"name": "Vegetation", "description": "Canopy height and crown base."},
		{"name": "Tilesets", "description": "3D Tiles of buildings."},
		{"name": "Keys", "description": "Self-service trial keys."},
		{"name": "Compatibility", "description": "The same data in the API shape of other services, so their clients work unchanged."},
		{"name": ogcapi.Tag, "description": "LoD2 surfaces as OGC API - Features collections for GIS clients (QGIS, GDAL)."},
		{"name": "Admin", "description": "Key management, usage reports, health, dataset reloads. " + keysadmin.AuthDoc},
		{"name": "Tiles", "description": "The static tile host."},
		{"name": "Service", "description": "Health, metrics and this description."},
	}
}

// apiDescription documents the choices the specification leaves open.
var apiDescription = strings.TrimSpace(fmt.Sprintf(`
All data endpoints are read-only GETs under /v1 and need no key. Errors are RFC 9457 (7807)
problem documents (application/problem+json) with type, title, status, detail, instance; the type
is {errors_base}/<name>, and with the default errors base it resolves to a description page.

Decisions where the interface specification is silent:
- Unknown routes answer 404 and known routes with a wrong method 405 (with an Allow header), both as problems.
- Parameters are checked as this document declares them (type, minimum, maximum, enum, pattern), and the detail names
  the parameter; one exception: a limit above its maximum on the OGC API items is taken as the maximum (a
  server-limited page with a next link, as OGC API - Features describes limit). On /v1 a value out of its range or enum is 422, as is a number or boolean that does not parse
  (lat=abc, limit=); a malformed bbox, coords or cursor is 400; /ogc answers 400 to every invalid parameter (OGC
  API - Features Part 1, /req/core/query-param-invalid). A path parameter that cannot name a resource (a tile level
  beyond the pyramid, a tileset id that is no UUID) is 404, a malformed one 400. Refused everywhere with 400: a
  parameter given twice, invalid percent-encoding, ';' in a name, and on /v1, /ogc and /opentopodata a parameter the
  operation does not declare. Numbers are decimal: no hex floats (0x1p3), digit separators (1_0), signs on integers
  (+5), inf or NaN. An empty value (cursor=) is the same as no value for a string without a pattern; for numbers,
  booleans and patterned strings it is checked like any value and refused.
- JSON request bodies: member names are matched exactly (case-sensitive); data after the JSON value is 400; an
  unknown member is 400 on the batch and opentopodata bodies, 422 on the API key create body, and ignored on the
  trial key mint (SPEC 4.7).
- Each error response of this document lists the problem types it can carry in x-problem-types.
- Requests net/http cannot parse (a malformed request line or header, headers over 1 MB, an unknown transfer
  encoding) answer 400, 431 or 501 as problems with an empty instance; the tile host's 416 and 412 are problems too.
- Unexpected errors answer 500 with the problem type internal-error and a detail that reveals nothing
  internal; the X-Request-Id response header identifies the log line.
- Every response carries X-Request-Id (a caller's own id of 8 to 64 characters [A-Za-z0-9._-] is kept).
- CORS: any origin; preflights (OPTIONS) answer 204 allowing GET, HEAD, POST, DELETE and the headers
  Content-Type, X-API-Key, X-Svc-Admin-Token, Authorization; the X-Svc-*, X-Keyless-Remaining and
  Retry-After headers are exposed to scripts.
- GET /v1/attribution lists the licence and attribution of every published product and BL; it is exempt from
  the keyless limit.
- POST /v1/admin/datasets rescans the data directory (like SIGHUP) and returns what is published and what was
  skipped, with reasons.
- Admin endpoints need the server's admin token (X-Svc-Admin-Token or Authorization: Bearer); 401 without it,
  403 when the server has none configured; the token is checked before any parameter.
- A BL pack appears only once its import finished; a newer snapshot replaces the older atomically.
- Keyless limit: counted per client IP (IPv6 per /64) and UTC day before routing, so 404, 405 and 422 count; every /v1,
  /ogc and /opentopodata response to a request without X-API-Key carries X-Keyless-Remaining (exempt routes show it without counting). The
  client IP is the socket peer, or the rightmost X-Forwarded-For entry when the peer is a trusted proxy. Admin routes
  (admin token) and everything under /v1/keys/ are not counted. Tile routes are not counted either (hillshade,
  quantized-mesh and footprint tiles, 3D Tiles): their grid is fixed and their answers cacheable, and a map client asks
  for dozens while a person pans. The built-in viewer draws only from those, so panning never uses the budget; what a
  click asks (roof, elevation, canopy, profile) is counted like any other request, and past the limit the viewer says so
  and offers a trial key. No header or page marks a request as the viewer's: the exemption is by route, which a script
  gains nothing from that the uncounted 3D Tiles of the same buildings do not already give.
- API keys: svc_ followed by 32 characters of [A-Za-z0-9_-]; key_prefix is the first 12 characters. A malformed,
  unknown, expired or revoked X-API-Key answers 401 (problem type unauthorized, WWW-Authenticate) on every /v1,
  /ogc and /opentopodata route outside /v1/keys/ and /v1/admin/; keys are looked up by SHA-256 hash. Tiers: trial, pro, business, internal.
  Keyed responses on counted routes carry X-Svc-Quota-Used (calls this UTC month) and X-Svc-Quota-Limit (absent when
  unlimited; 35000 for trial keys), and X-Svc-Quota-Exceeded naming soft limits now exceeded (minute, day, month).
- Trial keys: the mint 429 has type trial-mint-limit; an unknown key on GET /v1/keys/trial/{key} answers 404; key
  status values are active, expired and revoked.
- Revoke is DELETE /v1/admin/api-keys/{api_key_id}; the per-key usage report is GET
  /v1/admin/api-keys/{api_key_id}/usage. Usage periods are calendar months (UTC) with month, start, end, call_count
  and error_count (status >= 400); counters are written in batches every second and reports flush them first.
- Pro and business keys have no built-in limits: their monthly_call_quota (if set) is shown in X-Svc-Quota-Limit
  and, like every keyed limit, is soft (counted and shown, never refused).
- Data records other than keys have no states a client sees: a dataset is either published (its import
  finished) or absent.
- The service sends no events, webhooks or notifications.
- Heights: GLB exports and every JSON answer carry DHHN2016 normal heights as the sources have them; 3D Tiles and
  the quantized-mesh terrain place vertices at ellipsoidal heights h = H + N, N from the height model their
  listing names in height_model (BKG's GCG2016 by default, EGM96 beyond its extent), consistently for
  buildings, terrain and vegetation.
- Problem types: %s.`, strings.Join(problemSlugs(), ", ")))

// openapiPath writes a ServeMux pattern as an OpenAPI path template: a
// trailing wildcard {name...} is the parameter {name} (its values may hold
// slashes, as the parameter's description says), {$} is dropped.
func openapiPath(p string) string {
	return strings.ReplaceAll(strings.ReplaceAll(p, "...}", "}"), "{$}", "")
}
