package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/schemacheck"
)

// TestContract walks every operation of the published OpenAPI document and
// makes a real request to `svc serve` on the demo pack, built from the
// operation's own declaration (parameter examples and defaults, the request
// body example, the admin token where the operation's security asks for
// it). The status must be one the operation declares, a JSON body must
// match the schema declared for that status, and a problem's type must be
// one the response lists in x-problem-types. So the document cannot
// describe an answer the server does not give.
func TestContract(t *testing.T) {
	data := demoData(t)
	base := serveData(t, data, "--admin-token", "tok")
	var doc struct {
		Paths      map[string]map[string]operation `json:"paths"`
		Components struct {
			Schemas    map[string]any       `json:"schemas"`
			Parameters map[string]parameter `json:"parameters"`
		} `json:"components"`
	}
	getJSON(t, base+"/openapi.json", &doc)
	// Operations refer to shared parameters with $ref.
	for _, item := range doc.Paths {
		for _, op := range item {
			for i, p := range op.Parameters {
				if p.Ref == "" {
					continue
				}
				c, ok := doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
				if !ok {
					t.Fatalf("parameter $ref %s names no component", p.Ref)
				}
				op.Parameters[i] = c
			}
		}
	}
	var keys []string
	for p, item := range doc.Paths {
		for m := range item {
			keys = append(keys, strings.ToUpper(m)+" "+p)
		}
	}
	sort.Strings(keys)
	checked := 0
	for _, k := range keys {
		method, path, _ := strings.Cut(k, " ")
		op := doc.Paths[path][strings.ToLower(method)]
		t.Run(k, func(t *testing.T) {
			u, body := op.request(base, path)
			req, _ := http.NewRequest(method, u, body)
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			for _, sec := range op.Security {
				if _, ok := sec["adminToken"]; ok && len(op.Security) == 1 {
					req.Header.Set("X-Svc-Admin-Token", "tok")
				}
			}
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			r, ok := op.Responses[strconv.Itoa(resp.StatusCode)]
			if !ok {
				t.Fatalf("%s %s answered %d, which the operation does not declare (%v): %.300s", method, u, resp.StatusCode, keysOf(op.Responses), b)
			}
			for ct, media := range r.Content {
				if !strings.Contains(ct, "json") || media.Schema == nil {
					continue
				}
				var v any
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatalf("%d body is not JSON (%s): %v", resp.StatusCode, ct, err)
				}
				if err := schemacheck.Conforms(v, media.Schema, doc.Components.Schemas); err != nil {
					t.Errorf("%s %s %d: body does not match its schema: %v\n%.400s", method, u, resp.StatusCode, err, b)
				}
				if p, ok := v.(map[string]any); ok && resp.StatusCode >= 400 && !slices.Contains(r.ProblemTypes, fmt.Sprint(p["type"])) {
					t.Errorf("%s %s %d: problem type %v is not one the response declares (%v)", method, u, resp.StatusCode, p["type"], r.ProblemTypes)
				}
			}
			checked++
		})
	}
	t.Logf("%d operations requested and checked against their declarations", checked)
}

type parameter struct {
	Ref      string          `json:"$ref"`
	Name     string          `json:"name"`
	In       string          `json:"in"`
	Required bool            `json:"required"`
	Example  any             `json:"example"`
	Schema   json.RawMessage `json:"schema"`
}

type operation struct {
	Parameters  []parameter `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Example any `json:"example"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Content map[string]struct {
			Schema any `json:"schema"`
		} `json:"content"`
		ProblemTypes []string `json:"x-problem-types"`
	} `json:"responses"`
	Security []map[string]any `json:"security"`
}

// request builds the URL and body of op from its declaration.
func (op operation) request(base, path string) (string, io.Reader) {
	q := url.Values{}
	for _, p := range op.Parameters {
		v := p.Example
		if v == nil {
			var s struct{ Default any }
			json.Unmarshal(p.Schema, &s)
			v = s.Default
		}
		if v == nil {
			continue
		}
		val := fmt.Sprint(v)
		if f, ok := v.(float64); ok && f == math.Trunc(f) {
			val = strconv.FormatInt(int64(f), 10)
		}
		switch p.In {
		case "path":
			path = strings.Replace(path, "{"+p.Name+"}", val, 1)
		case "query":
			if p.Required || p.Example != nil {
				q.Set(p.Name, val)
			}
		}
	}
	u := base + path
	if len(q) > 0 {
		u += "?" + strings.ReplaceAll(q.Encode(), "%2C", ",")
	}
	if op.RequestBody != nil {
		if c, ok := op.RequestBody.Content["application/json"]; ok && c.Example != nil {
			b, _ := json.Marshal(c.Example)
			return u, bytes.NewReader(b)
		}
	}
	return u, nil
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
