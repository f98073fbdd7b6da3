package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/geo"
)

// The request side of a route's declaration: readInput parses and checks
// every declared query and path parameter the way its param says (type,
// range, enum, pattern, default, required, a parse function for structured
// values), so that the OpenAPI document, the docs page and the parser read
// one value and cannot disagree. Handlers receive the result as *input and
// never look at the raw query.

// input holds a request's declared parameters, parsed, checked and
// defaulted. A name the route does not declare panics: that is a mistake in
// the handler, found by the contract test, not by a client.
type input struct {
	rt   *route
	vals []value // by index of rt.params
	// what merge needs to read the parameters again
	c     *compiled
	query map[string]string
	r     *http.Request
}

// value is one parsed parameter; all zero for an absent optional
// parameter without default.
type value struct {
	given bool    // sent by the client, not empty
	s     string  // the raw (unescaped) text, or the default's
	f     float64 // number, and integer as float
	i     int     // integer
	b     bool    // boolean
	v     any     // the result of param.parse
}

func (in *input) at(name string) *value {
	for i := range in.rt.params {
		if in.rt.params[i].name == name {
			return &in.vals[i]
		}
	}
	panic("server: parameter " + name + " is not declared by the route")
}

// has reports whether the request gave the parameter (a default does not
// count).
func (in *input) has(name string) bool { return in.at(name).given }

func (in *input) str(name string) string   { return in.at(name).s }
func (in *input) num(name string) float64  { return in.at(name).f }
func (in *input) integer(name string) int  { return in.at(name).i }
func (in *input) boolean(name string) bool { return in.at(name).b }

// parsedAs returns the value param.parse made, or T's zero value when the
// parameter is absent.
func parsedAs[T any](in *input, name string) T {
	v, _ := in.at(name).v.(T)
	return v
}

// paramFault is what a param.parse function returns for a value it cannot
// take: syntax (400 on the /v1 routes, SPEC 10 rule 2: malformed bbox,
// coords or cursor) or out of range (422). reason completes "Parameter
// <name> ...", e.g. "has 3 values, want 4".
type paramFault struct {
	reason     string
	outOfRange bool
}

func (f *paramFault) Error() string { return f.reason }

func syntaxFault(format string, args ...any) error {
	return &paramFault{reason: fmt.Sprintf(format, args...)}
}
func rangeFault(format string, args ...any) error {
	return &paramFault{reason: fmt.Sprintf(format, args...), outOfRange: true}
}

// compiled holds what readInput needs of a route beyond its declaration:
// the compiled patterns, made once in New.
type compiled struct {
	patterns []*regexp.Regexp // by param index; nil without pattern
	// none is the input of a route without parameters, shared by its
	// requests (it is never written): the cheap routes allocate nothing.
	none *input
}

func compileRoute(rt *route) compiled {
	c := compiled{patterns: make([]*regexp.Regexp, len(rt.params))}
	if len(rt.params) == 0 {
		c.none = &input{rt: rt}
	}
	for i, p := range rt.params {
		if p.pattern != "" {
			c.patterns[i] = regexp.MustCompile(p.pattern)
		}
	}
	return c
}

// readQuery splits a raw query into its decoded pairs, refusing what
// url.Values would guess at: bad percent-encoding (it drops the pair, so
// cursor=%%%% answered page one), ';' in a name, and a name given twice
// (it keeps the first). ';' in a value is kept: the profile's coords use it.
func readQuery(raw string) (map[string]string, error) {
	if raw == "" {
		return nil, nil
	}
	q := make(map[string]string, 4)
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || strings.Contains(k, ";") {
			return nil, report(errMalformed, "The query has a malformed parameter name %q (invalid percent-encoding or ';').", clip(k))
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, report(errMalformed, "Parameter %s has a malformed value %q (invalid percent-encoding).", clip(name), clip(v))
		}
		if _, dup := q[name]; dup {
			return nil, report(errMalformed, "Parameter %s is given more than once; give it once.", clip(name))
		}
		q[name] = val
	}
	return q, nil
}

