package cql2

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Type is the type of a queryable property.
type Type uint8

// The queryable types (the "type"/"format" of OGC API - Features Part 3 queryables).
const (
	TypeString Type = iota + 1
	TypeNumber
	TypeInteger
	TypeBoolean
	TypeDate
	TypeTimestamp
	TypeGeometry
	TypeArray
)

var typeNames = map[Type]string{TypeString: "string", TypeNumber: "number", TypeInteger: "integer",
	TypeBoolean: "boolean", TypeDate: "date", TypeTimestamp: "timestamp", TypeGeometry: "geometry", TypeArray: "array"}

func (t Type) String() string { return typeNames[t] }

// Queryable describes one property a filter may use: its type and, when not
// nil, the only values it takes (strings or numbers, e.g. a code list).
type Queryable struct {
	Type Type
	Enum []any
}

// Queryables maps property names to their description.
type Queryables map[string]Queryable

// vtype is the type of a value in a filter; vAny for what is not known.
type vtype uint8

const (
	vAny vtype = iota
	vString
	vNumber
	vBool
	vTime
	vInterval
	vGeom
	vArray
)

var vnames = [...]string{"any", "a string", "a number", "a boolean", "an instant", "an interval", "a geometry", "an array"}

func (v vtype) String() string { return vnames[v] }

// Validate checks that e uses only the queryables in q, each as its type
// allows: comparisons of like types, LIKE and CASEI/ACCENTI on strings,
// BETWEEN and arithmetic on numbers, S_* on geometries, T_* on instants, A_*
// on arrays, and a literal compared with an enumerated property among its
// values. src is the cql2-text the filter came from ("" for cql2-json). The
// error is a *SyntaxError wrapping ErrInvalid that names the property
// (Token) and its position; functions are refused (none is defined).
func (q Queryables) Validate(e *Expr, src string) error {
	v := validator{q: q, src: src}
	_, err := v.typeOf(e, "")
	return err
}

type validator struct {
	q   Queryables
	src string
}

func (v validator) fail(e *Expr, path, token, format string, args ...any) error {
	err := &SyntaxError{Offset: -1, Path: path, Token: token, Msg: fmt.Sprintf(format, args...), kind: ErrInvalid}
	if path == "" {
		err.Path = "/"
	}
	if v.src != "" && e.Pos >= 0 {
		err.Offset = e.Pos
		err.Line, err.Col = lineCol(v.src, e.Pos)
		if token == "" {
			err.Token = tokenAt(v.src, e.Pos)
		}
	}
	return err
}

