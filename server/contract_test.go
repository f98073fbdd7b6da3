package server

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/server/apidoc"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/state"
)

// TestStrictInput: each form of sloppy input the issue names is refused
// with a problem naming the parameter, where url.Values would have guessed.
func TestStrictInput(t *testing.T) {
	f := rasterFix(t)
	for _, tc := range []struct {
		name, path string
		status     int
		mention    string
	}{
		{"bad percent-encoding in a value", "/v1/buildings?bbox=8.6,50.0,8.7,50.1&cursor=%%%%", 400, "cursor"},
		{"bad percent-encoding in a name", "/v1/terrain/elevation?lat=50.1&lon=8.6&%zz=1", 400, "%zz"},
		{"semicolon in a name", "/v1/terrain/elevation?lat=50.1&x;y=1&lon=8.6", 400, "x;y"},
		{"semicolon in a value is kept, not dropped", "/v1/terrain/elevation?lat=50.1;lon=8.6", 422, "lat"},
		{"duplicate parameter", "/v1/terrain/elevation?lat=50.1&lat=50.2&lon=8.6", 400, "lat"},
		{"unknown parameter", "/v1/terrain/elevation?lat=50.1&lon=8.6&interp=bilinear", 400, "interp"},
		{"unknown interpolation", "/v1/terrain/elevation?lat=50.1&lon=8.6&interpolation=lanczos", 422, "interpolation"},
		{"unknown parameter lists the known ones", "/v1/datasets?foo=1", 400, "no query parameters"},
		{"hex float", "/v1/terrain/elevation?lat=0x1.9p5&lon=8.6", 422, "lat"},
		{"underscore number", "/v1/terrain/elevation?lat=5_0&lon=8.6", 422, "lat"},
		{"+inf", "/v1/terrain/elevation?lat=50&lon=%2Binf", 422, "lon"},
		{"NaN", "/v1/terrain/elevation?lat=NaN&lon=8.6", 422, "lat"},
		{"plus-signed integer", "/v1/buildings?bbox=8.6,50.0,8.7,50.1&limit=%2B10", 422, "limit"},
		{"integer with space", "/v1/buildings?bbox=8.6,50.0,8.7,50.1&limit=%2010", 422, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.get(t, tc.path)
			b, _ := json.Marshal(body)
			if code != tc.status || !strings.Contains(string(b), tc.mention) {
				t.Errorf("%d %s; want %d naming %q", code, b, tc.status, tc.mention)
			}
		})
	}
	// Trailing '&' and empty pairs are harmless.
	if code, body := f.get(t, "/v1/datasets?&"); code != http.StatusOK {
		t.Errorf("empty pairs: %d %v", code, body)
	}
}

// TestTimeBudget: a request past its route's budget is abandoned with 503
// and Retry-After, through the context the work received.
func TestTimeBudget(t *testing.T) {
	f := newFixture(t)
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: f.cat})
	if err != nil {
		t.Fatal(err)
	}
	rt := httpapi.Route{Method: "GET", Path: "/v1/slow", Surface: dataAPI, Budget: 50 * time.Millisecond, Handle: func(w http.ResponseWriter, r *http.Request, _ *httpapi.Input) error {
		select {
		case <-r.Context().Done():
			return r.Context().Err()
		case <-time.After(5 * time.Second):
			return nil
		}
	}}
	w := httptest.NewRecorder()
	start := time.Now()
	srv.adapt(rt).ServeHTTP(w, httptest.NewRequest("GET", "/v1/slow", nil))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || time.Since(start) > 2*time.Second ||
		!strings.Contains(w.Body.String(), "time budget") {
		t.Errorf("%d %v %s after %v", w.Code, w.Header(), w.Body, time.Since(start))
	}
	if b := httpapi.BudgetOf(&httpapi.Route{Path: "/v1/buildings", Surface: dataAPI}); b != httpapi.DefaultBudget {
		t.Errorf("default budget %v", b)
	}
}

// TestStorageFullIs503: a write refused for want of space (state.ErrFull,
// however wrapped) is a 503 with Retry-After, not a 500.
func TestStorageFullIs503(t *testing.T) {
	he := httpapi.ToHTTPError(fmt.Errorf("access: mint trial key: %w", fmt.Errorf("state: create key: %w", state.ErrFull)))
	if he.Status != 503 || he.Header.Get("Retry-After") == "" || strings.Contains(he.Detail, "state:") {
		t.Fatalf("%+v", he)
	}
}

