package cql2

import (
	"time"

	"github.com/twpayne/go-geom"
)

// Kind tells what an Expr node is.
type Kind uint8

// The node kinds of the AST.
const (
	KindInvalid   Kind = iota
	KindBool           // Bool
	KindNumber         // Num
	KindString         // Str: a character literal (in an interval: ".." for an open end)
	KindProperty       // Str: the property name
	KindDate           // Str: YYYY-MM-DD as written, Time: midnight UTC of that day
	KindTimestamp      // Str: RFC 3339 UTC as written, Time: the instant
	KindInterval       // Args: start and end (Date, Timestamp, String "..", Property or Func)
	KindGeometry       // Geom: a POINT..GEOMETRYCOLLECTION literal (WKT or GeoJSON)
	KindBBox           // BBox: 4 or 6 numbers, west, south, [min z,] east, north[, max z]
	KindArray          // Args: the elements (an IN list, an array literal)
	KindOp             // Op: a standard operator or predicate, Args its operands
	KindFunc           // Op: a function name as written, Args its arguments
)

// Expr is one node of a CQL2 expression. Both encodings parse into it and
// print from it; Pos is the byte offset of the node in cql2-text (-1 when it
// came from cql2-json, where Path locates errors instead).
type Expr struct {
	Kind Kind
	Op   string
	Args []*Expr
	Bool bool
	Num  float64
	Str  string
	Time time.Time
	Geom geom.T
	BBox []float64
	Pos  int
}

// opClass groups the standard operators by the kind of value they yield and
// take, the basis of both checks and evaluation.
type opClass uint8

const (
	classNone       opClass = iota
	classLogic              // and, or, not
	classComparison         // = <> < > <= >=
	classLike               // like
	classBetween            // between
	classIn                 // in
	classIsNull             // isNull
	classSpatial            // s_*
	classTemporal           // t_*
	classArray              // a_*
	classArith              // + - * / % div ^
	classText               // casei, accenti
)

// ops maps each cql2-json operator name to its class; the text keywords map
// to these names case-insensitively (textOps).
var ops = map[string]opClass{
	"and": classLogic, "or": classLogic, "not": classLogic,
	"=": classComparison, "<>": classComparison, "<": classComparison, ">": classComparison,
	"<=": classComparison, ">=": classComparison,
	"like": classLike, "between": classBetween, "in": classIn, "isNull": classIsNull,
	"s_intersects": classSpatial, "s_equals": classSpatial, "s_disjoint": classSpatial,
	"s_touches": classSpatial, "s_within": classSpatial, "s_overlaps": classSpatial,
	"s_crosses": classSpatial, "s_contains": classSpatial,
	"t_after": classTemporal, "t_before": classTemporal, "t_contains": classTemporal,
	"t_disjoint": classTemporal, "t_during": classTemporal, "t_equals": classTemporal,
	"t_finishedBy": classTemporal, "t_finishes": classTemporal, "t_intersects": classTemporal,
	"t_meets": classTemporal, "t_metBy": classTemporal, "t_overlappedBy": classTemporal,
	"t_overlaps": classTemporal, "t_startedBy": classTemporal, "t_starts": classTemporal,
	"a_equals": classArray, "a_contains": classArray, "a_containedBy": classArray, "a_overlaps": classArray,
	"+": classArith, "-": classArith, "*": classArith, "/": classArith, "%": classArith,
	"div": classArith, "^": classArith,
	"casei": classText, "accenti": classText,
}

// textOps maps the upper-cased cql2-text function keywords to the operator names.
var textOps = func() map[string]string {
	m := map[string]string{}
	for name, c := range ops {
		if c == classSpatial || c == classTemporal || c == classArray || c == classText {
			m[upperASCII(name)] = name
		}
	}
	return m
}()

func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// isBoolean reports whether e yields a boolean (a predicate, a logical
// operator, a boolean literal; a function may).
func (e *Expr) isBoolean() bool {
	switch e.Kind {
	case KindBool, KindFunc:
		return true
	case KindOp:
		switch ops[e.Op] {
		case classLogic, classComparison, classLike, classBetween, classIn, classIsNull,
			classSpatial, classTemporal, classArray:
			return true
		}
	}
	return false
}

func (e *Expr) class() opClass {
	if e.Kind != KindOp {
		return classNone
	}
	return ops[e.Op]
}

func op(name string, pos int, args ...*Expr) *Expr {
	return &Expr{Kind: KindOp, Op: name, Args: args, Pos: pos}
}

// Equal reports whether a and b are the same expression, whichever encoding
// they came from: numbers by value, instants by the time they denote,
// geometries by layout and coordinates; positions are ignored.
func Equal(a, b *Expr) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Op != b.Op || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if !Equal(a.Args[i], b.Args[i]) {
			return false
		}
	}
	switch a.Kind {
	case KindBool:
		return a.Bool == b.Bool
	case KindNumber:
		return a.Num == b.Num
	case KindString, KindProperty:
		return a.Str == b.Str
	case KindDate, KindTimestamp:
		return a.Time.Equal(b.Time)
	case KindBBox:
		return equalFloats(a.BBox, b.BBox)
	case KindGeometry:
		return equalGeom(a.Geom, b.Geom)
	}
	return true
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalGeom(a, b geom.T) bool {
	if ac, ok := a.(*geom.GeometryCollection); ok {
		bc, ok := b.(*geom.GeometryCollection)
		if !ok || ac.NumGeoms() != bc.NumGeoms() {
			return false
		}
		for i := range ac.Geoms() {
			if !equalGeom(ac.Geom(i), bc.Geom(i)) {
				return false
			}
		}
		return true
	}
	if _, ok := b.(*geom.GeometryCollection); ok {
		return false
	}
	if a.Layout() != b.Layout() || !equalFloats(a.FlatCoords(), b.FlatCoords()) {
		return false
	}
	switch a := a.(type) {
	case *geom.Point, *geom.LineString:
		return sameType(a, b)
	case *geom.MultiPoint:
		_, ok := b.(*geom.MultiPoint)
		return ok
	case *geom.Polygon:
		bp, ok := b.(*geom.Polygon)
		return ok && equalInts(a.Ends(), bp.Ends())
	case *geom.MultiLineString:
		bp, ok := b.(*geom.MultiLineString)
		return ok && equalInts(a.Ends(), bp.Ends())
	case *geom.MultiPolygon:
		bp, ok := b.(*geom.MultiPolygon)
		if !ok || len(a.Endss()) != len(bp.Endss()) {
			return false
		}
		for i := range a.Endss() {
			if !equalInts(a.Endss()[i], bp.Endss()[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func sameType(a, b geom.T) bool {
	switch a.(type) {
	case *geom.Point:
		_, ok := b.(*geom.Point)
		return ok
	case *geom.LineString:
		_, ok := b.(*geom.LineString)
		return ok
	}
	return false
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
