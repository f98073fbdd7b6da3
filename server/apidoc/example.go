package apidoc

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/svc-geodata/svc/server/httpapi"
)

// exampleRequest is a curl command for rt built from its declaration: path
// parameters and required query parameters with their example or default
// values.
func (d *Doc) exampleRequest(rt httpapi.Route) string {
	path := PathTemplate(rt.Path)
	q := url.Values{}
	for _, p := range rt.Params {
		v := p.Example
		if v == nil {
			v = p.Default
		}
		switch p.In {
		case "path":
			val := fmt.Sprint(v)
			if v == nil {
				val = "<" + p.Name + ">"
			}
			path = strings.Replace(path, "{"+p.Name+"}", val, 1)
		case "query":
			if v != nil && (p.Required || p.Example != nil) {
				q.Set(p.Name, fmt.Sprint(v))
			}
		}
	}
	u := d.BaseURL + path
	if len(q) > 0 {
		u += "?" + strings.ReplaceAll(q.Encode(), "%2C", ",")
	}
	cmd := "curl -s"
	if rt.Method != "GET" {
		cmd += " -X " + rt.Method
	}
	if rt.Admin {
		cmd += " -H 'X-Svc-Admin-Token: <token>'"
	}
	if rt.Body != nil {
		body, _ := json.Marshal(d.example(rt.Body.Schema))
		cmd += " -H 'Content-Type: application/json' -d '" + string(body) + "'"
	}
	return cmd + " '" + u + "'"
}

// exampleResponse renders an example body for the first success response
// of rt from its schema; "" when the answer is not JSON.
func (d *Doc) exampleResponse(rt httpapi.Route) (status int, body string) {
	for _, r := range rt.Responses {
		if r.Status >= 200 && r.Status < 300 && r.Schema != "" {
			b, _ := json.MarshalIndent(d.example(r.Schema), "", "  ")
			return r.Status, string(b)
		}
	}
	return 0, ""
}

// example is an example value of the named component schema.
func (d *Doc) example(schema string) any {
	schemas, _ := d.Components["schemas"].(obj)
	return exampleOf(schemas[schema], schemas, 0)
}

// exampleOf makes an example value that fits a JSON schema (component
// references followed, arrays with one item, enum's first value).
func exampleOf(schema any, comps map[string]any, depth int) any {
	sc, _ := schema.(obj)
	if sc == nil || depth > 8 {
		return nil
	}
	if r, ok := sc["$ref"].(string); ok {
		return exampleOf(comps[strings.TrimPrefix(r, "#/components/schemas/")], comps, depth+1)
	}
	if ex, ok := sc["example"]; ok {
		return ex
	}
	if e, ok := sc["enum"].([]string); ok && len(e) > 0 {
		return e[0]
	}
	if e, ok := sc["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ := sc["type"]
	if ts, ok := typ.([]string); ok && len(ts) > 0 {
		typ = ts[0]
	}
	switch typ {
	case "object":
		props, _ := sc["properties"].(obj)
		out := map[string]any{}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out[k] = exampleOf(props[k], comps, depth+1)
		}
		return out
	case "array":
		if it := exampleOf(sc["items"], comps, depth+1); it != nil {
			return []any{it}
		}
		return []any{}
	case "integer":
		return 1
	case "number":
		return 1.5
	case "boolean":
		return true
	case "string":
		switch sc["format"] {
		case "date":
			return "2026-07-20"
		case "date-time":
			return "2026-07-20T12:00:00Z"
		case "uri":
			return "https://example.org/"
		case "uuid":
			return "0b6c7a3e-6a8e-4bdf-9c1d-2f4e8f0a1b2c"
		case "email":
			return "ops@example.org"
		}
		return "string"
	}
	return nil
}
