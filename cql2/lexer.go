package cql2

import (
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // identifier or keyword
	tQuoted         // "identifier"
	tString         // 'character literal' (text holds the unescaped value)
	tNumber         // unsigned numeric literal
	tPunct          // ( ) , = <> < > <= >= + - * / % ^
)

type token struct {
	kind tokKind
	text string // the value (unescaped for strings)
	raw  string // as written, for error messages
	pos  int
}

// lexer splits cql2-text into tokens (OGC 21-065r2, Annex B).
type lexer struct {
	src string
	pos int
}

func (l *lexer) errAt(pos int, tok, msg string) *SyntaxError {
	line, col := lineCol(l.src, pos)
	return &SyntaxError{Offset: pos, Line: line, Col: col, Token: tok, Msg: msg}
}

func (l *lexer) next() (token, error) {
	l.skipSpace()
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tEOF, pos: start}, nil
	}
	r, size := utf8.DecodeRuneInString(l.src[l.pos:])
	switch {
	case r == '\'':
		return l.str()
	case r == '"':
		end := strings.IndexByte(l.src[l.pos+1:], '"')
		if end < 0 {
			return token{}, l.errAt(start, l.src[start:], "unterminated quoted property name")
		}
		name := l.src[l.pos+1 : l.pos+1+end]
		l.pos += end + 2
		if !validIdent(name) {
			return token{}, l.errAt(start, l.src[start:l.pos], "not a property name")
		}
		return token{kind: tQuoted, text: name, raw: l.src[start:l.pos], pos: start}, nil
	case isDigit(r) || r == '.' && l.pos+1 < len(l.src) && isDigit(rune(l.src[l.pos+1])):
		return l.number()
	case isIdentStart(r):
		l.pos += size
		for l.pos < len(l.src) {
			r, size := utf8.DecodeRuneInString(l.src[l.pos:])
			if !isIdentPart(r) {
				break
			}
			l.pos += size
		}
		return token{kind: tIdent, text: l.src[start:l.pos], raw: l.src[start:l.pos], pos: start}, nil
	}
	for _, p := range []string{"<>", "<=", ">=", "(", ")", ",", "=", "<", ">", "+", "-", "*", "/", "%", "^"} {
		if strings.HasPrefix(l.src[l.pos:], p) {
			l.pos += len(p)
			return token{kind: tPunct, text: p, raw: p, pos: start}, nil
		}
	}
	return token{}, l.errAt(start, string(r), "unexpected character")
}

func (l *lexer) str() (token, error) {
	start := l.pos
	var b strings.Builder
	i := l.pos + 1
	for i < len(l.src) {
		c := l.src[i]
		switch {
		case c == '\'' && i+1 < len(l.src) && l.src[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		case c == '\\' && i+1 < len(l.src) && l.src[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		case c == '\'':
			l.pos = i + 1
			return token{kind: tString, text: b.String(), raw: l.src[start:l.pos], pos: start}, nil
		default:
			b.WriteByte(c)
			i++
		}
	}
	return token{}, l.errAt(start, l.src[start:], "unterminated character literal")
}

func (l *lexer) number() (token, error) {
	start := l.pos
	digits := func() int {
		n := 0
		for l.pos < len(l.src) && isDigit(rune(l.src[l.pos])) {
			l.pos++
			n++
		}
		return n
	}
	digits()
	if l.pos < len(l.src) && l.src[l.pos] == '.' {
		l.pos++
		digits()
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		save := l.pos
		l.pos++
		if l.pos < len(l.src) && (l.src[l.pos] == '+' || l.src[l.pos] == '-') {
			l.pos++
		}
		if digits() == 0 {
			l.pos = save
		}
	}
	if l.pos < len(l.src) {
		if r, _ := utf8.DecodeRuneInString(l.src[l.pos:]); isIdentStart(r) {
			return token{}, l.errAt(start, l.src[start:l.pos+1], "malformed number")
		}
	}
	return token{kind: tNumber, text: l.src[start:l.pos], raw: l.src[start:l.pos], pos: start}, nil
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		if !isSpace(r) {
			return
		}
		l.pos += size
	}
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// isSpace is the whitespace production of the BNF.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// isIdentStart is the identifierStart production of the BNF.
func isIdentStart(r rune) bool {
	switch {
	case r == ':' || r == '_' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z':
		return true
	case 0xC0 <= r && r <= 0xD6, 0xD8 <= r && r <= 0xF6, 0xF8 <= r && r <= 0x2FF,
		0x370 <= r && r <= 0x37D, 0x37F <= r && r <= 0x1FFE, 0x200C <= r && r <= 0x200D,
		0x2070 <= r && r <= 0x218F, 0x2C00 <= r && r <= 0x2FEF, 0x3001 <= r && r <= 0xD7FF,
		0xF900 <= r && r <= 0xFDCF, 0xFDF0 <= r && r <= 0xFFFD, 0x10000 <= r && r <= 0xEFFFF:
		return true
	}
	return false
}

// isIdentPart is the identifierPart production of the BNF.
func isIdentPart(r rune) bool {
	return isIdentStart(r) || r == '.' || isDigit(r) || 0x300 <= r && r <= 0x36F || r == 0x203F || r == 0x2040
}

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError || i == 0 && !isIdentStart(r) || i > 0 && !isIdentPart(r) {
			return false
		}
	}
	return true
}
