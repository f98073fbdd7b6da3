package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/svc-geodata/svc"

// layers is the table of docs/architecture.md: each package of the module
// belongs to one layer and may import the packages of the layers it names.
var layers = []struct {
	name string
	pkgs []string
	may  []string
}{
	{"foundation", []string{"geo", "bl", "pack", "raster", "geoid", "glb", "glb/draco", "citygml", "citygml/measure", "adv", "osmdata", "rtin", "hillshade", "tilecache", "cql2", "mvt", "solar", "solar/climate", "solar/climate/germany", "pmtiles", "maplayer", "threetz"}, []string{"foundation"}},
	{"storage", []string{"lod2store", "lod2store/spatialite", "solarstore", "terrain", "shading", "roofsolar", "state", "state/sqlite", "state/postgres"}, []string{"foundation", "storage"}},
	{"catalog", []string{"catalog"}, []string{"foundation", "storage"}},
	{"use cases", []string{"buildings", "query", "export", "contour"}, []string{"foundation", "storage", "catalog"}},
	{"builders", []string{"importer", "tiles3d", "qmesh", "demtile", "demo", "solarbuild"}, []string{"foundation", "storage", "builders"}},
	{"access", []string{"access"}, []string{"foundation", "storage"}},
	{"http framework", []string{"server/httpapi", "server/apidoc", "server/metrics", "viewer"}, []string{"foundation", "storage", "catalog", "use cases", "builders", "access", "http framework"}},
	// A surface imports the framework, never server nor another surface.
	{"http surfaces", []string{"server/opentopo", "server/ogcapi", "server/keysadmin", "server/static", "server/terrainapi", "server/dataapi"}, []string{"foundation", "storage", "catalog", "use cases", "builders", "access", "http framework"}},
	{"http", []string{"server"}, []string{"foundation", "storage", "catalog", "use cases", "builders", "access", "http framework", "http surfaces", "http"}},
	{"cli", []string{"cmd", "."}, []string{"foundation", "storage", "catalog", "use cases", "builders", "access", "http framework", "http surfaces", "http", "cli"}},
}

// external names the only packages that may import a library or standard
// package of the left column, and why.
var external = map[string][]string{
	// Serving is the http and cli layers' job; raster, terrain and importer
	// read COGs published by URL with range requests.
	"net/http": {"server", "server/httpapi", "server/apidoc", "server/opentopo", "server/ogcapi", "server/keysadmin", "server/static", "server/terrainapi", "server/dataapi", "viewer", "cmd", "raster", "terrain", "importer"},
	// Drivers stay behind the stores that need them.
	"github.com/jackc/pgx/v5":         {"state/postgres"},
	"github.com/jackc/pgx/v5/pgconn":  {"state/postgres"},
	"github.com/jackc/pgx/v5/pgxpool": {"state/postgres"},
	"modernc.org/sqlite":              {"lod2store", "lod2store/spatialite", "solarstore", "state/sqlite"},
	"modernc.org/sqlite/lib":          {"lod2store", "lod2store/spatialite", "solarstore", "state/sqlite"},
}

// TestImportRules reads the imports of every non-test Go file of the module
// and holds them to docs/architecture.md.
func TestImportRules(t *testing.T) {
	layerOf := map[string]string{}
	for _, l := range layers {
		for _, p := range l.pkgs {
			layerOf[p] = l.name
		}
	}
	imports := map[string]map[string]bool{} // package dir -> imported paths
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "data" || n == "scripts" || (p == "bench")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, is := range f.Imports {
			v, _ := strconv.Unquote(is.Path.Value)
			imports[dir][v] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < len(layerOf) {
		t.Fatalf("read %d packages, the table names %d", len(imports), len(layerOf))
	}
	for dir, imps := range imports {
		internalPkg := dir == "internal" || strings.HasPrefix(dir, "internal/") || strings.Contains(dir, "/internal/")
		from, ok := layerOf[dir]
		if !ok && !internalPkg {
			t.Errorf("package %s is in no layer of docs/architecture.md: add it to the table (and to TestImportRules)", dir)
			continue
		}
		for imp := range imps {
			if who, ok := external[imp]; ok && !slices.Contains(who, dir) && !internalPkg {
				t.Errorf("%s imports %s, which only %v may import (docs/architecture.md)", dir, imp, who)
			}
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") {
				if !internalPkg {
					t.Errorf("%s imports %s: internal packages are for tests and generators only", dir, rel)
				}
				continue
			}
			if internalPkg {
				continue
			}
			to, ok := layerOf[rel]
			if !ok {
				t.Errorf("%s imports %s, which is in no layer", dir, rel)
				continue
			}
			for _, l := range layers {
				if l.name == from && !slices.Contains(l.may, to) {
					t.Errorf("%s (%s) imports %s (%s): the %s layer may import only %v (docs/architecture.md)", dir, from, rel, to, from, l.may)
				}
			}
		}
	}
	// The doc names every package of the table.
	doc, err := os.ReadFile(filepath.Join("docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for p := range layerOf {
		if p != "." && !strings.Contains(string(doc), path.Base(p)) {
			t.Errorf("docs/architecture.md does not name package %s", p)
		}
	}
}
