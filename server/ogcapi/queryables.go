package ogcapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/svc-geodata/svc/server/httpapi"
)

const queryablesDesc = "The properties a `filter` (CQL2, OGC API - Features Part 3) and `sortby` may use, as a JSON Schema " +
	"(draft 2020-12) object: each property with its type, enumerated values where it has a closed list (`surface_class`), and " +
	"`geometry` (the feature's MultiPolygon, `x-ogc-role: primary-geometry`), which the spatial functions (S_INTERSECTS ...) " +
	"take. The queryables are the properties the features carry, so a filter and the answer speak of the same values. " +
	"Spatial predicates are evaluated on the geometry in CRS84 (planar in degrees); `filter-crs` converts the filter's " +
	"geometry literals to CRS84 first."

// queryablesDoc is the JSON Schema of collection c's queryables (with
// geometry) or sortables (without).
func (s *surface) queryablesDoc(c ogcCollection, path string, geometry bool) map[string]any {
	props := map[string]any{}
	if geometry {
		props[geometryName] = map[string]any{"title": "geometry", "format": "geometry-multipolygon",
			"x-ogc-role": "primary-geometry", "description": "the surface's polygons (GeoJSON MultiPolygon)"}
	}
	for _, p := range formOf(c).Properties {
		d := map[string]any{"title": p.Name, "type": p.Type}
		if p.Nullable {
			d["type"] = []string{p.Type, "null"}
		}
		if p.Desc != "" {
			d["description"] = p.Desc
		}
		if p.Enum != nil {
			d["enum"] = p.Enum
		}
		props[p.Name] = d
	}
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": s.BaseURL + path,
		"type": "object", "title": c.title, "properties": props, "additionalProperties": false}
}

func (s *surface) handleOGCQueryables(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	return s.answerSchema(w, r, in, "queryables", true)
}

func (s *surface) handleOGCSortables(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	return s.answerSchema(w, r, in, "sortables", false)
}

func (s *surface) answerSchema(w http.ResponseWriter, r *http.Request, in *httpapi.Input, what string, geometry bool) error {
	html := wantsHTML(r, in)
	v, release := s.Catalog.Acquire()
	defer release()
	c, err := findCollection(v, in.Str("collectionId"))
	if err != nil {
		return err
	}
	path := "/ogc/collections/" + c.id + "/" + what
	doc := s.queryablesDoc(c, path, geometry)
	if c.whole {
		doc = s.wholeQueryablesDoc(c, path, geometry)
	}
	if html {
		// One row per property: its type, description and values.
		rows := map[string]any{}
		for name, d := range doc["properties"].(map[string]any) {
			d := d.(map[string]any)
			row := fmt.Sprint(d["type"])
			if f, ok := d["format"]; ok {
				row = fmt.Sprint(f)
			}
			if desc, ok := d["description"]; ok {
				row += "; " + fmt.Sprint(desc)
			}
			if e, ok := d["enum"]; ok {
				row += fmt.Sprintf("; values %v", e)
			}
			rows[name] = row
		}
		page := map[string]any{"links": s.selfLinks(path, nil, true, "application/schema+json"), "properties": rows}
		return s.writeOGCHTML(w, c.title+": "+what, page)
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/schema+json")
	_, _ = w.Write(append(body, '\n'))
	return nil
}
