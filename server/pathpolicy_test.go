package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoPathPolicy: the policy of a request is read from the route it
// matches, or for an unmatched request from the one table of path prefixes
// (surface.go, pathSurfaces). No other code of server/ (packages below it
// included) tests a string
// against a path (a literal or constant like "/v1/", "/ogc"): no
// strings.HasPrefix(r.URL.Path, "/opentopodata/"), no rt.path == "/ogc", no
// switch over paths. Such a test is how the OpenAPI document, /docs and the
// access layer came to disagree about the /ogc and /opentopodata limits.
func TestNoPathPolicy(t *testing.T) {
	for _, at := range pathTests(t, ".", "surface.go") {
		t.Errorf("%s: a path tested outside pathSurfaces (surface.go); put the policy on the route's surface", at)
	}
}

// stringTests are the functions of strings and bytes that test or take
// apart a string by its content.
var stringTests = map[string]bool{
	"HasPrefix": true, "HasSuffix": true, "CutPrefix": true, "CutSuffix": true, "TrimPrefix": true, "TrimSuffix": true,
	"Contains": true, "Index": true, "LastIndex": true, "EqualFold": true, "Cut": true, "Split": true, "SplitN": true,
	"SplitAfter": true, "Count": true, "Compare": true,
}

// pathTests lists the places in the non-test Go files of dir and the
// directories below it, except the file allowed of dir, where a string is tested against a path: a call of a string test
// of strings or bytes, a comparison with == or !=, or a switch case, with a
// path literal or a constant holding one.
func pathTests(t *testing.T, dir, allowed string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && path != filepath.Join(dir, allowed) {
			names = append(names, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	consts := map[string]bool{} // package constants holding a path
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, sp := range g.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok && isPathLit(lit) && i < len(vs.Names) {
							consts[vs.Names[i].Name] = true
						}
					}
				}
			}
		}
	}
	isPath := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.BasicLit:
			return isPathLit(e)
		case *ast.Ident:
			return consts[e.Name]
		}
		return false
	}
	var found []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || !stringTests[sel.Sel.Name] {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "strings" && pkg.Name != "bytes" {
					return true
				}
				for _, a := range n.Args {
					if isPath(a) {
						found = append(found, fset.Position(n.Pos()).String())
						break
					}
				}
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isPath(n.X) || isPath(n.Y)) {
					found = append(found, fset.Position(n.Pos()).String())
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isPath(e) {
						found = append(found, fset.Position(e.Pos()).String())
					}
				}
			}
			return true
		})
	}
	return found
}

// isPathLit tells a string literal that is an absolute path with at least
// one segment: "/v1/", "/ogc", not "/" alone.
func isPathLit(lit *ast.BasicLit) bool {
	if lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && len(s) > 1 && s[0] == '/' && s[1] != '/'
}
