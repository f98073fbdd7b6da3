package cql2

import (
	"fmt"
	"strconv"
)

// check enforces the typing rules of the CQL2 grammar on a parsed AST, the
// same rules for both encodings: a boolean expression at the top, two scalar
// operands to a comparison, a character expression and a pattern to LIKE,
// numeric operands to BETWEEN and arithmetic, and so on. src is the cql2-text
// source ("" for cql2-json, where errors carry a JSON pointer).
func check(e *Expr, src string) error {
	c := checker{src: src}
	if !e.isBoolean() {
		return c.fail(e, "", "the filter is not a boolean expression")
	}
	return c.node(e, "")
}

type checker struct{ src string }

func (c checker) fail(e *Expr, path, format string, args ...any) error {
	err := &SyntaxError{Offset: -1, Path: path, Msg: fmt.Sprintf(format, args...), kind: ErrInvalid}
	if path == "" {
		err.Path = "/"
	}
	if c.src != "" && e.Pos >= 0 {
		err.Offset = e.Pos
		err.Line, err.Col = lineCol(c.src, e.Pos)
		err.Token = tokenAt(c.src, e.Pos)
	}
	return err
}

// tokenAt returns the token starting at offset of src (for error messages).
func tokenAt(src string, offset int) string {
	l := lexer{src: src, pos: offset}
	t, err := l.next()
	if err != nil {
		return ""
	}
	return t.raw
}

var arity = map[opClass][2]int{
	classComparison: {2, 2}, classLike: {2, 2}, classBetween: {3, 3}, classIn: {2, 2},
	classIsNull: {1, 1}, classSpatial: {2, 2}, classTemporal: {2, 2}, classArray: {2, 2},
	classArith: {2, 2}, classText: {1, 1},
}

func (c checker) node(e *Expr, path string) error {
	switch e.Kind {
	case KindFunc, KindArray, KindInterval:
		for i, a := range e.Args {
			if err := c.node(a, path+"/args/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		return nil
	case KindOp:
	default:
		return nil
	}
	cl := ops[e.Op]
	n := len(e.Args)
	if cl == classLogic {
		if e.Op == "not" && n != 1 || e.Op != "not" && n < 2 {
			return c.fail(e, path, "%s takes %s", e.Op, map[bool]string{true: "one operand", false: "two or more operands"}[e.Op == "not"])
		}
	} else if a := arity[cl]; n < a[0] || n > a[1] {
		return c.fail(e, path, "%s takes %d operands, not %d", e.Op, a[0], n)
	}
	for i, a := range e.Args {
		p := path + "/args/" + strconv.Itoa(i)
		if cl == classArray && c.src != "" && isScalarLiteral(a) {
			e.Args[i] = &Expr{Kind: KindArray, Args: []*Expr{a}, Pos: a.Pos} // ('a') in cql2-text
			a = e.Args[i]
		}
		if ok, want := operandOK(cl, e.Op, i, a); !ok {
			return c.fail(a, p, "operand %d of %s must be %s", i+1, e.Op, want)
		}
		if err := c.node(a, p); err != nil {
			return err
		}
	}
	return nil
}

func isScalarLiteral(a *Expr) bool {
	switch a.Kind {
	case KindString, KindNumber, KindBool, KindDate, KindTimestamp, KindGeometry, KindBBox:
		return true
	}
	return false
}

// operandOK reports whether a may be operand i of an operator of class cl,
// and if not, what it must be.
func operandOK(cl opClass, name string, i int, a *Expr) (bool, string) {
	open := a.Kind == KindProperty || a.Kind == KindFunc
	switch cl {
	case classLogic:
		return a.isBoolean(), "a boolean expression"
	case classComparison, classIn:
		if cl == classIn && i == 1 {
			if a.Kind != KindArray || len(a.Args) == 0 {
				return false, "a non-empty list"
			}
			for _, x := range a.Args {
				if !isScalar(x) {
					return false, "a list of scalar values"
				}
			}
			return true, ""
		}
		return isScalar(a), "a scalar (character, numeric, boolean or instant) expression"
	case classLike:
		if i == 1 {
			return isPattern(a), "a character literal, optionally in CASEI/ACCENTI"
		}
		return isCharacter(a), "a character expression"
	case classText:
		return isCharacter(a), "a character expression"
	case classBetween, classArith:
		return open || a.Kind == KindNumber || a.class() == classArith, "a numeric expression"
	case classIsNull:
		return a.Kind != KindArray && a.Kind != KindInterval, "a value"
	case classSpatial:
		return open || a.Kind == KindGeometry || a.Kind == KindBBox, "a geometry"
	case classTemporal:
		return open || a.Kind == KindDate || a.Kind == KindTimestamp || a.Kind == KindInterval, "a temporal expression"
	case classArray:
		return open || a.Kind == KindArray, "an array"
	}
	return true, ""
}

func isScalar(a *Expr) bool {
	switch a.Kind {
	case KindString, KindNumber, KindBool, KindDate, KindTimestamp, KindProperty, KindFunc:
		return true
	}
	c := a.class()
	return c == classArith || c == classText
}

func isCharacter(a *Expr) bool {
	switch a.Kind {
	case KindString, KindProperty, KindFunc:
		return true
	}
	return a.class() == classText
}

func isPattern(a *Expr) bool {
	if a.class() == classText {
		return len(a.Args) == 1 && isPattern(a.Args[0])
	}
	return a.Kind == KindString
}
