package cql2

import (
	"bytes"
	"encoding/json"
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
		return nil, &SyntaxError{Offset: -1, Path: "/", Msg: "not JSON: " + err.Error()}
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
	switch m["type"] {
	case "Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection":
	default:
		return nil, jsonErr(path+"/type", "unknown geometry type %v", m["type"])
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, jsonErr(path, "geometry: %v", err)
	}
	var g geom.T
	if err := geojson.Unmarshal(raw, &g); err != nil || g == nil {
		return nil, jsonErr(path, "not a GeoJSON geometry: %v", err)
	}
	if msg := checkGeometry(g); msg != "" {
		return nil, jsonErr(path, "%s", msg)
	}
	return &Expr{Kind: KindGeometry, Geom: g, Pos: -1}, nil
}

// checkGeometry applies the WKT rules of the text encoding to a GeoJSON
// geometry: lines of two or more points, closed rings of four or more, no
// empty parts.
func checkGeometry(g geom.T) string {
	switch g := g.(type) {
	case *geom.Point:
		if g.Empty() {
			return "empty point"
		}
	case *geom.LineString:
		if g.NumCoords() < 2 {
			return "a line string has two or more points"
		}
	case *geom.Polygon:
		for i := 0; i < g.NumLinearRings(); i++ {
			if msg := checkRing(g.LinearRing(i)); msg != "" {
				return msg
			}
		}
		if g.NumLinearRings() == 0 {
			return "a polygon has one or more rings"
		}
	case *geom.MultiPoint:
		if g.NumPoints() == 0 {
			return "empty multipoint"
		}
	case *geom.MultiLineString:
		for i := 0; i < g.NumLineStrings(); i++ {
			if msg := checkGeometry(g.LineString(i)); msg != "" {
				return msg
			}
		}
		if g.NumLineStrings() == 0 {
			return "empty multilinestring"
		}
	case *geom.MultiPolygon:
		for i := 0; i < g.NumPolygons(); i++ {
			if msg := checkGeometry(g.Polygon(i)); msg != "" {
				return msg
			}
		}
		if g.NumPolygons() == 0 {
			return "empty multipolygon"
		}
	case *geom.GeometryCollection:
		for _, p := range g.Geoms() {
			if _, ok := p.(*geom.GeometryCollection); ok {
				return "a geometry collection does not nest"
			}
			if msg := checkGeometry(p); msg != "" {
				return msg
			}
		}
		if g.NumGeoms() == 0 {
			return "empty geometry collection"
		}
	}
	if s := g.Stride(); s != 2 && s != 3 {
		return "coordinates have 2 or 3 numbers"
	}
	return ""
}

func checkRing(r *geom.LinearRing) string {
	n := r.NumCoords()
	if n < 4 {
		return "a polygon ring has four or more points"
	}
	a, b := r.Coord(0), r.Coord(n-1)
	for i := range a {
		if a[i] != b[i] {
			return "a polygon ring must be closed (first point = last point)"
		}
	}
	return ""
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
