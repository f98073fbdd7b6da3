package apidoc

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/server/httpapi"
)

var (
	counted = &httpapi.Surface{Name: "counted", Keyed: true, Counted: true, Budget: httpapi.DefaultBudget}
	free    = &httpapi.Surface{Name: "free"}
)

// testDoc is a two-surface API: a counted search with a parameter
// component and a schema that refers to another, and a free health route.
func testDoc() Doc {
	limit := httpapi.Param{Name: "limit", In: "query", Type: "integer", Component: "limit", Default: 10, Min: httpapi.F64(1), Max: httpapi.F64(100)}
	rs := httpapi.On(counted, httpapi.Route{Method: "GET", Path: "/v1/things/{id...}", OpID: "getThing", Tag: "Things", Summary: "One thing",
		Desc:      "Finds **one** `thing`; see [the spec](https://example.org/spec).",
		Params:    []httpapi.Param{{Name: "id", In: "path", Type: "string", Example: "a/b"}, limit},
		Responses: []httpapi.Response{{Status: 200, Desc: "The thing", Schema: "Thing"}}})
	rs = append(rs, httpapi.On(free, httpapi.Route{Method: "GET", Path: "/healthz", OpID: "getHealthz", Tag: "Service", Summary: "Liveness",
		Responses: []httpapi.Response{{Status: 200, Desc: "alive", ContentType: "text/plain"}}},
		httpapi.Route{Method: "GET", Path: "/viewer/{file}", Hidden: true})...)
	comps := obj{"schemas": obj{
		"Thing":  obj{"type": "object", "properties": obj{"part": obj{"$ref": "#/components/schemas/Part"}, "name": obj{"type": "string"}}},
		"Part":   obj{"type": "object", "properties": obj{"size": obj{"type": "number"}}},
		"Unused": obj{"type": "string"},
	}, "headers": obj{"Retry-After": obj{"schema": obj{"type": "integer"}}, "Unused": obj{"schema": obj{"type": "string"}}}}
	return Doc{Routes: rs, Components: comps, BaseURL: "https://api.test", ErrorsBase: "https://api.test/problems", Version: "1.2.3",
		Tags: []Tag{{Name: "Service", Description: "Health."}, {Name: "Things", Description: "The things."}, {Name: "Empty", Description: "No route."}}}
}

// TestOpenAPIFilter renders the whole document and one surface's, as a
// client decodes them: the filter decides the operations, the tags and the
// components a document carries.
func TestOpenAPIFilter(t *testing.T) {
	type document struct {
		Info       struct{ Version, Title, Description string }
		Tags       []struct{ Name string }
		Paths      map[string]map[string]map[string]any
		Components struct {
			Schemas    map[string]any
			Headers    map[string]any
			Parameters map[string]any
		}
	}
	d := testDoc()
	for _, tc := range []struct {
		name                   string
		keep                   func(*httpapi.Route) bool
		paths, tags, schemas   []string
		headers, parameterRefs []string
	}{
		{"all", All, []string{"/healthz", "/v1/things/{id}"}, []string{"Service", "Things"}, []string{"Part", "Thing"}, []string{"Retry-After"}, []string{"limit"}},
		{"counted surface", func(rt *httpapi.Route) bool { return rt.Surface == counted },
			[]string{"/v1/things/{id}"}, []string{"Things"}, []string{"Part", "Thing"}, []string{"Retry-After"}, []string{"limit"}},
		{"free surface", func(rt *httpapi.Route) bool { return rt.Surface == free }, []string{"/healthz"}, []string{"Service"}, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := d.OpenAPI(tc.keep, "T", "S", "D")
			if err != nil {
				t.Fatal(err)
			}
			var doc document
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Info.Version != "1.2.3" || doc.Info.Title != "T" || doc.Info.Description != "D" {
				t.Errorf("info = %+v", doc.Info)
			}
			var tags []string
			for _, tg := range doc.Tags {
				tags = append(tags, tg.Name)
			}
			for what, pair := range map[string][2][]string{
				"paths": {keys(doc.Paths), tc.paths}, "tags": {tags, tc.tags}, "schemas": {keys(doc.Components.Schemas), tc.schemas},
				"headers": {keys(doc.Components.Headers), tc.headers}, "parameters": {keys(doc.Components.Parameters), tc.parameterRefs},
			} {
				if strings.Join(pair[0], ",") != strings.Join(pair[1], ",") {
					t.Errorf("%s = %v, want %v", what, pair[0], pair[1])
				}
			}
		})
	}
	// The counted route gets the statuses its policy adds, with their
	// problem types under the errors base.
	b, _ := d.OpenAPI(All, "T", "S", "D")
	var doc document
	_ = json.Unmarshal(b, &doc)
	op := doc.Paths["/v1/things/{id}"]["get"]
	resps, _ := op["responses"].(map[string]any)
	if strings.Join(keys(resps), ",") != "200,401,429,500,503" || op["x-keyless-limit"] != true {
		t.Errorf("getThing responses %v, x-keyless-limit %v", keys(resps), op["x-keyless-limit"])
	}
	r429, _ := resps["429"].(map[string]any)
	if pt, _ := r429["x-problem-types"].([]any); len(pt) != 1 || pt[0] != "https://api.test/problems/keyless-daily-limit" {
		t.Errorf("429 x-problem-types = %v", r429["x-problem-types"])
	}
}