// readInput checks r's query against rt and parses every declared query and
// path parameter. On a strict route a parameter it does not declare is
// refused, so a misspelt option is never silently ignored.
func readInput(rt *route, c *compiled, r *http.Request) (*input, error) {
	q, err := readQuery(r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	if rt.strict() {
		if err := unknownParams(rt, q); err != nil {
			return nil, err
		}
	}
	if c.none != nil {
		return c.none, nil
	}
	return readValues(rt, c, q, r)
}

// merge reads the parameters again with the members of a request body
// added to the query (opentopodata's POST takes them in either place); a
// name in both is refused.
func (in *input) merge(body map[string]string) (*input, error) {
	q := make(map[string]string, len(in.query)+len(body))
	for k, v := range in.query {
		q[k] = v
	}
	for k, v := range body {
		if _, dup := q[k]; dup {
			return nil, report(errMalformed, "Parameter %s is given both in the query and in the body.", clip(k))
		}
		q[k] = v
	}
	if err := unknownParams(in.rt, q); err != nil {
		return nil, err
	}
	return readValues(in.rt, in.c, q, in.r)
}

// values returns the query parameters as the client sent them, for links
// that repeat the request (OGC next and alternate links).
func (in *input) values() url.Values {
	q := make(url.Values, len(in.query))
	for k, v := range in.query {
		q[k] = []string{v}
	}
	return q
}

func readValues(rt *route, c *compiled, q map[string]string, r *http.Request) (*input, error) {
	in := &input{rt: rt, vals: make([]value, len(rt.params)), c: c, query: q, r: r}
	for i := range rt.params {
		p := &rt.params[i]
		var raw string
		var given bool
		switch p.in {
		case "query":
			raw, given = q[p.name]
		case "path":
			raw = r.PathValue(p.name)
			given = true
		default: // headers are read by the handler: they carry credentials
			continue
		}
		if err := readParam(rt, p, c.patterns[i], raw, given, &in.vals[i]); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func unknownParams(rt *route, q map[string]string) error {
	for name := range q {
		if slices.ContainsFunc(rt.params, func(p param) bool { return p.in == "query" && p.name == name }) {
			continue
		}
		var known []string
		for _, p := range rt.params {
			if p.in == "query" {
				known = append(known, p.name)
			}
		}
		if len(known) == 0 {
			return report(errMalformed, "Parameter %s is not known: this operation takes no query parameters.", clip(name))
		}
		slices.Sort(known)
		return report(errMalformed, "Parameter %s is not known; this operation takes %s.", clip(name), strings.Join(known, ", "))
	}
	return nil
}

// readParam parses one parameter into v. An empty value counts as absent
// for strings without a pattern (cursor= is the first page) and is checked
// like any other value otherwise (limit= is not a number, gmlid= does not
// match its pattern).
func readParam(rt *route, p *param, re *regexp.Regexp, raw string, given bool, v *value) error {
	if raw == "" && (!given || p.typ == "string" && p.pattern == "") {
		if p.required {
			return paramErr(rt, p, false, "is required: %s.", p.desc)
		}
		if p.def != nil {
			setDefault(p, v)
		}
		return nil
	}
	v.given, v.s = true, raw
	if re != nil && !re.MatchString(raw) {
		return paramErr(rt, p, false, "must match %s, not %q.", p.pattern, clip(raw))
	}
	switch p.typ {
	case "number":
		f, ok := geo.ParseDecimal(raw)
		if !ok {
			return paramErr(rt, p, false, "must be a decimal number%s, not %q.", rangeText(p, "%g"), clip(raw))
		}
		if clamped(p, f) {
			f, v.s = *p.max, strconv.FormatFloat(*p.max, 'g', -1, 64)
		}
		if !inRange(p, f) {
			return paramErr(rt, p, true, "must be a number%s, not %q.", rangeText(p, "%g"), clip(raw))
		}
		v.f = f
	case "integer":
		n, ok := decimalInt(raw)
		if !ok && p.clamp && p.max != nil && manyDigits(raw) {
			n, ok = int(*p.max)+1, true // above any max: clamped below
		}
		if !ok {
			return paramErr(rt, p, false, "must be an integer%s, not %q.", rangeText(p, "%.0f"), clip(raw))
		}
		if clamped(p, float64(n)) {
			n, v.s = int(*p.max), strconv.Itoa(int(*p.max))
		}
		if !inRange(p, float64(n)) {
			return paramErr(rt, p, true, "must be an integer%s, not %q.", rangeText(p, "%.0f"), clip(raw))
		}
		v.i, v.f = n, float64(n)
	case "boolean":
		switch strings.ToLower(raw) {
		case "true", "1":
			v.b = true
		case "false", "0":
		default:
			return paramErr(rt, p, false, "must be true or false, not %q.", clip(raw))
		}
	default:
		if p.enum != nil {
			i := slices.IndexFunc(p.enum, func(e string) bool { return e == raw || p.fold && strings.EqualFold(e, raw) })
			if i < 0 {
				return paramErr(rt, p, true, "must be one of %s, not %q.", strings.Join(p.enum, ", "), clip(raw))
			}
			v.s = p.enum[i]
		}
	}
	if p.parse != nil {
		x, err := p.parse(v.s)
		if err != nil {
			pf, ok := err.(*paramFault)
			if !ok {
				pf = &paramFault{reason: "is not valid"}
			}
			return paramErr(rt, p, pf.outOfRange, "%s", pf.reason)
		}
		v.v = x
	}
	return nil
}

func setDefault(p *param, v *value) {
	switch d := p.def.(type) {
	case string:
		v.s = d
	case int:
		v.i, v.f, v.s = d, float64(d), strconv.Itoa(d)
	case float64:
		v.f, v.s = d, strconv.FormatFloat(d, 'g', -1, 64)
	case bool:
		v.b, v.s = d, strconv.FormatBool(d)
	}
	if p.parse != nil {
		v.v, _ = p.parse(v.s)
	}
}

// clamped tells whether f is above the max of a parameter that clamps.
func clamped(p *param, f float64) bool { return p.clamp && p.max != nil && f > *p.max }

// manyDigits tells a positive integer too large for decimalInt (more than
// 18 significant digits), which a clamping parameter takes as its max.
func manyDigits(s string) bool {
	return strings.TrimLeft(s, "0123456789") == "" && len(strings.TrimLeft(s, "0")) > 18
}

func inRange(p *param, f float64) bool {
	return (p.min == nil || f >= *p.min) && (p.max == nil || f <= *p.max)
}

func rangeText(p *param, verb string) string {
	switch {
	case p.min != nil && p.max != nil:
		return fmt.Sprintf(" from "+verb+" to "+verb, *p.min, *p.max)
	case p.min != nil:
		return fmt.Sprintf(" of at least "+verb, *p.min)
	case p.max != nil:
		return fmt.Sprintf(" of at most "+verb, *p.max)
	}
	return ""
}

// paramErr reports a parameter the declaration does not admit. Its kind
// follows from where the parameter is and what is wrong with it:
//   - a path parameter names a resource: one that cannot exist (out of
//     range) is 404, a malformed one 400;
//   - a surface may name the kind of every refused query parameter (the
//     OGC API answers 400 to all: OGC API - Features Part 1,
//     /req/core/query-param-invalid);
//   - elsewhere a value outside the declared range or enum is 422, and a
//     malformed one is the param's malformed kind: 400 for structured
//     strings (bbox, coords, cursor: SPEC 10 rule 2), 422 for numbers and
//     booleans on the /v1 data routes (SPEC 4.5: a non-numeric lat is 422
//     like an out-of-range one), 400 where the declaration says so.
func paramErr(rt *route, p *param, outOfRange bool, format string, args ...any) error {
	kind := errInvalid
	switch {
	case p.refuse != nil:
		kind = p.refuse
	case p.in == "path" && outOfRange:
		kind = errNotFound
	case p.in == "path":
		kind = errMalformed
	case rt.surface.refuse != nil:
		kind = rt.surface.refuse
	case outOfRange:
	case p.malformed != nil:
		kind = p.malformed
	case p.typ == "string" && p.enum == nil:
		kind = errMalformed
	}
	return report(kind, "Parameter %s %s", p.name, fmt.Sprintf(format, args...))
}

// exactMembers refuses a JSON object body with a member that is not, to
// the letter, a property of the declared schema: encoding/json matches
// struct fields without regard to case and would fill customer_name from
// "Customer_Name". A body that is no object is left to the decoder.
func (s *Server) exactMembers(body []byte, schema string) error {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return nil
	}
	sc, _ := s.schemas[schema].(obj)
	props, _ := sc["properties"].(obj)
	for name := range members {
		if _, ok := props[name]; !ok {
			names := slices.Sorted(maps.Keys(props))
			return report(errInvalid, "Body has an unknown member %q; the members are %s (names are case-sensitive).",
				clip(name), strings.Join(names, ", "))
		}
	}
	return nil
}
