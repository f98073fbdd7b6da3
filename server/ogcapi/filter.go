package ogcapi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/cql2"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/server/httpapi"
)

// The query parameters of OGC API - Features Part 3 (filter), Part 5
// (sortby) and property selection, declared once for the items route.
const (
	langText = "cql2-text"
	langJSON = "cql2-json"
	// langDraftText is the name of cql2-text in the drafts of Part 3,
	// which GDAL up to 3.6 sends (and looks for in the filter-lang enum of
	// the items operation before it passes a filter to the server). What
	// GDAL writes in it (comparisons, AND/OR/NOT, IS NULL, LIKE) is
	// cql2-text; it is read as such.
	langDraftText = "cql-text"
	// geometryName is the queryable of a feature's geometry.
	geometryName = "geometry"
	// maxFilterLen bounds the filter parameter (a query string beyond
	// that is no hand-written filter; the URL limit of proxies is 8 KB).
	maxFilterLen = 8000
	// envelopePad widens a spatial filter's envelope before the index
	// search, in degrees (about 10 cm).
	envelopePad = 1e-6
)

func filterParams() []httpapi.Param {
	return []httpapi.Param{
		{Name: "filter", In: "query", Type: "string", Component: "filter", Parse: parseFilterLen,
			Example: "surface_class = 712 AND S_INTERSECTS(geometry, BBOX(8.67,50.10,8.69,50.12))",
			Desc: "CQL2 filter (OGC API - Features Part 3) in `filter-lang`, over the collection's queryables " +
				"(`/ogc/collections/{collectionId}/queryables`). A filter that does not parse, or names a property that is not a " +
				"queryable, is 400 with a detail giving the position (line:column, or the JSON pointer for cql2-json) and the token."},
		{Name: "filter-lang", In: "query", Type: "string", Enum: []string{langText, langJSON, langDraftText}, Default: langText, Component: "filter-lang",
			Desc: "encoding of `filter`: cql2-text (default) or cql2-json; `cql-text`, the name of cql2-text in the drafts of " +
				"Part 3 that GDAL up to 3.6 sends, is read as cql2-text"},
		{Name: "filter-crs", In: "query", Type: "string", Default: geo.CRS84.URI(), Parse: parseCRS, Component: "filter-crs",
			Desc: "CRS of the geometry literals in `filter` (a URI of the collection's `crs` list); default CRS84"},
		{Name: "sortby", In: "query", Type: "string", Component: "sortby", Parse: parseSortBy, Example: "-area_m2",
			Desc: "comma-separated queryables, each optionally prefixed `+` (ascending, the default) or `-` (descending) " +
				"(OGC API - Features Part 5). Ties are broken by the feature id, so paging with `next` is stable; null sorts " +
				"before every value ascending and after every value descending. On the surface collections a sorted request " +
				fmt.Sprintf("may match at most %d features (narrow it with bbox or filter).", maxSorted)},
		{Name: "properties", In: "query", Type: "string", Component: "properties", Parse: parseNameList, Example: "gmlid,surface_class",
			Desc: "comma-separated property names: only these are written in each feature's `properties` (id and geometry " +
				"always are); an unknown name is 400"},
	}
}

func parseFilterLen(raw string) (any, error) {
	if len(raw) > maxFilterLen {
		return nil, httpapi.SyntaxFault("is %d bytes long; at most %d are accepted.", len(raw), maxFilterLen)
	}
	return raw, nil
}

// sortKey is one key of sortby.
type sortKey struct {
	name string
	desc bool
}