// TestOpenAPIComponentConflict refuses a parameter component declared in
// two ways: one of the two operations would be described wrongly.
func TestOpenAPIComponentConflict(t *testing.T) {
	d := testDoc()
	other := d.Routes[0]
	other.Path, other.OpID = "/v1/others", "getOthers"
	other.Params = []httpapi.Param{{Name: "limit", In: "query", Type: "integer", Component: "limit", Default: 20}}
	d.Routes = append(d.Routes, other)
	if _, err := d.OpenAPI(All, "T", "S", "D"); err == nil || !strings.Contains(err.Error(), "parameter component limit") {
		t.Fatalf("err = %v, want the conflict of component limit", err)
	}
}

// TestPage reads the /docs page as a browser gets it: headers, the version
// of the document, the operations of the listed routes with their example
// request, the rendered Markdown, and the appendix.
func TestPage(t *testing.T) {
	d := testDoc()
	h, err := d.Handler()
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/docs", nil))
	page := w.Body.String()
	if ct := w.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	for _, want := range []string{
		"<title>svc API 1.2.3</title>",
		`<div class="op" id="getThing">`,
		`<span class="badge">keyless limit</span>`,
		"curl -s &#39;https://api.test/v1/things/a/b&#39;",
		`Finds <b>one</b> <code>thing</code>; see <a href="https://example.org/spec">the spec</a>.`,
		"default 10; from 1 to 100",
		`<td id="keyless-daily-limit"><code>https://api.test/problems/keyless-daily-limit</code>`,
		`<h2 id="decisions">Appendix: design decisions</h2>`,
		`<a href="#things">Things</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, absent := range []string{"/viewer/", `href="#empty"`} {
		if strings.Contains(page, absent) {
			t.Errorf("page shows %s", absent)
		}
	}
}

// TestMarkdown holds the subset the descriptions use, escaped first.
func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"escape", "a < b & c", "<p>a &lt; b &amp; c</p>"},
		{"code is not rendered again", "`**x** <y>`", "<p><code>**x** &lt;y&gt;</code></p>"},
		{"list", "Intro\n\n- one\n  more\n- two", "<p>Intro</p><ul><li>one more</li><li>two</li></ul>"},
		{"no script links", "[x](javascript:alert)", "<p>x</p>"},
		{"link", "[spec](https://example.org/a?b=1&c=2)", `<p><a href="https://example.org/a?b=1&amp;c=2">spec</a></p>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(markdown(tc.in)); got != tc.want {
				t.Errorf("markdown(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
