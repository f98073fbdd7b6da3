package server

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestSurfaceFeaturesMatchTheirSchema: the surface features /v1/buildings
// and the OGC collections actually answer have exactly the properties the
// published OpenAPI document names for them, in the documented order for
// OGC, with values of the documented types - so a property added to the
// writer but not to the document (or the reverse) fails here.
func TestSurfaceFeaturesMatchTheirSchema(t *testing.T) {
	f := demoFixture(t)
	_, raw := f.do(t, "GET", "/openapi.json", nil)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Required   []string
				Properties map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	propSchema := schemas["BuildingSurfaceProperties"]
	documented := slices.Sorted(mapKeys(propSchema.Properties))
	if req := slices.Sorted(slices.Values(propSchema.Required)); len(documented) == 0 || !slices.Equal(req, documented) {
		t.Fatalf("BuildingSurfaceProperties: properties %v, required %v", documented, propSchema.Required)
	}
	featureKeys := slices.Sorted(mapKeys(schemas["BuildingSurfaceFeature"].Properties))

	// /v1/buildings over every demo state.
	_, body := f.do(t, "GET", "/v1/buildings?bbox=6,50,14,55&limit=1000", nil)
	var page struct{ Features []json.RawMessage }
	if err := json.Unmarshal(body, &page); err != nil || len(page.Features) == 0 {
		t.Fatalf("search: %v, %d features", err, len(page.Features))
	}
	for _, raw := range page.Features {
		var feat map[string]json.RawMessage
		if err := json.Unmarshal(raw, &feat); err != nil {
			t.Fatal(err)
		}
		if got := slices.Sorted(mapKeys(feat)); !slices.Equal(got, featureKeys) {
			t.Fatalf("feature members %v, BuildingSurfaceFeature documents %v", got, featureKeys)
		}
		props := orderedMembers(t, feat["properties"])
		var names []string
		for _, m := range props {
			names = append(names, m.name)
			checkValue(t, m.name, m.value, propSchema.Properties[m.name])
		}
		if slices.Sort(names); !slices.Equal(names, documented) {
			t.Fatalf("properties %v, documented %v", names, documented)
		}
	}

	// OGC: the OGCFeature schema names the properties of each kind of
	// collection in its description, "surfaces (and surfaces-<bl>): a, b, ...; roofs: ...".
	var desc struct{ Description string }
	if err := json.Unmarshal(schemas["OGCFeature"].Properties["properties"], &desc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string][]string{}
	for _, part := range strings.Split(desc.Description, "; ") {
		kind, list, _ := strings.Cut(part, ": ")
		kinds[kind] = strings.Split(list, ", ")
	}
	if len(kinds["surfaces (and surfaces-<bl>)"]) == 0 || len(kinds["roofs"]) == 0 {
		t.Fatalf("OGCFeature properties description %q", desc.Description)
	}
	for _, c := range []struct{ path, kind string }{
		{"/ogc/collections/surfaces/items?limit=1000", "surfaces (and surfaces-<bl>)"},
		{"/ogc/collections/surfaces-he/items?limit=50&crs=http://www.opengis.net/def/crs/EPSG/0/25832", "surfaces (and surfaces-<bl>)"},
		{"/ogc/collections/roofs/items?limit=1000", "roofs"},
		{"/ogc/collections/surfaces/items/he.5", "surfaces (and surfaces-<bl>)"},
		{"/ogc/collections/roofs/items/bb.6", "roofs"},
	} {
		resp, body := f.do(t, "GET", c.path, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", c.path, resp.StatusCode, body)
		}
		var fc struct{ Features []json.RawMessage }
		if strings.Contains(c.path, "/items/") {
			fc.Features = []json.RawMessage{body}
		} else if err := json.Unmarshal(body, &fc); err != nil || len(fc.Features) == 0 {
			t.Fatalf("%s: %v, %d features", c.path, err, len(fc.Features))
		}
		for _, raw := range fc.Features {
			var feat map[string]json.RawMessage
			if err := json.Unmarshal(raw, &feat); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range orderedMembers(t, feat["properties"]) {
				names = append(names, m.name)
			}
			// The single item is re-encoded through a map, whose keys
			// come out sorted; a page keeps the written order.
			want := kinds[c.kind]
			if strings.Contains(c.path, "/items/") {
				want = slices.Sorted(slices.Values(want))
			}
			if !slices.Equal(names, want) {
				t.Fatalf("%s: properties %v, OGCFeature documents %v", c.path, names, want)
			}
		}
	}
}

type member struct {
	name  string
	value json.RawMessage
}

// orderedMembers returns the members of a JSON object in written order.
func orderedMembers(t *testing.T, raw json.RawMessage) []member {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %.100s", raw)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{tok.(string), v})
	}
	return out
}

// checkValue checks a value against its property schema: type (with
// null), and enum.
func checkValue(t *testing.T, name string, v json.RawMessage, schema json.RawMessage) {
	t.Helper()
	var s struct {
		Type any
		Enum []any
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("%s: schema %s", name, schema)
	}
	var types []string
	switch tt := s.Type.(type) {
	case string:
		types = []string{tt}
	case []any:
		for _, x := range tt {
			types = append(types, x.(string))
		}
	}
	var val any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&val); err != nil {
		t.Fatal(err)
	}
	kind := "null"
	switch x := val.(type) {
	case string:
		kind = "string"
	case json.Number:
		kind = "number"
		if _, err := x.Int64(); err == nil && slices.Contains(types, "integer") {
			kind = "integer"
		}
	case bool:
		kind = "boolean"
	}
	if !slices.Contains(types, kind) {
		t.Fatalf("%s = %s, schema type %v", name, v, types)
	}
	if s.Enum != nil {
		var plain any
		json.Unmarshal(v, &plain)
		if !slices.Contains(s.Enum, plain) {
			t.Fatalf("%s = %s, not in enum %v", name, v, s.Enum)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
