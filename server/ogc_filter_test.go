package server

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// ogcFeat is a feature as a client reads it.
type ogcFeat struct {
	ID       string `json:"id"`
	Geometry struct {
		Coordinates [][][][]float64 `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

// ogcAll follows the next links from path and returns every feature, in
// order, and the number of pages.
func ogcAll(t *testing.T, path string) ([]ogcFeat, int) {
	t.Helper()
	ts, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	var out []ogcFeat
	pages := 0
	for path != "" {
		rec := httptest.NewRecorder()
		ts.Config.Handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.Bytes())
		}
		var p struct {
			Features []ogcFeat
			Links    []map[string]any
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Features...)
		pages++
		path = nextOf(ogcTestPage{Links: p.Links})
		if pages > 10000 {
			t.Fatal("paging does not end")
		}
	}
	return out, pages
}

func ids(fs []ogcFeat) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func num(f ogcFeat, name string) float64 { v, _ := f.Properties[name].(float64); return v }
func str(f ogcFeat, name string) string  { v, _ := f.Properties[name].(string); return v }

// inBox tells whether a vertex of f lies in the box; envMeets whether f's
// envelope meets it. A feature S_INTERSECTS a box must have the second and
// must be found when it has the first.
func inBox(f ogcFeat, b [4]float64) bool {
	for _, poly := range f.Geometry.Coordinates {
		for _, ring := range poly {
			for _, p := range ring {
				if p[0] >= b[0] && p[0] <= b[2] && p[1] >= b[1] && p[1] <= b[3] {
					return true
				}
			}
		}
	}
	return false
}

func envMeets(f ogcFeat, b [4]float64) bool {
	e := [4]float64{180, 90, -180, -90}
	for _, poly := range f.Geometry.Coordinates {
		for _, ring := range poly {
			for _, p := range ring {
				e = [4]float64{min(e[0], p[0]), min(e[1], p[1]), max(e[2], p[0]), max(e[3], p[1])}
			}
		}
	}
	return e[0] <= b[2] && e[2] >= b[0] && e[1] <= b[3] && e[3] >= b[1]
}

func q(s string) string { return url.QueryEscape(s) }

// TestOGCFilter: a CQL2 filter on the federated surface collections
// answers exactly the features a predicate written out in Go selects from
// the unfiltered collection, in the same order, in one page and through
// next links of 7; cql2-json gives what cql2-text gives.
func TestOGCFilter(t *testing.T) {
	all, _ := ogcAll(t, ogcItems+"?limit=10000")
	roofs, _ := ogcAll(t, "/ogc/collections/roofs/items?limit=10000")
	if len(all) < 1000 || len(roofs) < 100 {
		t.Fatalf("%d surfaces, %d roofs", len(all), len(roofs))
	}
	bls := map[string]bool{}
	for _, f := range all {
		bls[str(f, "bundesland")] = true
	}
	if len(bls) < 2 {
		t.Fatalf("the demo should federate several BL: %v", bls)
	}
	gm := str(all[len(all)/2], "gmlid")
	prefix := gm[:len(gm)/2]
	// A box around the middle of the first feature of the second BL.
	var mid ogcFeat
	for _, f := range all {
		if str(f, "bundesland") != str(all[0], "bundesland") {
			mid = f
			break
		}
	}
	p0 := mid.Geometry.Coordinates[0][0][0]
	box := [4]float64{p0[0] - 0.0008, p0[1] - 0.0005, p0[0] + 0.0008, p0[1] + 0.0005}
	boxText := fmt.Sprintf("BBOX(%g,%g,%g,%g)", box[0], box[1], box[2], box[3])
	cases := []struct {
		name, coll, filter, lang, crs string
		want                          func(ogcFeat) bool
		spatial                       bool
	}{
		{name: "roof class", filter: "surface_class = 712", want: func(f ogcFeat) bool { return num(f, "surface_class") == 712 }},
		{name: "IN and less", filter: "surface_class IN (709, 710) AND building_id < 20",
			want: func(f ogcFeat) bool {
				c := num(f, "surface_class")
				return (c == 709 || c == 710) && num(f, "building_id") < 20
			}},
		{name: "OR of two BL", filter: "bundesland = 'he' OR bundesland = 'by'",
			want: func(f ogcFeat) bool { return str(f, "bundesland") == "he" || str(f, "bundesland") == "by" }},
		{name: "LIKE prefix", filter: "gmlid LIKE '" + prefix + "%'", want: func(f ogcFeat) bool { return strings.HasPrefix(str(f, "gmlid"), prefix) }},
		{name: "NOT", filter: "NOT (surface_class = 709)", want: func(f ogcFeat) bool { return num(f, "surface_class") != 709 }},
		{name: "BETWEEN", filter: "building_id BETWEEN 3 AND 5 AND surface_id > 10",
			want: func(f ogcFeat) bool { b := num(f, "building_id"); return b >= 3 && b <= 5 && num(f, "surface_id") > 10 }},
		{name: "CASEI", filter: "CASEI(bundesland) = CASEI('HE')", want: func(f ogcFeat) bool { return str(f, "bundesland") == "he" }},
		{name: "cql2-json", lang: "cql2-json",
			filter: `{"op":"and","args":[{"op":"=","args":[{"property":"surface_class"},712]},{"op":"<=","args":[{"property":"building_id"},7]}]}`,
			want:   func(f ogcFeat) bool { return num(f, "surface_class") == 712 && num(f, "building_id") <= 7 }},
		{name: "roofs: area and tilt", coll: "roofs", filter: "area_m2 > 40 AND tilt_deg < 20",
			want: func(f ogcFeat) bool {
				t, ok := f.Properties["tilt_deg"].(float64)
				return num(f, "area_m2") > 40 && ok && t < 20
			}},
		{name: "roofs: azimuth null", coll: "roofs", filter: "azimuth_deg IS NULL", want: func(f ogcFeat) bool { return f.Properties["azimuth_deg"] == nil }},
		{name: "S_INTERSECTS BBOX", filter: "S_INTERSECTS(geometry, " + boxText + ")", spatial: true},
		{name: "S_INTERSECTS BBOX, filter-crs EPSG:4326 (lat first)", crs: "EPSG:4326", spatial: true,
			filter: fmt.Sprintf("S_INTERSECTS(geometry, BBOX(%g,%g,%g,%g))", box[1], box[0], box[3], box[2])},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			coll, ref := "surfaces", all
			if tc.coll == "roofs" {
				coll, ref = "roofs", roofs
			}
			query := "filter=" + q(tc.filter)
			if tc.lang != "" {
				query += "&filter-lang=" + tc.lang
			}
			if tc.crs != "" {
				query += "&filter-crs=" + q(tc.crs)
			}
			base := "/ogc/collections/" + coll + "/items?" + query
			got, _ := ogcAll(t, base+"&limit=10000")
			if tc.spatial {
				in := map[string]bool{}
				for _, f := range got {
					in[f.ID] = true
					if !envMeets(f, box) {
						t.Errorf("%s does not meet the box", f.ID)
					}
				}
				n := 0
				for _, f := range ref {
					if inBox(f, box) {
						n++
						if !in[f.ID] {
							t.Errorf("%s has a vertex in the box but was not found", f.ID)
						}
					}
				}
				if n == 0 {
					t.Fatal("no feature in the box")
				}
			} else {
				var want []string
				for _, f := range ref {
					if tc.want(f) {
						want = append(want, f.ID)
					}
				}
				if len(want) == 0 || len(want) == len(ref) {
					t.Fatalf("a filter selecting %d of %d features judges nothing", len(want), len(ref))
				}
				if !slices.Equal(ids(got), want) {
					t.Fatalf("got %d features, want %d: first got %v, want %v", len(got), len(want), ids(got)[:min(5, len(got))], want[:min(5, len(want))])
				}
			}
			paged, pages := ogcAll(t, base+"&limit=7")
			if !slices.Equal(ids(paged), ids(got)) || len(got) > 7 && pages < 2 {
				t.Fatalf("paging by 7 gave %d features in %d pages, one page %d", len(paged), pages, len(got))
			}
		})
	}
}

// TestOGCSortBy: sortby orders by its keys then the id, paging by next
// links gives the one-page order, and null sorts first ascending.
func TestOGCSortBy(t *testing.T) {
	for _, tc := range []struct {
		coll, sortby string
		less         func(a, b ogcFeat) int
	}{
		{"surfaces", "-building_id,surface_class", func(a, b ogcFeat) int {
			return cmp.Or(-cmp.Compare(num(a, "building_id"), num(b, "building_id")), cmp.Compare(num(a, "surface_class"), num(b, "surface_class")))
		}},
		{"roofs", "azimuth_deg,-area_m2", func(a, b ogcFeat) int {
			an, bn := a.Properties["azimuth_deg"] == nil, b.Properties["azimuth_deg"] == nil
			if an != bn {
				return map[bool]int{true: -1, false: 1}[an]
			}
			return cmp.Or(cmp.Compare(num(a, "azimuth_deg"), num(b, "azimuth_deg")), -cmp.Compare(num(a, "area_m2"), num(b, "area_m2")))
		}},
	} {
		t.Run(tc.coll+" "+tc.sortby, func(t *testing.T) {
			base := "/ogc/collections/" + tc.coll + "/items?filter=" + q("bundesland <> 'by'")
			ref, _ := ogcAll(t, base+"&limit=10000")
			want := slices.Clone(ref)
			byID := func(a, b ogcFeat) int {
				ab, as, _ := strings.Cut(a.ID, ".")
				bb, bs, _ := strings.Cut(b.ID, ".")
				return cmp.Or(strings.Compare(ab, bb), cmp.Compare(len(as), len(bs)), strings.Compare(as, bs))
			}
			slices.SortStableFunc(want, func(a, b ogcFeat) int { return cmp.Or(tc.less(a, b), byID(a, b)) })
			got, _ := ogcAll(t, base+"&sortby="+q(tc.sortby)+"&limit=10000")
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("sorted order differs: got %v..., want %v...", ids(got)[:5], ids(want)[:5])
			}
			paged, pages := ogcAll(t, base+"&sortby="+q(tc.sortby)+"&limit=9")
			if !slices.Equal(ids(paged), ids(want)) || pages < 2 {
				t.Fatalf("paging by 9 gave %d features in %d pages, want %d", len(paged), pages, len(want))
			}
		})
	}
}

// TestOGCPropertiesSelection: properties= writes only the named properties.
func TestOGCPropertiesSelection(t *testing.T) {
	got, _ := ogcAll(t, ogcItems+"?limit=20&properties=surface_class,gmlid")
	for _, f := range got {
		keys := make([]string, 0, len(f.Properties))
		for k := range f.Properties {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"gmlid", "surface_class"}) || f.ID == "" || len(f.Geometry.Coordinates) == 0 {
			t.Fatalf("%s: properties %v", f.ID, keys)
		}
	}
}

// TestOGCFilterRefused: a bad filter, an unknown queryable and the other
// misuses are 400 problems naming what is wrong and where.
func TestOGCFilterRefused(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		mention     []string
	}{
		{"syntax", "filter=" + q("surface_class = 712 AND OR gmlid = 'x'"), []string{"1:25", `"OR"`, `"column":25`, `"offset":24`, `"token":"OR"`}},
		{"unknown queryable", "filter=" + q("hight > 3"), []string{"hight", `"line":1`}},
		{"not in the enum", "filter=" + q("surface_class = 999"), []string{"999", "surface_class"}},
		{"type mismatch", "filter=" + q("gmlid > 3"), []string{"compares a string with a number", `"token":"3"`}},
		{"cql2-json pointer", "filter-lang=cql2-json&filter=" + q(`{"op":"=","args":[{"property":"nope"},1]}`), []string{"nope", `"pointer"`}},
		{"cql2-json not json", "filter-lang=cql2-json&filter=" + q(`{"op":`), []string{"cql2-json"}},
		{"bad filter-lang", "filter=" + q("surface_class = 712") + "&filter-lang=cql", []string{"filter-lang"}},
		{"filter-crs without filter", "filter-crs=EPSG:25832", []string{"needs a filter"}},
		{"unsupported filter-crs", "filter=" + q("surface_class = 712") + "&filter-crs=EPSG:31467", []string{"filter-crs"}},
		{"unknown sortby", "sortby=-height", []string{"height", "sortby"}},
		{"empty sortby key", "sortby=gmlid,,", []string{"sortby"}},
		{"geometry sortby", "sortby=geometry", []string{"geometry"}},
		{"unknown property", "properties=gmlid,colour", []string{"colour", "properties"}},
		{"sorted cursor without sortby", "cursor=s.e30", []string{"cursor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := ogcGet(t, ogcItems+"?"+tc.query)
			if code != 400 || !strings.Contains(string(body), `"status":400`) {
				t.Fatalf("%d %s", code, body)
			}
			for _, m := range tc.mention {
				if !strings.Contains(string(body), m) {
					t.Errorf("problem lacks %s: %s", m, body)
				}
			}
		})
	}
}

// TestOGCQueryablesSchema: /queryables is a JSON Schema 2020-12 document
// (Ajv's metaschema check), served as application/schema+json, and every
// feature the collection answers validates against it; the conformance
// declares the filter classes.
func TestOGCQueryablesSchema(t *testing.T) {
	node := testtool.Node(t, "ajv")
	ts, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, coll := range []string{"surfaces", "roofs", "surfaces-he"} {
		for _, what := range []string{"queryables", "sortables"} {
			rec := httptest.NewRecorder()
			ts.Config.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/ogc/collections/"+coll+"/"+what, nil))
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/schema+json" {
				t.Fatalf("%s/%s: %d %s", coll, what, rec.Code, rec.Header().Get("Content-Type"))
			}
			schema := filepath.Join(dir, coll+what+".json")
			os.WriteFile(schema, rec.Body.Bytes(), 0o644)
			feats, _ := ogcAll(t, "/ogc/collections/"+coll+"/items?limit=300")
			var props []map[string]any
			for _, f := range feats {
				props = append(props, f.Properties)
			}
			data, _ := json.Marshal(props)
			instances := filepath.Join(dir, coll+what+"-props.json")
			os.WriteFile(instances, data, 0o644)
			cmd := exec.Command(node, "testdata/validate_queryables.cjs", schema, instances)
			cmd.Env = append(os.Environ(), "NODE_PATH="+testtool.NodeModules(t))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s/%s: %v\n%s", coll, what, err, out)
			}
		}
	}
	_, body, _ := ogcGet(t, "/ogc/conformance")
	for _, c := range []string{"ogcapi-features-3/1.0/conf/filter", "ogcapi-features-3/1.0/conf/queryables", "cql2/1.0/conf/cql2-text",
		"cql2/1.0/conf/cql2-json", "cql2/1.0/conf/basic-spatial-functions", "cql2/1.0/conf/advanced-comparison-operators"} {
		if !strings.Contains(string(body), c) {
			t.Errorf("conformance lacks %s", c)
		}
	}
}

// TestOGCFilterCRSProjected: a polygon literal in EPSG:25832 (its corners
// converted from a CRS84 box by PROJ's cs2cs) with filter-crs finds every
// surface with a vertex well inside the box and none whose envelope is
// well outside it.
func TestOGCFilterCRSProjected(t *testing.T) {
	cs2cs := testtool.Require(t, "cs2cs", "apt-get install proj-bin")
	all, _ := ogcAll(t, "/ogc/collections/surfaces-he/items?limit=10000")
	p0 := all[len(all)/3].Geometry.Coordinates[0][0][0]
	box := [4]float64{p0[0] - 0.001, p0[1] - 0.0006, p0[0] + 0.001, p0[1] + 0.0006}
	cmd := exec.Command(cs2cs, "-f", "%.4f", "OGC:CRS84", "EPSG:25832")
	cmd.Stdin = strings.NewReader(fmt.Sprintf("%.9f %.9f\n%.9f %.9f\n%.9f %.9f\n%.9f %.9f\n",
		box[0], box[1], box[2], box[1], box[2], box[3], box[0], box[3]))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cs2cs: %v", err)
	}
	var ring []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		ring = append(ring, f[0]+" "+f[1])
	}
	ring = append(ring, ring[0])
	filter := "S_INTERSECTS(geometry, POLYGON((" + strings.Join(ring, ", ") + ")))"
	got, _ := ogcAll(t, "/ogc/collections/surfaces-he/items?limit=10000&filter-crs="+q("http://www.opengis.net/def/crs/EPSG/0/25832")+"&filter="+q(filter))
	in := map[string]bool{}
	const slack = 0.00005 // ~4 m: the UTM quadrilateral's edges are not the box's
	outer := [4]float64{box[0] - slack, box[1] - slack, box[2] + slack, box[3] + slack}
	inner := [4]float64{box[0] + slack, box[1] + slack, box[2] - slack, box[3] - slack}
	for _, f := range got {
		in[f.ID] = true
		if !envMeets(f, outer) {
			t.Errorf("%s lies outside the box", f.ID)
		}
	}
	n := 0
	for _, f := range all {
		if inBox(f, inner) {
			n++
			if !in[f.ID] {
				t.Errorf("%s has a vertex inside the box but was not found", f.ID)
			}
		}
	}
	if n == 0 || len(got) == len(all) {
		t.Fatalf("%d inside, %d found of %d: judges nothing", n, len(got), len(all))
	}
	t.Logf("%d surfaces with a vertex inside, %d found, of %d", n, len(got), len(all))
}

// allInBox tells whether every vertex of f lies strictly inside the box.
func allInBox(f ogcFeat, b [4]float64) bool {
	for _, poly := range f.Geometry.Coordinates {
		for _, ring := range poly {
			for _, p := range ring {
				if p[0] <= b[0] || p[0] >= b[2] || p[1] <= b[1] || p[1] >= b[3] {
					return false
				}
			}
		}
	}
	return true
}

// TestOGCSpatialFunctions: beyond S_INTERSECTS, the other spatial
// functions through the items route: S_WITHIN a box is exactly the surfaces
// with every vertex inside it (the box is convex), S_DISJOINT is the
// complement of S_INTERSECTS, and S_CONTAINS of a point is a subset of
// S_INTERSECTS of it.
func TestOGCSpatialFunctions(t *testing.T) {
	const coll = "/ogc/collections/surfaces-he/items?limit=10000&filter="
	all, _ := ogcAll(t, coll[:len(coll)-len("&filter=")])
	p0 := all[len(all)/2].Geometry.Coordinates[0][0][0]
	box := [4]float64{p0[0] - 0.0009, p0[1] - 0.0006, p0[0] + 0.0009, p0[1] + 0.0006}
	bt := fmt.Sprintf("BBOX(%g,%g,%g,%g)", box[0], box[1], box[2], box[3])
	within, _ := ogcAll(t, coll+q("S_WITHIN(geometry, "+bt+")"))
	var want []string
	for _, f := range all {
		if allInBox(f, box) {
			want = append(want, f.ID)
		}
	}
	if len(want) == 0 || !slices.Equal(ids(within), want) {
		t.Fatalf("S_WITHIN: %d surfaces, %d have every vertex inside", len(within), len(want))
	}
	inter, _ := ogcAll(t, coll+q("S_INTERSECTS(geometry, "+bt+")"))
	disj, _ := ogcAll(t, coll+q("S_DISJOINT(geometry, "+bt+")"))
	seen := map[string]int{}
	for _, f := range append(inter, disj...) {
		seen[f.ID]++
	}
	if len(seen) != len(all) || len(inter)+len(disj) != len(all) {
		t.Fatalf("S_INTERSECTS %d + S_DISJOINT %d, %d distinct, of %d", len(inter), len(disj), len(seen), len(all))
	}
	pt := fmt.Sprintf("POINT(%g %g)", p0[0], p0[1])
	cont, _ := ogcAll(t, coll+q("S_INTERSECTS(geometry, "+pt+")"))
	if len(cont) == 0 {
		t.Fatalf("no surface meets its own vertex %s", pt)
	}
}
