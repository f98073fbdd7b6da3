package apidoc

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strings"

	"github.com/svc-geodata/svc/server/httpapi"
)

// docsPage renders the route table as one self-contained HTML page: no
// scripts, no fonts, no CDN, so it works on an air-gapped machine.
var docsPage = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>svc API {{.Version}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:0 auto;padding:1rem 2rem;color:#1a1a1a}
code,pre{font:13px ui-monospace,monospace;background:#f3f3f3;padding:.1em .3em;border-radius:3px}
pre{padding:.6em;white-space:pre-wrap}
.op{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem;margin:.8rem 0}
.m{display:inline-block;min-width:4.5em;font-weight:700}.GET{color:#0a6}.POST{color:#06c}.DELETE{color:#c30}
.badge{font-size:12px;border-radius:3px;padding:0 .4em;margin-left:.5em;background:#eee}.beta{background:#fe9}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
nav a{margin-right:1em}
</style></head><body>
<h1>svc API <small>{{.Version}}</small></h1>
<p>Machine-readable description: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
<nav>{{range .Tags}}<a href="#{{.ID}}">{{.Name}}</a>{{end}}<a href="#problems">Problems</a></nav>
<p>Every data route is a read-only GET under <code>/v1</code>; keys are optional (a key lifts the keyless daily limit).
Errors are RFC 9457 problem documents. Each operation below shows an example request and, for JSON answers, the shape
of a response built from its schema. The design decisions where the specification is silent are in the
<a href="#decisions">appendix</a>.</p>
{{range .Tags}}<h2 id="{{.ID}}">{{.Name}}</h2>{{.DescHTML}}
{{if eq .ID "keys"}}<p id="trial-keys">Trial keys: <code>POST /v1/keys/trial</code> mints a key valid for 7 days; send it as <code>X-API-Key</code>.</p>{{end}}
{{range .Ops}}<div class="op" id="{{.OpID}}"><div><span class="m {{.Method}}">{{.Method}}</span><code>{{.Path}}</code>
{{if .Stability}}<span class="badge {{.Stability}}">{{.Stability}}</span>{{end}}{{if .Since}}<span class="badge">since {{.Since}}</span>{{end}}
{{if .Counted}}<span class="badge">keyless limit</span>{{end}}</div>
<p><b>{{.Summary}}</b> <small>operationId <code>{{.OpID}}</code></small></p>{{.DescHTML}}
<p class="ex">Example request:</p><pre>{{.Example}}</pre>
{{if .RespExample}}<details><summary>Example response ({{.RespStatus}})</summary><pre>{{.RespExample}}</pre></details>{{end}}
{{if .Params}}<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Rule</th><th>Description</th></tr>
{{range .Params}}<tr><td><code>{{.Name}}</code>{{if .Required}} *{{end}}</td><td>{{.In}}</td><td>{{.Type}}</td><td>{{.Rule}}</td><td>{{.DescHTML}}</td></tr>{{end}}</table>{{end}}
<table><tr><th>Status</th><th>Meaning</th></tr>{{range .Responses}}<tr><td>{{.Status}}</td><td>{{.Desc}}</td></tr>{{end}}</table>
</div>{{end}}{{end}}
<h2 id="problems">Problem types</h2><table><tr><th>type</th><th>title</th><th>meaning</th></tr>
{{range .Problems}}<tr><td id="{{.Slug}}"><code>{{.URI}}</code></td><td>{{.Title}}</td><td>{{.Doc}}</td></tr>{{end}}</table>
<h2 id="decisions">Appendix: design decisions</h2>
{{.Description}}
</body></html>
`))

type docOp struct {
	Method, Path, OpID, Summary, Stability, Since string
	DescHTML                                      template.HTML
	Example, RespExample                          string
	RespStatus                                    int
	Counted                                       bool
	Params                                        []docParam
	Responses                                     []httpapi.Response
}

type docParam struct {
	Name, In, Type, Rule string
	DescHTML             template.HTML
	Required             bool
}

// Page renders the /docs page: every listed route by tag, with an example
// request, an example response built from its schema, its parameters and
// statuses; the problem types; and Decisions as the appendix. It fails only
// if the template cannot be executed.
func (d *Doc) Page() ([]byte, error) {
	type docTag struct {
		ID, Name string
		DescHTML template.HTML
		Ops      []docOp
	}
	var tagList []*docTag
	byName := map[string]*docTag{}
	for _, t := range d.Tags {
		dt := &docTag{ID: strings.ToLower(t.Name), Name: t.Name, DescHTML: markdown(t.Description)}
		tagList = append(tagList, dt)
		byName[dt.Name] = dt
	}
	for _, rt := range d.Routes {
		if rt.Hidden {
			continue
		}
		op := docOp{Method: rt.Method, Path: PathTemplate(rt.Path), OpID: rt.OpID, Summary: rt.Summary, DescHTML: markdown(rt.Desc),
			Stability: rt.Stability, Since: rt.Since, Counted: rt.Counted(),
			Responses: Responses(rt), Example: d.exampleRequest(rt)}
		op.RespStatus, op.RespExample = d.exampleResponse(rt)
		for _, p := range rt.Params {
			op.Params = append(op.Params, docParam{Name: p.Name, In: p.In, Type: p.Type, Rule: paramRule(p), DescHTML: markdown(p.Desc), Required: p.Required})
		}
		if t := byName[rt.Tag]; t != nil {
			t.Ops = append(t.Ops, op)
		}
	}
	var shown []*docTag
	for _, t := range tagList {
		if len(t.Ops) > 0 {
			sort.SliceStable(t.Ops, func(i, j int) bool { return t.Ops[i].Path < t.Ops[j].Path })
			shown = append(shown, t)
		}
	}
	type docProblem struct{ Slug, URI, Title, Doc string }
	var probs []docProblem
	for _, slug := range problemSlugs() {
		pt := httpapi.ProblemTypes[slug]
		probs = append(probs, docProblem{slug, d.ErrorsBase + "/" + slug, pt.Title, pt.Doc})
	}
	var buf bytes.Buffer
	if err := docsPage.Execute(&buf, map[string]any{"Version": d.Version, "Tags": shown,
		"Description": markdown(Decisions), "Problems": probs}); err != nil {
		return nil, fmt.Errorf("apidoc: render docs: %w", err)
	}
	return buf.Bytes(), nil
}

// Handler renders the page once and serves it: text/html, cacheable for
// five minutes (the route table does not change while the server runs).
func (d *Doc) Handler() (http.Handler, error) {
	page, err := d.Page()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(page)
	}), nil
}

func paramRule(p httpapi.Param) string {
	var parts []string
	if p.Default != nil {
		parts = append(parts, fmt.Sprintf("default %v", p.Default))
	}
	if r := httpapi.RangeText(&p, "%g"); r != "" {
		parts = append(parts, strings.TrimSpace(r)) // the parser's own words
	}
	if p.Enum != nil {
		parts = append(parts, "one of "+strings.Join(p.Enum, ", "))
	}
	if p.Pattern != "" {
		parts = append(parts, "matching "+p.Pattern)
	}
	return strings.Join(parts, "; ")
}
