// Package apidoc describes the API from its route table: the OpenAPI 3.1
// document of every route or of one surface's (Doc.OpenAPI), the /docs page
// (Doc.Page) and the design decisions both publish (Decisions). It reads the
// declarations of package httpapi and the component schemas it is given, and
// has the builders the surfaces write their schemas with (Object, Ref, ...).
// It knows no surface: package server lists the routes, the schemas and the
// tags and serves the results (docs/architecture.md).
package apidoc

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/server/httpapi"
)

type obj = map[string]any

// Doc is what the description of an API is made of.
type Doc struct {
	// Routes is the route table; hidden routes are left out of both the
	// document and the page.
	Routes []httpapi.Route
	// Components are the OpenAPI components: schemas, headers and
	// securitySchemes. A document keeps the schemas and headers its
	// operations refer to.
	Components map[string]any
	// Tags group the operations, in the order of the document and the page;
	// a tag no listed route carries is left out.
	Tags []Tag
	// BaseURL is the public address of the API (servers, licence and
	// contact links, example requests), without a trailing slash.
	BaseURL string
	// ErrorsBase prefixes the problem type names (x-problem-types, the
	// page's problem table).
	ErrorsBase string
	// Version is info.version and the version the page shows.
	Version string
	// Root, when set, is the path the documented API starts at: the paths
	// are written relative to it and the server's url ends with it (the OGC
	// API's own document, whose landing page is /ogc: OGC clients such as
	// GDAL look its operations up as /collections/{collectionId}/items).
	Root string
}

// Tag is an OpenAPI tag; its description may use the Markdown subset of
// markdown.go.
type Tag struct{ Name, Description string }

// All keeps every route: the document of the whole API.
func All(*httpapi.Route) bool { return true }

// OpenAPI renders the OpenAPI 3.1 document of the routes keep admits (All
// for the whole API, a surface's filter for its own document) with the
// title, summary and description given, so the document lists exactly the
// routes that exist. It fails when two routes declare a parameter component
// in two ways.
func (d *Doc) OpenAPI(keep func(*httpapi.Route) bool, title, summary, desc string) ([]byte, error) {
	paths := obj{}
	used := map[string]bool{}
	params := obj{} // components.parameters
	for i := range d.Routes {
		rt := d.Routes[i]
		if rt.Hidden || !keep(&rt) {
			continue
		}
		used[rt.Tag] = true
		for _, p := range rt.Params {
			if p.Component == "" {
				continue
			}
			pd := paramDoc(p)
			if prev, ok := params[p.Component]; ok {
				a, _ := json.Marshal(prev)
				b, _ := json.Marshal(pd)
				if string(a) != string(b) {
					return nil, fmt.Errorf("apidoc: parameter component %s is declared in two ways (%s: %s, before %s)", p.Component, rt.OpID, b, a)
				}
			}
			params[p.Component] = pd
		}
		path := PathTemplate(rt.Path)
		if d.Root != "" {
			if path = strings.TrimPrefix(path, d.Root); path == "" {
				path = "/"
			}
		}
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			paths[path] = item
		}
		item[strings.ToLower(rt.Method)] = d.operation(rt)
	}
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       title,
			"version":     d.Version,
			"summary":     summary,
			"description": desc,
			"license":     obj{"name": "Data: per dataset, see /v1/attribution", "url": d.BaseURL + "/v1/attribution"},
			"contact":     obj{"name": "The operator of this server", "url": d.BaseURL + "/docs"},
		},
		// Keys are optional: keyless requests count against the daily
		// limit, a key lifts it. Admin operations override this.
		"security":   []obj{{}, {"apiKey": []string{}}},
		"servers":    []obj{{"url": d.BaseURL + d.Root}},
		"tags":       d.usedTags(used),
		"paths":      paths,
		"components": usedComponents(paths, d.Components),
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

func (d *Doc) operation(rt httpapi.Route) obj {
	op := obj{"operationId": rt.OpID, "summary": rt.Summary, "tags": []string{rt.Tag}, "description": rt.Summary + "."}
	if rt.Desc != "" {
		op["description"] = rt.Desc
	}
	switch {
	case rt.Admin:
		op["security"] = []obj{{"adminToken": []string{}}}
	case rt.AdminRaises:
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
				"example": d.example(rt.Body.Schema)}}}
	}
	resps := obj{}
	for _, r := range Responses(rt) {
		rd := responseDoc(r)
		if r.Status >= 400 {
			var uris []string
			for _, slug := range httpapi.ProblemsOf(r) {
				uris = append(uris, d.ErrorsBase+"/"+slug)
			}
			rd["x-problem-types"] = uris
		}
		resps[strconv.Itoa(r.Status)] = rd
	}
	op["responses"] = resps
	return op
}

// Responses are the responses rt declares and the statuses it can answer
// whatever its handler does, by status: 401 where the access layer checks
// X-API-Key, 429 where the keyless limit applies, 503 where a time budget
// or the usage counters can stop a request, and 500 for unexpected
// failures. The document, the page and the contract test read them.
func Responses(rt httpapi.Route) []httpapi.Response {
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
func (d *Doc) usedTags(used map[string]bool) []obj {
	var out []obj
	for _, t := range d.Tags {
		if used[t.Name] {
			out = append(out, obj{"name": t.Name, "description": t.Description})
		}
	}
	return out
}

// PathTemplate writes a ServeMux pattern as an OpenAPI path template: a
// trailing wildcard {name...} is the parameter {name} (its values may hold
// slashes, as the parameter's description says), {$} is dropped.
func PathTemplate(p string) string {
	return strings.ReplaceAll(strings.ReplaceAll(p, "...}", "}"), "{$}", "")
}

// problemSlugs lists the problem type names, sorted.
func problemSlugs() []string {
	out := make([]string, 0, len(httpapi.ProblemTypes))
	for k := range httpapi.ProblemTypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
