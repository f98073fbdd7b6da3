package cql2

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error the package returns wraps one of them.
var (
	// ErrSyntax: the filter is not cql2-text or cql2-json (a *SyntaxError says where).
	ErrSyntax = errors.New("cql2: syntax error")
	// ErrInvalid: the filter parses but breaks a rule of the grammar's types or
	// of the queryables (a *SyntaxError or *QueryableError says where).
	ErrInvalid = errors.New("cql2: invalid filter")
	// ErrUnsupported: valid CQL2 outside what this package evaluates.
	ErrUnsupported = errors.New("cql2: unsupported")
)

// SyntaxError locates a problem in a filter. For cql2-text Offset is the byte
// offset and Line/Col (1-based, Col in characters) the position of Token, the
// offending token ("" at the end of input). For cql2-json Path is the JSON
// pointer of the offending member and Offset is -1.
type SyntaxError struct {
	Offset    int
	Line, Col int
	Path      string
	Token     string
	Msg       string
	kind      error
}

func (e *SyntaxError) Error() string {
	where := e.Path
	if e.Offset >= 0 {
		where = fmt.Sprintf("%d:%d", e.Line, e.Col)
	}
	tok := "end of input"
	if e.Token != "" {
		tok = fmt.Sprintf("%q", e.Token)
	}
	if e.Offset < 0 && e.Token == "" {
		return fmt.Sprintf("cql2: at %s: %s", where, e.Msg)
	}
	return fmt.Sprintf("cql2: at %s near %s: %s", where, tok, e.Msg)
}

func (e *SyntaxError) Unwrap() error {
	if e.kind != nil {
		return e.kind
	}
	return ErrSyntax
}

// lineCol returns the 1-based line and column (in runes) of offset in src.
func lineCol(src string, offset int) (int, int) {
	line, col := 1, 1
	for i, r := range src {
		if i >= offset {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
			continue
		}
		col++
	}
	return line, col
}
