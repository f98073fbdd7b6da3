package server

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/svc-geodata/svc/server/httpapi"
)

// The descriptions in the route table and the OpenAPI document use a small
// Markdown subset: `code`, **bold**, [text](url), paragraphs separated by a
// blank line and "- " list items. markdown renders exactly that subset to
// HTML (after escaping everything), so the docs page shows no raw markup.
var (
	mdCode = regexp.MustCompile("`([^`]+)`")
	mdBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdLink = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

func markdown(s string) template.HTML {
	var out strings.Builder
	for _, para := range strings.Split(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(para, "\n")
		var items, text []string
		for _, l := range lines {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "- ") {
				items = append(items, inline(strings.TrimPrefix(t, "- ")))
			} else if len(items) > 0 {
				items[len(items)-1] += " " + inline(t)
			} else {
				text = append(text, inline(l))
			}
		}
		if len(text) > 0 {
			out.WriteString("<p>" + strings.Join(text, " ") + "</p>")
		}
		if len(items) > 0 {
			out.WriteString("<ul><li>" + strings.Join(items, "</li><li>") + "</li></ul>")
		}
	}
	return template.HTML(out.String()) // built from escaped text only
}

// inline escapes s and renders code spans, bold and links in it.
func inline(s string) string {
	// Code spans first, kept apart so their content is not rendered again.
	var codes []string
	s = mdCode.ReplaceAllStringFunc(s, func(m string) string {
		codes = append(codes, html.EscapeString(m[1:len(m)-1]))
		return fmt.Sprintf("\x00%d\x00", len(codes)-1)
	})
	s = html.EscapeString(s)
	s = mdBold.ReplaceAllString(s, "<b>$1</b>")
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		p := mdLink.FindStringSubmatch(m)
		u, err := url.Parse(html.UnescapeString(p[2]))
		if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") {
			return p[1]
		}
		return `<a href="` + html.EscapeString(u.String()) + `">` + p[1] + "</a>"
	})
	for i, c := range codes {
		s = strings.Replace(s, fmt.Sprintf("\x00%d\x00", i), "<code>"+c+"</code>", 1)
	}
	return s
}

// exampleRequest is a curl command for rt built from its declaration: path
// parameters and required query parameters with their example or default
// values.
func (s *Server) exampleRequest(rt httpapi.Route) string {
	path := openapiPath(rt.Path)
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
	u := s.cfg.BaseURL + path
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
		body, _ := json.Marshal(exampleOf(s.schemas[rt.Body.Schema], s.schemas, 0))
		cmd += " -H 'Content-Type: application/json' -d '" + string(body) + "'"
	}
	return cmd + " '" + u + "'"
}

// exampleResponse renders an example body for the first success response
// of rt from its schema; "" when the answer is not JSON.
func (s *Server) exampleResponse(rt httpapi.Route) (status int, body string) {
	for _, r := range rt.Responses {
		if r.Status >= 200 && r.Status < 300 && r.Schema != "" {
			b, _ := json.MarshalIndent(exampleOf(s.schemas[r.Schema], s.schemas, 0), "", "  ")
			return r.Status, string(b)
		}
	}
	return 0, ""
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
