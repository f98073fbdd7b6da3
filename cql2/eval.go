package cql2

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/twpayne/go-geom"
	"golang.org/x/text/unicode/norm"
)

// Feature is what Match tests a filter against: property values by name and
// one planar geometry in the CRS of the filter's geometry literals. Values
// may be nil, string, bool, any Go integer or float, time.Time, geom.T or
// []any; a property absent from the map is null.
type Feature struct {
	Properties map[string]any
	Geometry   geom.T
	// GeometryProperty is the property name that refers to Geometry
	// ("" means "geometry").
	GeometryProperty string
}

// null is the unknown of SQL's three-valued logic: a comparison with a null
// operand is null, NOT null is null, and a filter that ends null does not
// match (as in SQL, so Match and the WHERE clause of SQL agree).
type null struct{}

type interval struct{ start, end time.Time }

var (
	minTime = time.Date(-9999, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// Match evaluates the filter on f. It returns an error wrapping
// ErrUnsupported for a function call (none is defined yet).
func (e *Expr) Match(f Feature) (bool, error) {
	v, err := evaluator{f: f}.eval(e)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	return ok && b, nil
}

type evaluator struct{ f Feature }

func (ev evaluator) property(name string) any {
	gp := ev.f.GeometryProperty
	if gp == "" {
		gp = "geometry"
	}
	if name == gp && ev.f.Geometry != nil {
		return newShape(ev.f.Geometry)
	}
	v, ok := ev.f.Properties[name]
	if !ok {
		return null{}
	}
	return normalise(v)
}

func normalise(v any) any {
	switch v := v.(type) {
	case nil:
		return null{}
	case int:
		return float64(v)
	case int8:
		return float64(v)
	case int16:
		return float64(v)
	case int32:
		return float64(v)
	case int64:
		return float64(v)
	case uint:
		return float64(v)
	case uint8:
		return float64(v)
	case uint16:
		return float64(v)
	case uint32:
		return float64(v)
	case uint64:
		return float64(v)
	case float32:
		return float64(v)
	case geom.T:
		return newShape(v)
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalise(x)
		}
		return out
	}
	return v
}

func (ev evaluator) eval(e *Expr) (any, error) {
	switch e.Kind {
	case KindBool:
		return e.Bool, nil
	case KindNumber:
		return e.Num, nil
	case KindString:
		return e.Str, nil
	case KindDate, KindTimestamp:
		return e.Time, nil
	case KindProperty:
		return ev.property(e.Str), nil
	case KindGeometry:
		return newShape(e.Geom), nil
	case KindBBox:
		return bboxShape(e.BBox), nil
	case KindInterval:
		return ev.interval(e)
	case KindArray:
		out := make([]any, len(e.Args))
		for i, a := range e.Args {
			v, err := ev.eval(a)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case KindFunc:
		return nil, fmt.Errorf("cql2: function %s: %w", e.Op, ErrUnsupported)
	}
	if e.Op == "and" || e.Op == "or" {
		return ev.logic(e)
	}
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		v, err := ev.eval(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return apply(e.Op, args), nil
}

func (ev evaluator) logic(e *Expr) (any, error) {
	stop := e.Op == "or" // the value that decides: true for OR, false for AND
	unknown := false
	for _, a := range e.Args {
		v, err := ev.eval(a)
		if err != nil {
			return nil, err
		}
		b, ok := v.(bool)
		if !ok {
			unknown = true
			continue
		}
		if b == stop {
			return stop, nil
		}
	}
	if unknown {
		return null{}, nil
	}
	return !stop, nil
}

func (ev evaluator) interval(e *Expr) (any, error) {
	var bounds [2]time.Time
	for i, a := range e.Args {
		if a.Kind == KindString { // ".."
			bounds[i] = [2]time.Time{minTime, maxTime}[i]
			continue
		}
		v, err := ev.eval(a)
		if err != nil {
			return nil, err
		}
		t, ok := asTime(v)
		if !ok {
			return null{}, nil
		}
		bounds[i] = t
	}
	return interval{bounds[0], bounds[1]}, nil
}

// apply evaluates a standard operator on evaluated operands.
func apply(name string, args []any) any {
	for _, a := range args {
		if _, isNull := a.(null); isNull && name != "isNull" {
			return null{}
		}
	}
	switch ops[name] {
	case classLogic: // not
		b, ok := args[0].(bool)
		if !ok {
			return null{}
		}
		return !b
	case classComparison:
		c, ok := compare(args[0], args[1])
		if !ok {
			return null{}
		}
		return map[string]bool{"=": c == 0, "<>": c != 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[name]
	case classLike:
		s, ok1 := args[0].(string)
		p, ok2 := args[1].(string)
		if !ok1 || !ok2 {
			return null{}
		}
		return like(s, p)
	case classBetween:
		lo, ok1 := compare(args[0], args[1])
		hi, ok2 := compare(args[0], args[2])
		if !ok1 || !ok2 {
			return null{}
		}
		return lo >= 0 && hi <= 0
	case classIn:
		for _, x := range args[1].([]any) {
			if c, ok := compare(args[0], x); ok && c == 0 {
				return true
			}
		}
		return false
	case classIsNull:
		_, isNull := args[0].(null)
		return isNull
	case classSpatial:
		a, ok1 := args[0].(*shape)
		b, ok2 := args[1].(*shape)
		if !ok1 || !ok2 {
			return null{}
		}
		return spatial(name, a, b)
	case classTemporal:
		a, ok1 := asInterval(args[0])
		b, ok2 := asInterval(args[1])
		if !ok1 || !ok2 {
			return null{}
		}
		return temporal(name, a, b)
	case classArray:
		a, ok1 := args[0].([]any)
		b, ok2 := args[1].([]any)
		if !ok1 || !ok2 {
			return null{}
		}
		return arrays(name, a, b)
	case classArith:
		a, ok1 := args[0].(float64)
		b, ok2 := args[1].(float64)
		if !ok1 || !ok2 {
			return null{}
		}
		return arith(name, a, b)
	case classText:
		s, ok := args[0].(string)
		if !ok {
			return null{}
		}
		if name == "casei" {
			return strings.ToLower(s)
		}
		return stripAccents(s)
	}
	return null{}
}

// compare orders two values of the same type (numbers, strings, booleans,
// instants; a string compared with an instant is read as one).
func compare(a, b any) (int, bool) {
	switch a := a.(type) {
	case float64:
		b, ok := b.(float64)
		if !ok {
			return 0, false
		}
		switch {
		case a < b:
			return -1, true
		case a > b:
			return 1, true
		}
		return 0, true
	case string:
		if bs, ok := b.(string); ok {
			return strings.Compare(a, bs), true
		}
		if at, ok := asTime(a); ok {
			return compare(at, b)
		}
	case bool:
		if b, ok := b.(bool); ok {
			if a == b {
				return 0, true
			}
			if !a {
				return -1, true
			}
			return 1, true
		}
	case time.Time:
		bt, ok := asTime(b)
		if !ok {
			return 0, false
		}
		return a.Compare(bt), true
	}
	return 0, false
}

func asTime(v any) (time.Time, bool) {
	switch v := v.(type) {
	case time.Time:
		return v, true
	case string:
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t, true
		}
		if t, err := time.Parse(time.DateOnly, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func asInterval(v any) (interval, bool) {
	if iv, ok := v.(interval); ok {
		return iv, true
	}
	t, ok := asTime(v)
	return interval{t, t}, ok
}

// temporal evaluates a T_* predicate (OGC 21-065r2 7.11; Allen's relations,
// an instant being an interval of length zero; a DATE is its first instant).
func temporal(name string, a, b interval) bool {
	as, ae, bs, be := a.start, a.end, b.start, b.end
	switch name {
	case "t_after":
		return as.After(be)
	case "t_before":
		return ae.Before(bs)
	case "t_contains":
		return as.Before(bs) && ae.After(be)
	case "t_disjoint":
		return ae.Before(bs) || as.After(be)
	case "t_during":
		return as.After(bs) && ae.Before(be)
	case "t_equals":
		return as.Equal(bs) && ae.Equal(be)
	case "t_finishedBy":
		return as.Before(bs) && ae.Equal(be)
	case "t_finishes":
		return as.After(bs) && ae.Equal(be)
	case "t_intersects":
		return !as.After(be) && !ae.Before(bs)
	case "t_meets":
		return ae.Equal(bs)
	case "t_metBy":
		return as.Equal(be)
	case "t_overlappedBy":
		return as.After(bs) && as.Before(be) && ae.After(be)
	case "t_overlaps":
		return as.Before(bs) && ae.After(bs) && ae.Before(be)
	case "t_startedBy":
		return as.Equal(bs) && ae.After(be)
	case "t_starts":
		return as.Equal(bs) && ae.Before(be)
	}
	return false
}

func arrays(name string, a, b []any) bool {
	in := func(x any, list []any) bool {
		for _, y := range list {
			if c, ok := compare(x, y); ok && c == 0 {
				return true
			}
		}
		return false
	}
	all := func(xs, list []any) bool {
		for _, x := range xs {
			if !in(x, list) {
				return false
			}
		}
		return true
	}
	switch name {
	case "a_equals":
		return len(a) == len(b) && all(a, b) && all(b, a)
	case "a_contains":
		return all(b, a)
	case "a_containedBy":
		return all(a, b)
	case "a_overlaps":
		for _, x := range a {
			if in(x, b) {
				return true
			}
		}
	}
	return false
}

// arith evaluates an arithmetic operator; a division by zero is null (as in SQLite).
func arith(name string, a, b float64) any {
	switch name {
	case "+":
		return a + b
	case "-":
		return a - b
	case "*":
		return a * b
	case "/", "div", "%":
		if b == 0 {
			return null{}
		}
		switch name {
		case "/":
			return a / b
		case "div":
			return math.Trunc(a / b)
		}
		return math.Mod(a, b)
	}
	v := math.Pow(a, b)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return null{}
	}
	return v
}

// stripAccents removes combining marks after canonical decomposition (é -> e).
func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// like matches s against a CQL2 pattern: % any run of characters, _ one
// character, \ makes the next character literal. Case- and
// accent-sensitive; wrap both sides in CASEI/ACCENTI for the insensitive forms.
func like(s, pattern string) bool {
	type item struct {
		r       rune
		literal bool
	}
	var p []item
	pr := []rune(pattern)
	for i := 0; i < len(pr); i++ {
		if pr[i] == '\\' && i+1 < len(pr) {
			i++
			p = append(p, item{pr[i], true})
			continue
		}
		p = append(p, item{pr[i], false})
	}
	sr := []rune(s)
	si, pi, star, mark := 0, 0, -1, 0
	for si < len(sr) {
		switch {
		case pi < len(p) && !p[pi].literal && p[pi].r == '%':
			star, mark = pi, si
			pi++
		case pi < len(p) && (!p[pi].literal && p[pi].r == '_' || p[pi].r == sr[si]):
			si++
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && !p[pi].literal && p[pi].r == '%' {
		pi++
	}
	return pi == len(p)
}
