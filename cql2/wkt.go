package cql2

import (
	"strings"

	"github.com/twpayne/go-geom"
)

var geomKeywords = map[string]bool{
	"POINT": true, "LINESTRING": true, "POLYGON": true, "MULTIPOINT": true,
	"MULTILINESTRING": true, "MULTIPOLYGON": true, "GEOMETRYCOLLECTION": true,
}

func isGeomKeyword(up string) bool { return geomKeywords[up] }

// geometry parses a WKT geometry literal or BBOX(...) (the spatialInstance
// production). Coordinates are 2D or 3D (with or without the Z tag), the same
// dimension throughout one literal.
func (p *parser) geometry() (*Expr, error) {
	t := p.peek()
	if strings.EqualFold(t.text, "BBOX") {
		p.advance()
		if _, err := p.expect("("); err != nil {
			return nil, err
		}
		var box []float64
		for {
			v, err := p.signed()
			if err != nil {
				return nil, err
			}
			box = append(box, v)
			if isP(p.peek(), ",") {
				p.advance()
				continue
			}
			break
		}
		if len(box) != 4 && len(box) != 6 {
			return nil, p.errTok(p.peek(), "a BBOX has 4 or 6 numbers")
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		return &Expr{Kind: KindBBox, BBox: box, Pos: t.pos}, nil
	}
	w := wktReader{p: p}
	g, err := w.tagged()
	if err != nil {
		return nil, err
	}
	return &Expr{Kind: KindGeometry, Geom: g, Pos: t.pos}, nil
}

type wktReader struct {
	p      *parser
	layout geom.Layout // 0 until the first coordinate
}

func (w *wktReader) tagged() (geom.T, error) {
	p := w.p
	t := p.advance()
	up := strings.ToUpper(t.text)
	if !isGeomKeyword(up) {
		return nil, p.errTok(t, "expected a geometry type")
	}
	if isKw(p.peek(), "Z") {
		p.advance()
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch up {
	case "POINT":
		c, err := w.pointText()
		if err != nil {
			return nil, err
		}
		return geom.NewPointFlat(w.layout, c), nil
	case "LINESTRING":
		cs, err := w.coordList(2)
		if err != nil {
			return nil, err
		}
		return geom.NewLineStringFlat(w.layout, flatten(cs)), nil
	case "POLYGON":
		rings, err := w.polygonText()
		if err != nil {
			return nil, err
		}
		return newPolygon(w.layout, rings), nil
	case "MULTIPOINT":
		var flat []float64
		err := w.parens(func() error {
			c, err := w.pointText()
			flat = append(flat, c...)
			return err
		})
		if err != nil {
			return nil, err
		}
		return geom.NewMultiPointFlat(w.layout, flat), nil
	case "MULTILINESTRING":
		ml := geom.NewMultiLineString(geom.NoLayout)
		var lines [][][]float64
		err := w.parens(func() error {
			cs, err := w.coordList(2)
			lines = append(lines, cs)
			return err
		})
		if err != nil {
			return nil, err
		}
		ml = geom.NewMultiLineString(w.layout)
		for _, l := range lines {
			if err := ml.Push(geom.NewLineStringFlat(w.layout, flatten(l))); err != nil {
				return nil, p.errTok(t, err.Error())
			}
		}
		return ml, nil
	case "MULTIPOLYGON":
		var polys [][][][]float64
		err := w.parens(func() error {
			rings, err := w.polygonText()
			polys = append(polys, rings)
			return err
		})
		if err != nil {
			return nil, err
		}
		mp := geom.NewMultiPolygon(w.layout)
		for _, rings := range polys {
			if err := mp.Push(newPolygon(w.layout, rings)); err != nil {
				return nil, p.errTok(t, err.Error())
			}
		}
		return mp, nil
	}
	var parts []geom.T
	err := w.parens(func() error {
		if !isGeomKeyword(strings.ToUpper(p.peek().text)) || p.peek().kind != tIdent {
			return p.errTok(p.peek(), "expected a geometry")
		}
		g, err := w.tagged()
		parts = append(parts, g)
		return err
	})
	if err != nil {
		return nil, err
	}
	gc := geom.NewGeometryCollection()
	for _, g := range parts {
		if err := gc.Push(g); err != nil {
			return nil, p.errTok(t, err.Error())
		}
	}
	return gc, nil
}

func newPolygon(layout geom.Layout, rings [][][]float64) *geom.Polygon {
	var flat []float64
	var ends []int
	for _, r := range rings {
		flat = append(flat, flatten(r)...)
		ends = append(ends, len(flat))
	}
	return geom.NewPolygonFlat(layout, flat, ends)
}

func flatten(cs [][]float64) []float64 {
	var flat []float64
	for _, c := range cs {
		flat = append(flat, c...)
	}
	return flat
}

// parens parses "(" item {"," item} ")".
func (w *wktReader) parens(item func() error) error {
	if _, err := w.p.expect("("); err != nil {
		return err
	}
	for {
		if err := item(); err != nil {
			return err
		}
		if isP(w.p.peek(), ",") {
			w.p.advance()
			continue
		}
		_, err := w.p.expect(")")
		return err
	}
}

func (w *wktReader) pointText() ([]float64, error) {
	var c []float64
	err := w.parens(func() error {
		if c != nil {
			return w.p.errTok(w.p.peek(), "a point has one coordinate")
		}
		var err error
		c, err = w.coord()
		return err
	})
	return c, err
}

func (w *wktReader) coordList(min int) ([][]float64, error) {
	start := w.p.peek()
	var cs [][]float64
	err := w.parens(func() error {
		c, err := w.coord()
		cs = append(cs, c)
		return err
	})
	if err == nil && len(cs) < min {
		return nil, w.p.errTok(start, "too few points")
	}
	return cs, err
}

func (w *wktReader) polygonText() ([][][]float64, error) {
	var rings [][][]float64
	err := w.parens(func() error {
		start := w.p.peek()
		r, err := w.coordList(4)
		if err != nil {
			return err
		}
		first, last := r[0], r[len(r)-1]
		for i := range first {
			if first[i] != last[i] {
				return w.p.errTok(start, "a polygon ring must be closed (first point = last point)")
			}
		}
		rings = append(rings, r)
		return nil
	})
	return rings, err
}

// coord reads x y [z]; every coordinate of the literal has the dimension of the first.
func (w *wktReader) coord() ([]float64, error) {
	start := w.p.peek()
	var c []float64
	for len(c) < 3 {
		t := w.p.peek()
		if t.kind != tNumber && !isP(t, "-") && !isP(t, "+") {
			break
		}
		v, err := w.p.signed()
		if err != nil {
			return nil, err
		}
		c = append(c, v)
	}
	if len(c) < 2 {
		return nil, w.p.errTok(w.p.peek(), "expected a coordinate")
	}
	layout := geom.XY
	if len(c) == 3 {
		layout = geom.XYZ
	}
	if w.layout == geom.NoLayout {
		w.layout = layout
	} else if w.layout != layout {
		return nil, w.p.errTok(start, "mixed 2D and 3D coordinates")
	}
	return c, nil
}

// signed reads a signedNumericLiteral.
func (p *parser) signed() (float64, error) {
	t := p.peek()
	neg := false
	if isP(t, "-") || isP(t, "+") {
		neg = t.text == "-"
		p.advance()
	}
	n := p.peek()
	if n.kind != tNumber {
		return 0, p.errTok(n, "expected a number")
	}
	p.advance()
	v, err := parseNum(n.text)
	if err != nil {
		return 0, p.errTok(n, "malformed number")
	}
	if neg {
		v = -v
	}
	return v, nil
}
