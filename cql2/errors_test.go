package cql2

import (
	"errors"
	"testing"
)

// TestTextErrors: a bad cql2-text filter is an error value naming the line,
// column and offending token, so the server can answer a 400 that points at it.
func TestTextErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src       string
		line, col int
		token     string
		kind      error
	}{
		{"height >", 1, 9, "", ErrSyntax},
		{"height > 'x", 1, 10, "'x", ErrSyntax},
		{"height >> 3", 1, 9, ">", ErrSyntax},
		{"function = 'A' AND\n  height BETWEEN 1 OR 2", 2, 20, "OR", ErrSyntax},
		{"S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1, 0 1)))", 1, 32, "(", ErrSyntax},
		{"name LIKE 5", 1, 11, "5", ErrInvalid},
		{"height + 1", 1, 8, "+", ErrInvalid},
		{"T_BEFORE(built, DATE('2020-02-30'))", 1, 22, "'2020-02-30'", ErrSyntax},
		{"height = 1 extra", 1, 12, "extra", ErrSyntax},
		{"höhe § 3", 1, 6, "§", ErrSyntax},
		{"a = 1 AND b", 1, 11, "b", ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			_, err := ParseText(c.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("want a *SyntaxError, got %v", err)
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("%v does not wrap %v", err, c.kind)
			}
			if se.Line != c.line || se.Col != c.col || se.Token != c.token {
				t.Errorf("got %d:%d %q, want %d:%d %q (%v)", se.Line, se.Col, se.Token, c.line, c.col, c.token, err)
			}
		})
	}
}

func TestJSONErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ src, path string }{
		{`{"op":"=","args":[{"property":"a"}]}`, "/"},
		{`{"op":"and","args":[{"op":"=","args":[{"property":"a"},1]},{"op":"like","args":[{"property":"n"},3]}]}`, "/args/1/args/1"},
		{`{"op":"s_intersects","args":[{"property":"g"},{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}]}`, "/args/1/coordinates/0"},
		{`{"op":"=","args":[{"property":"a"},{"date":"2020-1-1"}]}`, "/args/1/date"},
		{`{"op":"=","args":[{"property":"a"},1],"x":2}`, "/x"},
		{`{"op":"=","args":[{"property":"a"},1]`, "/"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			_, err := ParseJSON([]byte(c.src))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("want a *SyntaxError, got %v", err)
			}
			if se.Path != c.path {
				t.Errorf("path %q, want %q (%v)", se.Path, c.path, err)
			}
		})
	}
}

var testQueryables = Queryables{
	"function": {Type: TypeString, Enum: []any{"Wohnhaus", "Garage", "Schule"}},
	"roof":     {Type: TypeString},
	"name":     {Type: TypeString},
	"height":   {Type: TypeNumber},
	"storeys":  {Type: TypeInteger},
	"built":    {Type: TypeDate},
	"tags":     {Type: TypeArray},
	"geometry": {Type: TypeGeometry},
	"code":     {Type: TypeInteger, Enum: []any{1000, 2000}},
}

// TestQueryables: every filter of the evaluation table passes the
// queryables; unknown properties, type mismatches, values outside an enum and
// functions are refused with the property or token named.
func TestQueryables(t *testing.T) {
	t.Parallel()
	for _, c := range evalCases {
		e, err := ParseText(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		if err := testQueryables.Validate(e, c.filter); err != nil {
			t.Errorf("%s: %v", c.filter, err)
		}
	}
	bad := []struct{ src, token string }{
		{"hight > 3", "hight"},
		{"height = 'high'", "'high'"},
		{"name > 3", "3"},
		{"height LIKE 'x%'", "height"},
		{"S_INTERSECTS(height, POINT(1 2))", "height"},
		{"T_AFTER(name, DATE('2020-01-01'))", "name"},
		{"function = 'Kirche'", "'Kirche'"},
		{"function IN ('Garage', 'Kirche')", "'Kirche'"},
		{"code = 3000", "3000"},
		{"name BETWEEN 1 AND 3", "name"},
		{"CASEI(height) = 'x'", "height"},
		{"buffer(geometry, 3) = 1", "buffer"},
		{"storeys + name > 1", "name"},
		{"A_CONTAINS(name, ('x'))", "name"},
	}
	for _, c := range bad {
		e, err := ParseText(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		err = testQueryables.Validate(e, c.src)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: want an invalid-filter error, got %v", c.src, err)
			continue
		}
		if se.Token != c.token {
			t.Errorf("%s: token %q, want %q (%v)", c.src, se.Token, c.token, err)
		}
	}
	if err := testQueryables.Validate(mustJSON(t, `{"op":"=","args":[{"property":"code"},1000]}`), ""); err != nil {
		t.Errorf("enum of integers: %v", err)
	}
}

func mustJSON(t *testing.T, s string) *Expr {
	t.Helper()
	e, err := ParseJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return e
}
