package cql2

import (
	"strconv"
	"strings"

	"github.com/twpayne/go-geom"
)

// textNames maps operator names to their cql2-text spelling where it differs
// from an upper-cased name.
var textNames = map[string]string{"isNull": "IS NULL"}

// Text prints e as canonical cql2-text: keywords upper case, every property
// name quoted, every operator application in parentheses, so the text parses
// back to the same AST whatever the precedences.
func (e *Expr) Text() string {
	var b strings.Builder
	e.text(&b)
	return b.String()
}

func (e *Expr) text(b *strings.Builder) {
	switch e.Kind {
	case KindBool:
		b.WriteString(map[bool]string{true: "TRUE", false: "FALSE"}[e.Bool])
	case KindNumber:
		b.WriteString(formatNum(e.Num))
	case KindString:
		b.WriteString(quoteText(e.Str))
	case KindProperty:
		b.WriteString(`"` + e.Str + `"`)
	case KindDate:
		b.WriteString("DATE(" + quoteText(e.Str) + ")")
	case KindTimestamp:
		b.WriteString("TIMESTAMP(" + quoteText(e.Str) + ")")
	case KindInterval:
		b.WriteString("INTERVAL(")
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			if a.Kind == KindDate || a.Kind == KindTimestamp || a.Kind == KindString {
				b.WriteString(quoteText(a.Str))
			} else {
				a.text(b)
			}
		}
		b.WriteString(")")
	case KindGeometry:
		writeWKT(b, e.Geom)
	case KindBBox:
		b.WriteString("BBOX(")
		for i, v := range e.BBox {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatNum(v))
		}
		b.WriteString(")")
	case KindArray:
		textList(b, e.Args)
	case KindFunc:
		b.WriteString(e.Op)
		textList(b, e.Args)
	case KindOp:
		e.textOp(b)
	}
}

func (e *Expr) textOp(b *strings.Builder) {
	cl := ops[e.Op]
	switch {
	case cl == classSpatial || cl == classTemporal || cl == classArray || cl == classText:
		b.WriteString(upperASCII(e.Op))
		textList(b, e.Args)
		return
	case e.Op == "not":
		b.WriteString("NOT ")
		e.Args[0].text(b)
		return
	}
	b.WriteString("(")
	switch e.Op {
	case "isNull":
		e.Args[0].text(b)
		b.WriteString(" IS NULL")
	case "between":
		e.Args[0].text(b)
		b.WriteString(" BETWEEN ")
		e.Args[1].text(b)
		b.WriteString(" AND ")
		e.Args[2].text(b)
	case "in":
		e.Args[0].text(b)
		b.WriteString(" IN ")
		e.Args[1].text(b)
	default:
		sep := " " + upperASCII(e.Op) + " "
		if e.Op == "div" {
			sep = " div " // the BNF spells it in lower case (cql2-rs accepts only that)
		}
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(sep)
			}
			a.text(b)
		}
	}
	b.WriteString(")")
}

func textList(b *strings.Builder, args []*Expr) {
	b.WriteString("(")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.text(b)
	}
	b.WriteString(")")
}

// quoteText writes a character literal: a quote doubled, or as \' after a
// backslash (the BNF reads \' as an escaped quote, so a backslash before a
// doubled quote would be misread). A literal ending in a backslash has no
// cql2-text spelling (its closing quote would read as \'); it can only come
// from cql2-json.
func quoteText(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'' && i > 0 && s[i-1] == '\\':
			b.WriteString("\\'")
		case s[i] == '\'':
			b.WriteString("''")
		default:
			b.WriteByte(s[i])
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func formatNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeWKT writes g as WKT with a Z tag for 3D coordinates.
func writeWKT(b *strings.Builder, g geom.T) {
	if gc, ok := g.(*geom.GeometryCollection); ok {
		b.WriteString("GEOMETRYCOLLECTION (")
		for i, part := range gc.Geoms() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeWKT(b, part)
		}
		b.WriteString(")")
		return
	}
	z := ""
	if g.Layout().Stride() == 3 {
		z = " Z"
	}
	flat, stride := g.FlatCoords(), g.Stride()
	switch g := g.(type) {
	case *geom.Point:
		b.WriteString("POINT" + z + " ")
		coords(b, flat, stride, []int{len(flat)})
	case *geom.LineString:
		b.WriteString("LINESTRING" + z + " ")
		coords(b, flat, stride, []int{len(flat)})
	case *geom.Polygon:
		b.WriteString("POLYGON" + z + " (")
		rings(b, flat, stride, 0, g.Ends())
		b.WriteString(")")
	case *geom.MultiPoint:
		b.WriteString("MULTIPOINT" + z + " (")
		for i := 0; i < len(flat); i += stride {
			if i > 0 {
				b.WriteString(", ")
			}
			coords(b, flat[i:i+stride], stride, []int{stride})
		}
		b.WriteString(")")
	case *geom.MultiLineString:
		b.WriteString("MULTILINESTRING" + z + " (")
		rings(b, flat, stride, 0, g.Ends())
		b.WriteString(")")
	case *geom.MultiPolygon:
		b.WriteString("MULTIPOLYGON" + z + " (")
		start := 0
		for i, ends := range g.Endss() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(")
			rings(b, flat, stride, start, ends)
			b.WriteString(")")
			if len(ends) > 0 {
				start = ends[len(ends)-1]
			}
		}
		b.WriteString(")")
	}
}

func rings(b *strings.Builder, flat []float64, stride, start int, ends []int) {
	for i, end := range ends {
		if i > 0 {
			b.WriteString(", ")
		}
		coords(b, flat[start:end], stride, []int{end - start})
		start = end
	}
}

func coords(b *strings.Builder, flat []float64, stride int, _ []int) {
	b.WriteString("(")
	for i := 0; i+stride <= len(flat); i += stride {
		if i > 0 {
			b.WriteString(", ")
		}
		for j := 0; j < stride; j++ {
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(formatNum(flat[i+j]))
		}
	}
	b.WriteString(")")
}
