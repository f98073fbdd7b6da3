package cql2

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a filter, so hostile input cannot exhaust the stack.
const maxDepth = 200

// reserved words cannot be unquoted property names.
var reserved = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "LIKE": true, "BETWEEN": true, "IN": true, "IS": true,
	"NULL": true, "TRUE": true, "FALSE": true, "DIV": true,
}

// ParseText parses a cql2-text filter (OGC 21-065r2 Annex B) into its AST
// and checks it against the grammar's typing rules (a boolean expression at
// the top, numeric operands of BETWEEN, ...). Keywords are case-insensitive.
// Errors wrap ErrSyntax or ErrInvalid as a *SyntaxError naming the position
// and the offending token.
func ParseText(src string) (*Expr, error) {
	p := &parser{lex: lexer{src: src}}
	if !utf8.ValidString(src) {
		bad := 0
		for bad < len(src) {
			r, size := utf8.DecodeRuneInString(src[bad:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			bad += size
		}
		return nil, p.lex.errAt(bad, src[bad:bad+1], "invalid UTF-8")
	}
	for {
		t, err := p.lex.next()
		if err != nil {
			return nil, err
		}
		p.toks = append(p.toks, t)
		if t.kind == tEOF {
			break
		}
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errTok(t, "unexpected token after the end of the expression")
	}
	if err := check(e, src); err != nil {
		return nil, err
	}
	return e, nil
}

type parser struct {
	lex   lexer
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekN(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errTok(t token, msg string) *SyntaxError { return p.lex.errAt(t.pos, t.raw, msg) }

// isKw reports whether t is the keyword kw (upper case).
func isKw(t token, kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }
func isP(t token, s string) bool   { return t.kind == tPunct && t.text == s }

func (p *parser) acceptKw(kw string) bool {
	if isKw(p.peek(), kw) {
		p.advance()
		return true
	}
	return false
}

func (p *parser) expect(s string) (token, error) {
	t := p.peek()
	if !isP(t, s) {
		return t, p.errTok(t, "expected "+strconv.Quote(s))
	}
	return p.advance(), nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errTok(p.peek(), "expression nested too deeply")
	}
	return nil
}

// expr: booleanTerm {OR booleanTerm}; and/or chains become one n-ary node.
func (p *parser) expr() (*Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	return p.chain("OR", "or", p.term)
}

func (p *parser) term() (*Expr, error) { return p.chain("AND", "and", p.factor) }

func (p *parser) chain(kw, name string, sub func() (*Expr, error)) (*Expr, error) {
	first, err := sub()
	if err != nil {
		return nil, err
	}
	if !isKw(p.peek(), kw) {
		return first, nil
	}
	n := op(name, first.Pos, first)
	for p.acceptKw(kw) {
		e, err := sub()
		if err != nil {
			return nil, err
		}
		n.Args = append(n.Args, e)
	}
	return n, nil
}

func (p *parser) factor() (*Expr, error) {
	if t := p.peek(); isKw(t, "NOT") {
		p.advance()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		e, err := p.factor()
		if err != nil {
			return nil, err
		}
		return op("not", t.pos, e), nil
	}
	return p.predicate()
}

var comparisons = map[string]bool{"=": true, "<>": true, "<": true, ">": true, "<=": true, ">=": true}

// predicate: an operand optionally followed by a comparison, [NOT] LIKE,
// [NOT] BETWEEN, [NOT] IN or IS [NOT] NULL.
func (p *parser) predicate() (*Expr, error) {
	left, err := p.arith()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind == tPunct && comparisons[t.text] {
		p.advance()
		right, err := p.arith()
		if err != nil {
			return nil, err
		}
		return op(t.text, t.pos, left, right), nil
	}
	if isKw(t, "IS") {
		p.advance()
		not := p.acceptKw("NOT")
		if !isKw(p.peek(), "NULL") {
			return nil, p.errTok(p.peek(), "expected NULL")
		}
		p.advance()
		return wrapNot(not, t.pos, op("isNull", t.pos, left)), nil
	}
	not := false
	if isKw(t, "NOT") && (isKw(p.peekN(1), "LIKE") || isKw(p.peekN(1), "BETWEEN") || isKw(p.peekN(1), "IN")) {
		p.advance()
		not = true
		t = p.peek()
	}
	switch {
	case isKw(t, "LIKE"):
		p.advance()
		pat, err := p.arith()
		if err != nil {
			return nil, err
		}
		return wrapNot(not, t.pos, op("like", t.pos, left, pat)), nil
	case isKw(t, "BETWEEN"):
		p.advance()
		lo, err := p.arith()
		if err != nil {
			return nil, err
		}
		if !p.acceptKw("AND") {
			return nil, p.errTok(p.peek(), "expected AND of BETWEEN")
		}
		hi, err := p.arith()
		if err != nil {
			return nil, err
		}
		return wrapNot(not, t.pos, op("between", t.pos, left, lo, hi)), nil
	case isKw(t, "IN"):
		p.advance()
		open := p.peek()
		if _, err := p.expect("("); err != nil {
			return nil, err
		}
		list, err := p.list(open.pos)
		if err != nil {
			return nil, err
		}
		if len(list.Args) == 0 {
			return nil, p.errTok(open, "empty IN list")
		}
		return wrapNot(not, t.pos, op("in", t.pos, left, list)), nil
	}
	return left, nil
}

func wrapNot(not bool, pos int, e *Expr) *Expr {
	if not {
		return op("not", pos, e)
	}
	return e
}

// list parses the rest of a parenthesised, comma-separated list after its "(".
func (p *parser) list(pos int) (*Expr, error) {
	arr := &Expr{Kind: KindArray, Pos: pos}
	if isP(p.peek(), ")") {
		p.advance()
		return arr, nil
	}
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		arr.Args = append(arr.Args, e)
		if isP(p.peek(), ",") {
			p.advance()
			continue
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		return arr, nil
	}
}

// arith: term {(+|-) term}.
func (p *parser) arith() (*Expr, error) {
	left, err := p.mul()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); isP(t, "+") || isP(t, "-"); t = p.peek() {
		p.advance()
		right, err := p.mul()
		if err != nil {
			return nil, err
		}
		left = op(t.text, t.pos, left, right)
	}
	return left, nil
}

func (p *parser) mul() (*Expr, error) {
	left, err := p.power()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); isP(t, "*") || isP(t, "/") || isP(t, "%") || isKw(t, "DIV"); t = p.peek() {
		p.advance()
		right, err := p.power()
		if err != nil {
			return nil, err
		}
		name := t.text
		if t.kind == tIdent {
			name = "div"
		}
		left = op(name, t.pos, left, right)
	}
	return left, nil
}

func (p *parser) power() (*Expr, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); isP(t, "^") {
		p.advance()
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		return op("^", t.pos, left, right), nil
	}
	return left, nil
}