func parseSortBy(raw string) (any, error) {
	var keys []sortKey
	for _, part := range strings.Split(raw, ",") {
		k := sortKey{name: strings.TrimSpace(part)}
		switch {
		case strings.HasPrefix(k.name, "-"):
			k.name, k.desc = k.name[1:], true
		case strings.HasPrefix(k.name, "+"):
			k.name = k.name[1:]
		}
		if k.name == "" {
			return nil, httpapi.SyntaxFault("has an empty key; write e.g. `-area_m2,gmlid`.")
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func parseNameList(raw string) (any, error) {
	var names []string
	for _, part := range strings.Split(raw, ",") {
		n := strings.TrimSpace(part)
		if n == "" {
			return nil, httpapi.SyntaxFault("has an empty name.")
		}
		names = append(names, n)
	}
	return names, nil
}

// formOf is the GeoJSON form of collection c's features.
func formOf(c ogcCollection) *buildings.Form {
	if c.roofs {
		return buildings.OGCRoof
	}
	return buildings.OGCSurface
}

// queryablesOf are the properties of c's features a filter may use: every
// property the features have, and the geometry.
func queryablesOf(c ogcCollection) cql2.Queryables {
	q := cql2.Queryables{geometryName: {Type: cql2.TypeGeometry}}
	for _, p := range formOf(c).Properties {
		t := cql2.TypeString
		switch p.Type {
		case "integer":
			t = cql2.TypeInteger
		case "number":
			t = cql2.TypeNumber
		}
		q[p.Name] = cql2.Queryable{Type: t, Enum: p.Enum}
	}
	return q
}

// itemFilter is what the Part 3/5 parameters ask of an items request.
type itemFilter struct {
	expr     *cql2.Expr // nil: no filter
	needGeom bool       // the filter reads the geometry
	envelope *geo.BBox  // a feature outside cannot match (WGS84)
	sort     []sortKey
	form     *buildings.Form // the form the features are written in
}

// itemFilterOf reads filter, filter-lang, filter-crs, sortby and properties
// for collection c. Errors are 400 problems naming the parameter (and for a
// filter the position and token).
func itemFilterOf(in *httpapi.Input, c ogcCollection) (itemFilter, error) {
	out := itemFilter{form: formOf(c)}
	q := queryablesOf(c)
	if in.Has("filter") {
		e, err := parseFilter(in.Str("filter"), in.Str("filter-lang"), q)
		if err != nil {
			return out, err
		}
		if crs := httpapi.ParsedAs[geo.CRS](in, "filter-crs"); crs != geo.CRS84 {
			e = e.Transform(crs.ToWGS84)
		}
		out.expr, out.needGeom = e, mentions(e, geometryName)
		split, err := cql2.ToSQL(e, cql2.SQLOptions{Column: func(string) (string, bool) { return "", false }, GeometryProperty: geometryName})
		if err != nil {
			return out, err
		}
		if env := split.Envelope; env != nil {
			// Padded: the store's box test runs on footprints projected to
			// its CRS, where a literal touching a surface (a point on its
			// edge, a degenerate envelope) could miss it by rounding; Match
			// decides exactly afterwards.
			out.envelope = &geo.BBox{MinLon: env[0] - envelopePad, MinLat: env[1] - envelopePad,
				MaxLon: env[2] + envelopePad, MaxLat: env[3] + envelopePad}
		}
	} else {
		for _, p := range []string{"filter-lang", "filter-crs"} {
			if in.Has(p) {
				return out, httpapi.Report(httpapi.ErrMalformed, "Parameter %s needs a filter.", p)
			}
		}
	}
	if in.Has("sortby") {
		out.sort = httpapi.ParsedAs[[]sortKey](in, "sortby")
		for _, k := range out.sort {
			if qd, ok := q[k.name]; !ok || qd.Type == cql2.TypeGeometry {
				return out, httpapi.Report(httpapi.ErrMalformed, "Parameter sortby: %q is not a sortable queryable of %s; they are %s.",
					httpapi.Clip(k.name), c.id, strings.Join(formOf(c).Names(), ", "))
			}
		}
	}
	if in.Has("properties") {
		names := httpapi.ParsedAs[[]string](in, "properties")
		have := formOf(c).Names()
		for _, n := range names {
			if !containsStr(have, n) {
				return out, httpapi.Report(httpapi.ErrMalformed, "Parameter properties: %q is not a property of %s; they are %s.",
					httpapi.Clip(n), c.id, strings.Join(have, ", "))
			}
		}
		out.form = out.form.Select(func(n string) bool { return containsStr(names, n) })
	}
	return out, nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseFilter parses and validates a filter; a *cql2.SyntaxError becomes a
// 400 problem naming where it is and the token.
func parseFilter(src, lang string, q cql2.Queryables) (*cql2.Expr, error) {
	var e *cql2.Expr
	var err error
	text := ""
	if lang == langJSON {
		e, err = cql2.ParseJSON([]byte(src))
	} else {
		text = src
		e, err = cql2.ParseText(src)
	}
	if err == nil {
		err = q.Validate(e, text)
	}
	if err == nil {
		return e, nil
	}
	var se *cql2.SyntaxError
	if !errors.As(err, &se) {
		return nil, httpapi.Report(httpapi.ErrMalformed, "Parameter filter is not valid %s: %s", lang, strings.TrimPrefix(err.Error(), "cql2: "))
	}
	ext := map[string]any{"token": se.Token}
	if se.Offset >= 0 {
		ext["line"], ext["column"], ext["offset"] = se.Line, se.Col, se.Offset
	} else {
		ext["pointer"] = se.Path
	}
	return nil, httpapi.Report(httpapi.ErrMalformed, "Parameter filter is not valid %s: %s", lang, strings.TrimPrefix(se.Error(), "cql2: ")).With(ext)
}

// mentions tells whether e reads property name.
func mentions(e *cql2.Expr, name string) bool {
	if e == nil {
		return false
	}
	if e.Kind == cql2.KindProperty && e.Str == name {
		return true
	}
	for _, a := range e.Args {
		if mentions(a, name) {
			return true
		}
	}
	return false
}
