package cql2

import (
	"math"
	"strings"
)

// SQLOptions tells ToSQL how properties map to a SQLite table.
type SQLOptions struct {
	// Column returns the SQL expression of a property (a quoted column
	// name) and false for a property that is not a column (the geometry, or
	// anything computed in Go); conditions on it stay in the residual.
	Column func(property string) (string, bool)
	// GeometryProperty names the geometry property ("" means "geometry"),
	// whose spatial conditions set Envelope.
	GeometryProperty string
}

// SQL is a filter split for a SQLite query: Where (with Args bound to its
// "?") selects candidate rows, Residual (nil when Where decides alone) must
// then hold for a row to match, evaluated with Match. Envelope, when not nil,
// is [minX, minY, maxX, maxY] in the CRS of the filter's geometry literals:
// a feature whose geometry's envelope misses it cannot match (the bbox
// prefilter for the spatial index).
type SQL struct {
	Where    string
	Args     []any
	Residual *Expr
	Envelope []float64
}

// ToSQL splits e into a WHERE clause for SQLite and a residual for Go. The
// top-level AND is split conjunct by conjunct; a conjunct goes to SQL when
// every part of it translates with the same meaning (three-valued logic
// included): comparisons, LIKE (as a case-sensitive GLOB), BETWEEN, IN, IS
// NULL, NOT/AND/OR, + - * / on columns and number, string and boolean
// literals. Spatial, temporal and array predicates, CASEI/ACCENTI, % div ^,
// instants and functions stay in the residual. It never fails for a checked
// AST; the error is for future operators.
func ToSQL(e *Expr, opts SQLOptions) (SQL, error) {
	t := sqlTranslator{opts: opts}
	conj := []*Expr{e}
	if e.Kind == KindOp && e.Op == "and" {
		conj = e.Args
	}
	var where []string
	var rest []*Expr
	var out SQL
	for _, c := range conj {
		n := len(t.args)
		if s, ok := t.expr(c); ok {
			where = append(where, s)
			continue
		}
		t.args = t.args[:n]
		rest = append(rest, c)
		if env := t.envelope(c); env != nil {
			out.Envelope = intersectEnvelopes(out.Envelope, env)
		}
	}
	out.Where = strings.Join(where, " AND ")
	out.Args = t.args
	switch len(rest) {
	case 0:
	case 1:
		out.Residual = rest[0]
	default:
		out.Residual = op("and", e.Pos, rest...)
	}
	return out, nil
}

type sqlTranslator struct {
	opts SQLOptions
	args []any
}

func (t *sqlTranslator) bind(v any) string {
	t.args = append(t.args, v)
	return "?"
}

func (t *sqlTranslator) expr(e *Expr) (string, bool) {
	switch e.Kind {
	case KindNumber:
		return t.bind(e.Num), true
	case KindString:
		return t.bind(e.Str), true
	case KindBool:
		if e.Bool {
			return t.bind(1), true
		}
		return t.bind(0), true
	case KindProperty:
		if t.opts.Column == nil {
			return "", false
		}
		return t.opts.Column(e.Str)
	case KindOp:
	default:
		return "", false
	}
	var parts []string
	for _, a := range e.Args {
		if e.Op == "in" && a.Kind == KindArray {
			var items []string
			for _, x := range a.Args {
				s, ok := t.expr(x)
				if !ok {
					return "", false
				}
				items = append(items, s)
			}
			parts = append(parts, "("+strings.Join(items, ", ")+")")
			continue
		}
		if e.Op == "like" && a.Kind == KindString && len(parts) == 1 {
			parts = append(parts, t.bind(globPattern(a.Str)))
			continue
		}
		s, ok := t.expr(a)
		if !ok {
			return "", false
		}
		parts = append(parts, s)
	}
	switch ops[e.Op] {
	case classLogic:
		if e.Op == "not" {
			return "(NOT " + parts[0] + ")", true
		}
		return "(" + strings.Join(parts, " "+upperASCII(e.Op)+" ") + ")", true
	case classComparison:
		return "(" + parts[0] + " " + e.Op + " " + parts[1] + ")", true
	case classLike:
		return "(" + parts[0] + " GLOB " + parts[1] + ")", true
	case classBetween:
		return "(" + parts[0] + " BETWEEN " + parts[1] + " AND " + parts[2] + ")", true
	case classIn:
		return "(" + parts[0] + " IN " + parts[1] + ")", true
	case classIsNull:
		return "(" + parts[0] + " IS NULL)", true
	case classArith:
		switch e.Op {
		case "+", "-", "*":
			return "(" + parts[0] + " " + e.Op + " " + parts[1] + ")", true
		case "/": // real division; x/0 is NULL in SQLite as in Match
			return "(CAST(" + parts[0] + " AS REAL) / " + parts[1] + ")", true
		}
	}
	return "", false
}

// globPattern turns a CQL2 LIKE pattern into a SQLite GLOB pattern
// (case-sensitive like CQL2's LIKE, unlike SQLite's LIKE).
func globPattern(p string) string {
	var b strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '\\' && i+1 < len(rs) {
			i++
			r = rs[i]
			switch r {
			case '*', '?', '[':
				b.WriteString("[" + string(r) + "]")
			default:
				b.WriteRune(r)
			}
			continue
		}
		switch r {
		case '%':
			b.WriteByte('*')
		case '_':
			b.WriteByte('?')
		case '*', '?', '[':
			b.WriteString("[" + string(r) + "]")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// envelope returns the envelope a feature must intersect to satisfy the
// conjunct c, or nil when c does not bound the geometry.
func (t *sqlTranslator) envelope(c *Expr) []float64 {
	if c.class() != classSpatial || c.Op == "s_disjoint" {
		return nil
	}
	gp := t.opts.GeometryProperty
	if gp == "" {
		gp = "geometry"
	}
	a, b := c.Args[0], c.Args[1]
	if b.Kind == KindProperty {
		a, b = b, a
	}
	if a.Kind != KindProperty || a.Str != gp {
		return nil
	}
	var s *shape
	switch b.Kind {
	case KindGeometry:
		s = newShape(b.Geom)
	case KindBBox:
		s = bboxShape(b.BBox)
	default:
		return nil
	}
	if math.IsInf(s.minX, 0) {
		return nil
	}
	return []float64{s.minX, s.minY, s.maxX, s.maxY}
}

func intersectEnvelopes(a, b []float64) []float64 {
	if a == nil {
		return b
	}
	return []float64{math.Max(a[0], b[0]), math.Max(a[1], b[1]), math.Min(a[2], b[2]), math.Min(a[3], b[3])}
}