// unary: a sign before a number is part of the literal; a minus before any
// other operand is a multiplication by -1 (as cql2-json writes it).
func (p *parser) unary() (*Expr, error) {
	t := p.peek()
	if !isP(t, "-") && !isP(t, "+") {
		return p.primary()
	}
	p.advance()
	if n := p.peek(); n.kind == tNumber {
		p.advance()
		v, err := parseNum(n.text)
		if err != nil {
			return nil, p.errTok(n, "malformed number")
		}
		if t.text == "-" {
			v = -v
		}
		return &Expr{Kind: KindNumber, Num: v, Pos: t.pos}, nil
	}
	if t.text == "+" {
		return nil, p.errTok(p.peek(), "expected a number after +")
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	e, err := p.unary()
	if err != nil {
		return nil, err
	}
	return op("*", t.pos, &Expr{Kind: KindNumber, Num: -1, Pos: t.pos}, e), nil
}

func parseNum(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func (p *parser) primary() (*Expr, error) {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.advance()
		v, err := parseNum(t.text)
		if err != nil {
			return nil, p.errTok(t, "malformed number")
		}
		return &Expr{Kind: KindNumber, Num: v, Pos: t.pos}, nil
	case tString:
		p.advance()
		return &Expr{Kind: KindString, Str: t.text, Pos: t.pos}, nil
	case tQuoted:
		p.advance()
		return &Expr{Kind: KindProperty, Str: t.text, Pos: t.pos}, nil
	case tPunct:
		if t.text != "(" {
			return nil, p.errTok(t, "expected an operand")
		}
		p.advance()
		arr, err := p.list(t.pos)
		if err != nil {
			return nil, err
		}
		if len(arr.Args) == 1 {
			return arr.Args[0], nil // a parenthesised expression
		}
		return arr, nil
	case tEOF:
		return nil, p.errTok(t, "unexpected end of input")
	}
	return p.word(t)
}

// word parses what starts with an identifier: a literal keyword, a
// constructor (DATE, TIMESTAMP, INTERVAL, WKT, BBOX), a standard function, a
// user function or a property name.
func (p *parser) word(t token) (*Expr, error) {
	up := strings.ToUpper(t.text)
	call := isP(p.peekN(1), "(")
	switch {
	case up == "TRUE" || up == "FALSE":
		p.advance()
		return &Expr{Kind: KindBool, Bool: up == "TRUE", Pos: t.pos}, nil
	case reserved[up]:
		return nil, p.errTok(t, "expected an operand, found a keyword")
	case isGeomKeyword(up) || up == "BBOX":
		return p.geometry()
	case !call:
		p.advance()
		return &Expr{Kind: KindProperty, Str: t.text, Pos: t.pos}, nil
	case up == "DATE" || up == "TIMESTAMP":
		p.advance()
		p.advance()
		s := p.peek()
		if s.kind != tString {
			return nil, p.errTok(s, "expected a quoted "+strings.ToLower(up))
		}
		p.advance()
		e, msg := instant(s.text, up == "DATE", s.pos)
		if e == nil {
			return nil, p.errTok(s, msg)
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		return e, nil
	case up == "INTERVAL":
		return p.interval()
	}
	p.advance()
	open := p.advance()
	args, err := p.list(open.pos)
	if err != nil {
		return nil, err
	}
	if name, ok := textOps[up]; ok {
		return &Expr{Kind: KindOp, Op: name, Args: args.Args, Pos: t.pos}, nil
	}
	return &Expr{Kind: KindFunc, Op: t.text, Args: args.Args, Pos: t.pos}, nil
}

func (p *parser) interval() (*Expr, error) {
	t := p.advance()
	p.advance()
	iv := &Expr{Kind: KindInterval, Pos: t.pos}
	for len(iv.Args) < 2 {
		if len(iv.Args) == 1 {
			if _, err := p.expect(","); err != nil {
				return nil, err
			}
		}
		s := p.peek()
		if s.kind == tString {
			p.advance()
			e, msg := intervalBound(s.text, s.pos)
			if e == nil {
				return nil, p.errTok(s, msg)
			}
			iv.Args = append(iv.Args, e)
			continue
		}
		e, err := p.arith()
		if err != nil {
			return nil, err
		}
		if e.Kind != KindProperty && e.Kind != KindFunc {
			return nil, p.errTok(s, "an interval bound is a date, a timestamp, '..', a property or a function")
		}
		iv.Args = append(iv.Args, e)
	}
	if _, err := p.expect(")"); err != nil {
		return nil, err
	}
	return iv, nil
}

// intervalBound reads a quoted interval bound: a date, a timestamp or "..".
func intervalBound(s string, pos int) (*Expr, string) {
	if s == ".." {
		return &Expr{Kind: KindString, Str: s, Pos: pos}, ""
	}
	return instant(s, len(s) == len("2006-01-02"), pos)
}

// instant validates a DATE or TIMESTAMP string (fullDate, fullDate "T" utcTime).
func instant(s string, date bool, pos int) (*Expr, string) {
	if date {
		tm, err := time.Parse(time.DateOnly, s)
		if err != nil || len(s) != 10 {
			return nil, "not a date YYYY-MM-DD"
		}
		return &Expr{Kind: KindDate, Str: s, Time: tm, Pos: pos}, ""
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !strings.HasSuffix(s, "Z") || len(s) < 20 || s[10] != 'T' {
		return nil, "not a UTC timestamp YYYY-MM-DDTHH:MM:SS[.fff]Z"
	}
	return &Expr{Kind: KindTimestamp, Str: s, Time: tm, Pos: pos}, ""
}