// TestDeclaredParamsEnforced walks every declared route: for each query
// parameter with a type, range, enum or pattern it sends a value the
// declaration does not admit and expects a problem that names the
// parameter, with a 4xx status and problem type the route declares. So the OpenAPI
// document cannot promise a range the parser does not hold (rotate_x was
// documented without one and parsed with one), and no declared constraint
// goes unchecked.
func TestDeclaredParamsEnforced(t *testing.T) {
	f := rasterFix(t)
	srv, err := New(Config{BaseURL: "http://api.test", AdminToken: testToken}, f.srv.deps)
	if err != nil {
		t.Fatal(err)
	}
	// get sends the admin token on admin routes: only with it are their
	// parameters read at all.
	get := func(t *testing.T, u string, admin bool) (int, map[string]any) {
		r := httptest.NewRequest("GET", u, nil)
		if admin {
			r.Header.Set("X-Svc-Admin-Token", testToken)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: %d %v", u, w.Code, err)
		}
		return w.Code, body
	}
	checked, clamps := 0, 0
	for _, rt := range srv.routes {
		if rt.Hidden || rt.Method != "GET" {
			continue
		}
		declared := map[int][]string{} // status -> problem types
		for _, r := range apidoc.Responses(rt) {
			declared[r.Status] = httpapi.ProblemsOf(r)
		}
		base := url.Values{}
		path := rt.Path
		for _, p := range rt.Params {
			ex := fmt.Sprint(p.Example)
			if p.Example == nil {
				ex = fmt.Sprint(p.Default)
			}
			switch {
			case p.In == "path":
				path = strings.NewReplacer("{"+p.Name+"}", ex, "{"+p.Name+"...}", ex).Replace(path)
			case p.In == "query" && p.Required:
				base.Set(p.Name, ex)
			}
		}
		for _, p := range rt.Params {
			if p.In != "query" {
				continue
			}
			for _, bad := range badValues(p) {
				q := url.Values{}
				for k, v := range base {
					q[k] = v
				}
				q.Set(p.Name, bad)
				u := path + "?" + q.Encode()
				t.Run(rt.OpID+"/"+p.Name+"="+bad, func(t *testing.T) {
					code, body := get(t, u, rt.Admin)
					typ := strings.TrimPrefix(fmt.Sprint(body["type"]), "http://api.test/problems/")
					if code < 400 || code >= 500 || !slices.Contains(declared[code], typ) || !strings.Contains(fmt.Sprint(body["detail"]), p.Name) {
						t.Errorf("GET %s: %d %v; want a declared 4xx and problem type naming %s", u, code, body, p.Name)
					}
				})
				checked++
			}
			if !p.Clamp {
				continue
			}
			// A clamping parameter takes a value above its maximum as the
			// maximum: whatever the route answers, it is not a refusal of
			// this parameter.
			q := url.Values{}
			for k, v := range base {
				q[k] = v
			}
			q.Set(p.Name, strconv.FormatFloat(*p.Max+1, 'f', -1, 64))
			u := path + "?" + q.Encode()
			t.Run(rt.OpID+"/"+p.Name+" clamped", func(t *testing.T) {
				code, body := get(t, u, rt.Admin)
				if code >= 400 && strings.Contains(fmt.Sprint(body["detail"]), p.Name) {
					t.Errorf("GET %s: %d %v; a value above the maximum of %s is taken as the maximum", u, code, body, p.Name)
				}
			})
			clamps++
		}
	}
	if clamps == 0 {
		t.Error("no clamping parameter found: the OGC limit clamps")
	}
	if checked < 40 {
		t.Fatalf("only %d parameter checks: the route walk found too few constrained parameters", checked)
	}
	// Without the token an admin route answers 401 before it looks at its
	// parameters.
	if code, body := get(t, "/v1/admin/audit?limit=abc&nope=1", false); code != 401 {
		t.Errorf("admin route without token and with bad parameters: %d %v", code, body)
	}
}

// badValues are values p's declaration refuses.
func badValues(p httpapi.Param) []string {
	var out []string
	switch p.Type {
	case "integer":
		out = append(out, "1.5", "0x10")
		if p.Min != nil {
			out = append(out, strconv.Itoa(int(*p.Min)-1))
		}
		if p.Max != nil && !p.Clamp { // a clamping parameter takes it as max
			out = append(out, strconv.Itoa(int(*p.Max)+1))
		}
	case "number":
		out = append(out, "abc", "1_0", "Inf")
		if p.Min != nil {
			out = append(out, strconv.FormatFloat(*p.Min-1, 'f', -1, 64))
		}
		if p.Max != nil && !p.Clamp {
			out = append(out, strconv.FormatFloat(*p.Max+1, 'f', -1, 64))
		}
	case "boolean":
		out = append(out, "maybe", "T")
	}
	if p.Enum != nil {
		out = append(out, "no-such-"+p.Name)
	}
	if p.Pattern != "" && p.Type == "string" {
		re := regexp.MustCompile(p.Pattern)
		for _, v := range []string{"!!", "a b", ""} {
			if !re.MatchString(v) {
				out = append(out, v)
				break
			}
		}
	}
	if p.Parse != nil && p.Type == "string" && p.Enum == nil {
		out = append(out, "~~~")
	}
	return out
}

// TestOneProblemTable: problems come from the table alone. No file of
// server/ or its packages but httpapi/problem.go makes an HTTPError, no
// handler writes an error status itself, and every slug of the table has its description page
// under /problems.
func TestOneProblemTable(t *testing.T) {
	for _, row := range httpapi.ProblemTable {
		if _, ok := httpapi.ProblemTypes[row.Slug]; !ok {
			t.Errorf("problem type %q has no description", row.Slug)
		}
	}
	fset := token.NewFileSet()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || filepath.ToSlash(name) == "httpapi/problem.go" {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "HTTPError" || isSel(n.Type, "HTTPError") {
					t.Errorf("%s: an httpError made outside the problem table", fset.Position(n.Pos()))
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "WriteHeader" || len(n.Args) != 1 {
					return true
				}
				if code, ok := n.Args[0].(*ast.SelectorExpr); ok && strings.HasPrefix(code.Sel.Name, "Status") {
					// A name whose status cannot be told is refused too.
					if st := statusByName(code.Sel.Name); st == 0 || st >= 400 {
						t.Errorf("%s: WriteHeader(%s) outside the problem table", fset.Position(n.Pos()), code.Sel.Name)
					}
				}
			}
			return true
		})
	}
}

// isSel tells whether e is a selector of name (pkg.name).
func isSel(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

// statusByName maps net/http's Status constants to their codes.
func statusByName(name string) int {
	for code := 100; code < 600; code++ {
		if txt := http.StatusText(code); txt != "" && "Status"+strings.NewReplacer(" ", "", "-", "", "'", "").Replace(txt) == name {
			return code
		}
	}
	return 0
}
