package cql2

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"
)

// ParseJSON parses a cql2-json filter (the JSON schema of OGC 21-065r2,
// Annex A) into its AST and checks the same typing rules as ParseText. An
// "op" that is not a standard operator is a function call. Errors wrap
// ErrSyntax or ErrInvalid as a *SyntaxError whose Path is the JSON pointer of
// the offending member.
func ParseJSON(data []byte) (*Expr, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		msg := "not JSON: " + err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg = fmt.Sprintf("not JSON at byte %d: %v", se.Offset, err)
		}
		return nil, &SyntaxError{Offset: -1, Path: "/", Msg: msg}
	}
	if dec.More() {
		return nil, &SyntaxError{Offset: -1, Path: "/", Msg: "more than one JSON value"}
	}
	e, err := fromJSON(v, "", 0)
	if err != nil {
		return nil, err
	}
	if err := check(e, ""); err != nil {
		return nil, err
	}
	return e, nil
}

func jsonErr(path, format string, args ...any) *SyntaxError {
	if path == "" {
		path = "/"
	}
	return &SyntaxError{Offset: -1, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func fromJSON(v any, path string, depth int) (*Expr, error) {
	if depth > maxDepth {
		return nil, jsonErr(path, "expression nested too deeply")
	}
	switch v := v.(type) {
	case bool:
		return &Expr{Kind: KindBool, Bool: v, Pos: -1}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, jsonErr(path, "number %s out of range", v)
		}
		return &Expr{Kind: KindNumber, Num: f, Pos: -1}, nil
	case string:
		return &Expr{Kind: KindString, Str: v, Pos: -1}, nil
	case []any:
		arr := &Expr{Kind: KindArray, Pos: -1}
		for i, x := range v {
			e, err := fromJSON(x, path+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			arr.Args = append(arr.Args, e)
		}
		return arr, nil
	case map[string]any:
		return objectFromJSON(v, path, depth)
	}
	return nil, jsonErr(path, "null is not a CQL2 expression")
}

func objectFromJSON(m map[string]any, path string, depth int) (*Expr, error) {
	only := func(keys ...string) error {
		for k := range m {
			if !contains(keys, k) {
				return jsonErr(path+"/"+k, "unexpected member %q", k)
			}
		}
		return nil
	}
	switch {
	case m["op"] != nil:
		if err := only("op", "args"); err != nil {
			return nil, err
		}
		name, ok := m["op"].(string)
		if !ok || name == "" {
			return nil, jsonErr(path+"/op", "op must be a non-empty string")
		}
		args, ok := m["args"].([]any)
		if !ok {
			return nil, jsonErr(path+"/args", "args must be an array")
		}
		e := &Expr{Kind: KindFunc, Op: name, Pos: -1}
		if _, std := ops[name]; std {
			e.Kind = KindOp
		}
		for i, a := range args {
			x, err := fromJSON(a, path+"/args/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			e.Args = append(e.Args, x)
		}
		return e, nil
	case m["property"] != nil:
		name, ok := m["property"].(string)
		if err := only("property"); err != nil || !ok || name == "" {
			return nil, jsonErr(path+"/property", "property must be a non-empty string and alone")
		}
		return &Expr{Kind: KindProperty, Str: name, Pos: -1}, nil
	case m["date"] != nil || m["timestamp"] != nil:
		key := "date"
		if m["timestamp"] != nil {
			key = "timestamp"
		}
		s, ok := m[key].(string)
		if err := only(key); err != nil || !ok {
			return nil, jsonErr(path+"/"+key, "%s must be a string and alone", key)
		}
		e, msg := instant(s, key == "date", -1)
		if e == nil {
			return nil, jsonErr(path+"/"+key, "%s", msg)
		}
		return e, nil
	case m["interval"] != nil:
		bounds, ok := m["interval"].([]any)
		if err := only("interval"); err != nil || !ok || len(bounds) != 2 {
			return nil, jsonErr(path+"/interval", "interval must be an array of two bounds and alone")
		}
		iv := &Expr{Kind: KindInterval, Pos: -1}
		for i, b := range bounds {
			p := path + "/interval/" + strconv.Itoa(i)
			if s, ok := b.(string); ok {
				e, msg := intervalBound(s, -1)
				if e == nil {
					return nil, jsonErr(p, "%s", msg)
				}
				iv.Args = append(iv.Args, e)
				continue
			}
			e, err := fromJSON(b, p, depth+1)
			if err != nil {
				return nil, err
			}
			if e.Kind != KindProperty && e.Kind != KindFunc {
				return nil, jsonErr(p, "an interval bound is a date, a timestamp, \"..\", a property or a function")
			}
			iv.Args = append(iv.Args, e)
		}
		return iv, nil
	case m["bbox"] != nil:
		raw, ok := m["bbox"].([]any)
		if err := only("bbox"); err != nil || !ok || len(raw) != 4 && len(raw) != 6 {
			return nil, jsonErr(path+"/bbox", "bbox must be an array of 4 or 6 numbers and alone")
		}
		e := &Expr{Kind: KindBBox, Pos: -1}
		for i, x := range raw {
			n, ok := x.(json.Number)
			f, err := strconv.ParseFloat(string(n), 64)
			if !ok || err != nil {
				return nil, jsonErr(path+"/bbox/"+strconv.Itoa(i), "not a number")
			}
			e.BBox = append(e.BBox, f)
		}
		return e, nil
	case m["type"] != nil:
		return geometryFromJSON(m, path)
	}
	return nil, jsonErr(path, "not a CQL2 expression (no op, property, date, timestamp, interval, bbox or GeoJSON type)")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func geometryFromJSON(m map[string]any, path string) (*Expr, error) {
	g, err := decodeGeoJSON(m, path, true)
	if err != nil {
		return nil, err
	}
	return &Expr{Kind: KindGeometry, Geom: g, Pos: -1}, nil
}

// decodeGeoJSON reads a GeoJSON geometry (RFC 7946 section 3.1) strictly:
// members "type" and "coordinates" (or "geometries", not nested), 2D or 3D
// positions of one dimension, lines of two or more positions, closed rings of
// four or more; the rules of the WKT literals of cql2-text.
func decodeGeoJSON(m map[string]any, path string, top bool) (geom.T, error) {
	typ, _ := m["type"].(string)
	member := "coordinates"
	if typ == "GeometryCollection" {
		member = "geometries"
	}
	for k := range m {
		if k != "type" && k != member && k != "bbox" {
			return nil, jsonErr(path+"/"+k, "unexpected member %q of a %s", k, typ)
		}
	}
	raw, ok := m[member].([]any)
	if !ok {
		return nil, jsonErr(path+"/"+member, "a %s needs an array %q", typ, member)
	}
	d := geoDecoder{path: path + "/" + member}
	switch typ {
	case "Point":
		c, err := d.position(raw, d.path)
		if err != nil {
			return nil, err
		}
		return geom.NewPointFlat(d.layout, c), nil
	case "LineString":
		cs, err := d.positions(raw, d.path, 2)
		if err != nil {
			return nil, err
		}
		return geom.NewLineStringFlat(d.layout, flatten(cs)), nil
	case "Polygon":
		rings, err := d.polygon(raw, d.path)
		if err != nil {
			return nil, err
		}
		return newPolygon(d.layout, rings), nil
	case "MultiPoint":
		var flat []float64
		for i, x := range raw {
			c, err := d.position(x, d.path+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			flat = append(flat, c...)
		}
		if len(raw) == 0 {
			return nil, jsonErr(d.path, "empty MultiPoint")
		}
		return geom.NewMultiPointFlat(d.layout, flat), nil
	case "MultiLineString":
		var lines [][][]float64
		for i, x := range raw {
			cs, err := d.positions(x, d.path+"/"+strconv.Itoa(i), 2)
			if err != nil {
				return nil, err
			}
			lines = append(lines, cs)
		}
		if len(raw) == 0 {
			return nil, jsonErr(d.path, "empty MultiLineString")
		}
		ml := geom.NewMultiLineString(d.layout)
		for _, l := range lines {
			if err := ml.Push(geom.NewLineStringFlat(d.layout, flatten(l))); err != nil {
				return nil, jsonErr(d.path, "%v", err)
			}
		}
		return ml, nil
	case "MultiPolygon":
		var polys [][][][]float64
		for i, x := range raw {
			rings, err := d.polygon(x, d.path+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			polys = append(polys, rings)
		}
		if len(raw) == 0 {
			return nil, jsonErr(d.path, "empty MultiPolygon")
		}
		mp := geom.NewMultiPolygon(d.layout)
		for _, rings := range polys {
			if err := mp.Push(newPolygon(d.layout, rings)); err != nil {
				return nil, jsonErr(d.path, "%v", err)
			}
		}
		return mp, nil
	case "GeometryCollection":
		if !top || len(raw) == 0 {
			return nil, jsonErr(d.path, "a GeometryCollection is not empty and does not nest")
		}
		gc := geom.NewGeometryCollection()
		for i, x := range raw {
			sub, ok := x.(map[string]any)
			if !ok {
				return nil, jsonErr(d.path+"/"+strconv.Itoa(i), "not a geometry")
			}
			g, err := decodeGeoJSON(sub, d.path+"/"+strconv.Itoa(i), false)
			if err != nil {
				return nil, err
			}
			if i > 0 && g.Layout() != gc.Geom(0).Layout() {
				return nil, jsonErr(d.path+"/"+strconv.Itoa(i), "mixed 2D and 3D positions")
			}
			if err := gc.Push(g); err != nil {
				return nil, jsonErr(d.path, "%v", err)
			}
		}
		return gc, nil
	}
	return nil, jsonErr(path+"/type", "unknown geometry type %v", m["type"])
}

type geoDecoder struct {
	path   string
	layout geom.Layout
}

func (d *geoDecoder) position(v any, path string) ([]float64, error) {
	raw, ok := v.([]any)
	if !ok || len(raw) != 2 && len(raw) != 3 {
		return nil, jsonErr(path, "a position is an array of 2 or 3 numbers")
	}
	c := make([]float64, len(raw))
	for i, x := range raw {
		n, ok := x.(json.Number)
		f, err := strconv.ParseFloat(string(n), 64)
		if !ok || err != nil {
			return nil, jsonErr(path+"/"+strconv.Itoa(i), "not a number")
		}
		c[i] = f
	}
	layout := geom.XY
	if len(c) == 3 {
		layout = geom.XYZ
	}
	if d.layout == geom.NoLayout {
		d.layout = layout
	} else if d.layout != layout {
		return nil, jsonErr(path, "mixed 2D and 3D positions")
	}
	return c, nil
}

func (d *geoDecoder) positions(v any, path string, min int) ([][]float64, error) {
	raw, ok := v.([]any)
	if !ok || len(raw) < min {
		return nil, jsonErr(path, "an array of %d or more positions", min)
	}
	cs := make([][]float64, len(raw))
	for i, x := range raw {
		c, err := d.position(x, path+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	return cs, nil
}

func (d *geoDecoder) polygon(v any, path string) ([][][]float64, error) {
	raw, ok := v.([]any)
	if !ok || len(raw) == 0 {
		return nil, jsonErr(path, "a polygon is an array of one or more rings")
	}
	var rings [][][]float64
	for i, x := range raw {
		p := path + "/" + strconv.Itoa(i)
		r, err := d.positions(x, p, 4)
		if err != nil {
			return nil, err
		}
		if !equalFloats(r[0], r[len(r)-1]) {
			return nil, jsonErr(p, "a polygon ring must be closed (first position = last position)")
		}
		rings = append(rings, r)
	}
	return rings, nil
}

// JSON prints e as canonical cql2-json (members in the order of the
// standard's examples, no insignificant space).
func (e *Expr) JSON() []byte {
	var b strings.Builder
	e.json(&b)
	return []byte(b.String())
}

func (e *Expr) json(b *strings.Builder) {
	switch e.Kind {
	case KindBool:
		b.WriteString(strconv.FormatBool(e.Bool))
	case KindNumber:
		b.WriteString(formatNum(e.Num))
	case KindString:
		b.WriteString(jsonString(e.Str))
	case KindProperty:
		b.WriteString(`{"property":` + jsonString(e.Str) + `}`)
	case KindDate:
		b.WriteString(`{"date":` + jsonString(e.Str) + `}`)
	case KindTimestamp:
		b.WriteString(`{"timestamp":` + jsonString(e.Str) + `}`)
	case KindInterval:
		b.WriteString(`{"interval":[`)
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(",")
			}
			if a.Kind == KindDate || a.Kind == KindTimestamp {
				b.WriteString(jsonString(a.Str))
			} else {
				a.json(b)
			}
		}
		b.WriteString(`]}`)
	case KindGeometry:
		raw, err := geojson.Marshal(e.Geom)
		if err != nil {
			raw = []byte("null") // unreachable: parsed geometries encode
		}
		b.Write(raw)
	case KindBBox:
		b.WriteString(`{"bbox":[`)
		for i, v := range e.BBox {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(formatNum(v))
		}
		b.WriteString(`]}`)
	case KindArray:
		jsonList(b, e.Args)
	case KindOp, KindFunc:
		b.WriteString(`{"op":` + jsonString(e.Op) + `,"args":`)
		jsonList(b, e.Args)
		b.WriteString(`}`)
	}
}

func jsonList(b *strings.Builder, args []*Expr) {
	b.WriteString("[")
	for i, a := range args {
		if i > 0 {
			b.WriteString(",")
		}
		a.json(b)
	}
	b.WriteString("]")
}

func jsonString(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}
