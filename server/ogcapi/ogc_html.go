package ogcapi

import (
	"fmt"
	"html/template"
	"math"
	"net/http"
	"sort"
	"strings"
)

// The HTML side of the OGC API: one template renders any of its JSON
// documents (links, collections, conformance classes, features) as a page
// a person can click through, with the features of a page drawn on a small
// SVG map.

var ogcPage = template.Must(template.New("ogc").Funcs(template.FuncMap{
	"str": func(v any) string {
		if v == nil {
			return "null"
		}
		return fmt.Sprint(v)
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font:15px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:70rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
nav a{margin-right:1rem}svg{border:1px solid #ccc;background:#f7f7f2;max-width:100%;height:auto}code{background:#f2f2f2}</style></head>
<body><nav><a href="{{.Base}}/ogc?f=html">Landing page</a><a href="{{.Base}}/ogc/collections?f=html">Collections</a><a href="{{.Base}}/ogc/conformance?f=html">Conformance</a><a href="{{.Base}}/ogc/api">API definition</a></nav>
<h1>{{.Title}}</h1>
{{with .Doc.description}}<p>{{.}}</p>{{end}}
{{if .Map}}<svg viewBox="0 0 600 400" width="600" height="400" role="img" aria-label="map of the features on this page">{{range .Map}}<path d="{{.}}" fill="#c96" fill-opacity=".35" stroke="#733" stroke-width=".6"/>{{end}}</svg>{{end}}
{{with .Collections}}<table><tr><th>Collection</th><th>Description</th><th>Features</th></tr>{{range .}}<tr><td><a href="{{.Href}}">{{.Title}}</a><br><code>{{.ID}}</code></td><td>{{.Desc}}</td><td><a href="{{.Items}}">items</a></td></tr>{{end}}</table>{{end}}
{{with .Features}}<table><tr><th>id</th>{{range $.Columns}}<th>{{.}}</th>{{end}}</tr>{{range .}}<tr><td><a href="{{.Href}}">{{.ID}}</a></td>{{range .Values}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{with .Props}}<table>{{range .}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table>{{end}}
{{with .Doc.conformsTo}}<ul>{{range .}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{with .Links}}<h2>Links</h2><ul>{{range .}}<li><a href="{{.Href}}">{{if .Title}}{{.Title}}{{else}}{{.Rel}}{{end}}</a> <small>({{.Rel}}{{if .Type}}, {{.Type}}{{end}})</small></li>{{end}}</ul>{{end}}
</body></html>
`))

type htmlRow struct {
	ID, Href string
	Values   []string
}

type htmlCollection struct {
	ID, Title, Desc, Href, Items string
}

// writeOGCHTML renders doc (a decoded OGC JSON document) as a page.
func (s *surface) writeOGCHTML(w http.ResponseWriter, title string, doc map[string]any) error {
	page := struct {
		Title, Base string
		Doc         map[string]any
		Links       []ogcLink
		Collections []htmlCollection
		Columns     []string
		Features    []htmlRow
		Props       [][2]string
		Map         []string
	}{Title: title, Base: s.BaseURL, Doc: doc}
	page.Links = linksOf(doc["links"])
	if cols, ok := doc["collections"].([]map[string]any); ok {
		for _, c := range cols {
			hc := htmlCollection{ID: fmt.Sprint(c["id"]), Title: fmt.Sprint(c["title"]), Desc: fmt.Sprint(c["description"])}
			hc.Href = s.BaseURL + "/ogc/collections/" + hc.ID + "?f=html"
			hc.Items = s.BaseURL + "/ogc/collections/" + hc.ID + "/items?f=html"
			page.Collections = append(page.Collections, hc)
		}
	}
	var geoms []any
	if feats, ok := doc["features"].([]any); ok {
		colSet := map[string]bool{}
		for _, f := range feats {
			if fm, ok := f.(map[string]any); ok {
				if p, ok := fm["properties"].(map[string]any); ok {
					for k := range p {
						colSet[k] = true
					}
				}
			}
		}
		for k := range colSet {
			page.Columns = append(page.Columns, k)
		}
		sort.Strings(page.Columns)
		base := strings.SplitN(selfHref(page.Links), "?", 2)[0]
		for _, f := range feats {
			fm, _ := f.(map[string]any)
			id := fmt.Sprint(fm["id"])
			row := htmlRow{ID: id, Href: base + "/" + id + "?f=html"}
			p, _ := fm["properties"].(map[string]any)
			for _, c := range page.Columns {
				v, ok := p[c]
				if !ok {
					row.Values = append(row.Values, "")
					continue
				}
				row.Values = append(row.Values, fmt.Sprint(orNull(v)))
			}
			page.Features = append(page.Features, row)
			geoms = append(geoms, fm["geometry"])
		}
	} else if p, ok := doc["properties"].(map[string]any); ok {
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		page.Props = append(page.Props, [2]string{"id", fmt.Sprint(doc["id"])})
		for _, k := range keys {
			page.Props = append(page.Props, [2]string{k, fmt.Sprint(orNull(p[k]))})
		}
		geoms = append(geoms, doc["geometry"])
	}
	page.Map = svgPaths(geoms)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return ogcPage.Execute(w, page)
}

func orNull(v any) any {
	if v == nil {
		return "null"
	}
	return v
}

func selfHref(ls []ogcLink) string {
	for _, l := range ls {
		if l.Rel == "self" {
			return l.Href
		}
	}
	return ""
}

// linksOf reads a links member that is either []ogcLink or decoded JSON.
func linksOf(v any) []ogcLink {
	switch ls := v.(type) {
	case []ogcLink:
		return ls
	case []any:
		var out []ogcLink
		for _, l := range ls {
			m, _ := l.(map[string]any)
			str := func(k string) string { s, _ := m[k].(string); return s }
			out = append(out, ogcLink{Href: str("href"), Rel: str("rel"), Type: str("type"), Title: str("title")})
		}
		return out
	}
	return nil
}

// svgPaths draws the outer rings of MultiPolygon geometries (any planar
// coordinates) into a 600x400 box, north up.
func svgPaths(geoms []any) []string {
	var rings [][][2]float64
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, g := range geoms {
		gm, _ := g.(map[string]any)
		polys, _ := gm["coordinates"].([]any)
		for _, poly := range polys {
			rs, _ := poly.([]any)
			if len(rs) == 0 {
				continue
			}
			pts, _ := rs[0].([]any)
			var ring [][2]float64
			for _, p := range pts {
				c, _ := p.([]any)
				if len(c) < 2 {
					continue
				}
				x, _ := c[0].(float64)
				y, _ := c[1].(float64)
				ring = append(ring, [2]float64{x, y})
				minX, maxX = math.Min(minX, x), math.Max(maxX, x)
				minY, maxY = math.Min(minY, y), math.Max(maxY, y)
			}
			rings = append(rings, ring)
		}
	}
	if len(rings) == 0 || maxX <= minX && maxY <= minY {
		return nil
	}
	// Degrees of longitude shrink with latitude: scale x by cos(lat) when
	// the coordinates look geographic.
	kx := 1.0
	if maxX <= 180 && minX >= -180 && maxY <= 90 && minY >= -90 {
		kx = math.Cos((minY + maxY) / 2 * math.Pi / 180)
	}
	w, h := math.Max((maxX-minX)*kx, 1e-9), math.Max(maxY-minY, 1e-9)
	scale := math.Min(580/w, 380/h)
	var out []string
	for _, r := range rings {
		var sb strings.Builder
		for i, p := range r {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&sb, "%s%.1f %.1f", cmd, 10+(p[0]-minX)*kx*scale, 390-(p[1]-minY)*scale)
		}
		out = append(out, sb.String()+"Z")
	}
	return out
}