func (v validator) names() string {
	var names []string
	for n := range v.q {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func queryableType(t Type) vtype {
	switch t {
	case TypeString:
		return vString
	case TypeNumber, TypeInteger:
		return vNumber
	case TypeBoolean:
		return vBool
	case TypeDate, TypeTimestamp:
		return vTime
	case TypeGeometry:
		return vGeom
	case TypeArray:
		return vArray
	}
	return vAny
}

func (v validator) typeOf(e *Expr, path string) (vtype, error) {
	switch e.Kind {
	case KindBool:
		return vBool, nil
	case KindNumber:
		return vNumber, nil
	case KindString:
		return vString, nil
	case KindDate, KindTimestamp:
		return vTime, nil
	case KindGeometry, KindBBox:
		return vGeom, nil
	case KindProperty:
		qd, ok := v.q[e.Str]
		if !ok {
			return vAny, v.fail(e, path, e.Str, "unknown property %q; the queryables are: %s", e.Str, v.names())
		}
		return queryableType(qd.Type), nil
	case KindFunc:
		return vAny, v.fail(e, path, e.Op, "unknown function %q", e.Op)
	case KindInterval:
		for i, a := range e.Args {
			if a.Kind == KindString {
				continue
			}
			if err := v.want(a, path+"/interval/"+strconv.Itoa(i), vTime, "an interval bound"); err != nil {
				return vAny, err
			}
		}
		return vInterval, nil
	case KindArray:
		for i, a := range e.Args {
			if _, err := v.typeOf(a, path+"/"+strconv.Itoa(i)); err != nil {
				return vAny, err
			}
		}
		return vArray, nil
	}
	return v.op(e, path)
}

// want checks that a has type t (or an unknown type).
func (v validator) want(a *Expr, path string, t vtype, role string) error {
	got, err := v.typeOf(a, path)
	if err != nil {
		return err
	}
	if got != t && got != vAny {
		return v.fail(a, path, "", "%s must be %s, not %s", role, t, got)
	}
	return nil
}

func (v validator) op(e *Expr, path string) (vtype, error) {
	arg := func(i int) string { return path + "/args/" + strconv.Itoa(i) }
	switch cl := ops[e.Op]; cl {
	case classLogic:
		for i, a := range e.Args {
			if err := v.want(a, arg(i), vBool, "an operand of "+strings.ToUpper(e.Op)); err != nil {
				return vAny, err
			}
		}
		return vBool, nil
	case classComparison, classIn, classBetween:
		left, err := v.typeOf(e.Args[0], arg(0))
		if err != nil {
			return vAny, err
		}
		if cl == classBetween && left != vNumber && left != vAny {
			return vAny, v.fail(e.Args[0], arg(0), "", "BETWEEN needs a number, not %s", left)
		}
		others := e.Args[1:]
		base := arg(0)[:len(arg(0))-1]
		if cl == classIn {
			others, base = e.Args[1].Args, arg(1)+"/"
		}
		for i, o := range others {
			p := base + strconv.Itoa(i+1)
			if cl == classIn {
				p = base + strconv.Itoa(i)
			}
			right, err := v.typeOf(o, p)
			if err != nil {
				return vAny, err
			}
			if left != vAny && right != vAny && left != right {
				return vAny, v.fail(o, p, "", "%s compares %s with %s", strings.ToUpper(e.Op), left, right)
			}
			if err := v.enum(e.Args[0], o, p); err != nil {
				return vAny, err
			}
		}
		return vBool, nil
	case classLike:
		if err := v.want(e.Args[0], arg(0), vString, "the operand of LIKE"); err != nil {
			return vAny, err
		}
		return vBool, v.want(e.Args[1], arg(1), vString, "the pattern of LIKE")
	case classIsNull:
		_, err := v.typeOf(e.Args[0], arg(0))
		return vBool, err
	case classSpatial, classTemporal, classArray:
		t, role := map[opClass]vtype{classSpatial: vGeom, classTemporal: vTime, classArray: vArray}[cl], "an operand of "+upperASCII(e.Op)
		for i, a := range e.Args {
			got, err := v.typeOf(a, arg(i))
			if err != nil {
				return vAny, err
			}
			if got != t && got != vAny && !(cl == classTemporal && got == vInterval) {
				return vAny, v.fail(a, arg(i), "", "%s must be %s, not %s", role, t, got)
			}
		}
		return vBool, nil
	case classArith:
		for i, a := range e.Args {
			if err := v.want(a, arg(i), vNumber, "an operand of "+e.Op); err != nil {
				return vAny, err
			}
		}
		return vNumber, nil
	case classText:
		return vString, v.want(e.Args[0], arg(0), vString, "the operand of "+upperASCII(e.Op))
	}
	return vAny, nil
}

// enum checks a literal compared with an enumerated property (either side).
func (v validator) enum(a, b *Expr, path string) error {
	if a.Kind != KindProperty {
		a, b = b, a
	}
	if a.Kind != KindProperty || (b.Kind != KindString && b.Kind != KindNumber) {
		return nil
	}
	qd := v.q[a.Str]
	if qd.Enum == nil {
		return nil
	}
	lit := any(b.Str)
	if b.Kind == KindNumber {
		lit = b.Num
	}
	for _, x := range qd.Enum {
		if c, ok := compare(lit, normalise(x)); ok && c == 0 {
			return nil
		}
	}
	return v.fail(b, path, "", "%s is not a value of %q", b.Text(), a.Str)
}
