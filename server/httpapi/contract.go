package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/geo"
)

// The request side of a route's declaration: ReadInput parses and checks
// every declared query and path parameter the way its param says (type,
// range, enum, pattern, default, required, a parse function for structured
// values), so that the OpenAPI document, the docs page and the parser read
// one value and cannot disagree. Handlers receive the result as *Input and
// never look at the raw query.

// Input holds a request's declared parameters, parsed, checked and
// defaulted. A name the route does not declare panics: that is a mistake in
// the handler, found by the contract test, not by a client.
type Input struct {
	rt   *Route
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
	v     any     // the result of Param.Parse
}

func (in *Input) at(name string) *value {
	for i := range in.rt.Params {
		if in.rt.Params[i].Name == name {
			return &in.vals[i]
		}
	}
	panic("server: parameter " + name + " is not declared by the route")
}

// Has reports whether the request gave the parameter (a default does not
// count).
func (in *Input) Has(name string) bool { return in.at(name).given }

func (in *Input) Str(name string) string   { return in.at(name).s }
func (in *Input) Num(name string) float64  { return in.at(name).f }
func (in *Input) Integer(name string) int  { return in.at(name).i }
func (in *Input) Boolean(name string) bool { return in.at(name).b }

// ParsedAs returns the value Param.Parse made, or T's zero value when the
// parameter is absent.
func ParsedAs[T any](in *Input, name string) T {
	v, _ := in.at(name).v.(T)
	return v
}

// paramFault is what a Param.Parse function returns for a value it cannot
// take: syntax (400 on the /v1 routes, SPEC 10 rule 2: malformed bbox,
// coords or cursor) or out of range (422). reason completes "Parameter
// <name> ...", e.g. "has 3 values, want 4".
type paramFault struct {
	reason     string
	outOfRange bool
}

func (f *paramFault) Error() string { return f.reason }

func SyntaxFault(format string, args ...any) error {
	return &paramFault{reason: fmt.Sprintf(format, args...)}
}
func RangeFault(format string, args ...any) error {
	return &paramFault{reason: fmt.Sprintf(format, args...), outOfRange: true}
}

// compiled holds what ReadInput needs of a route beyond its declaration:
// the compiled patterns, made once in New.
type compiled struct {
	patterns []*regexp.Regexp // by param index; nil without pattern
	// none is the input of a route without parameters, shared by its
	// requests (it is never written): the cheap routes allocate nothing.
	none *Input
}

func CompileRoute(rt *Route) compiled {
	c := compiled{patterns: make([]*regexp.Regexp, len(rt.Params))}
	if len(rt.Params) == 0 {
		c.none = &Input{rt: rt}
	}
	for i, p := range rt.Params {
		if p.Pattern != "" {
			c.patterns[i] = regexp.MustCompile(p.Pattern)
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
			return nil, Report(ErrMalformed, "The query has a malformed parameter name %q (invalid percent-encoding or ';').", Clip(k))
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, Report(ErrMalformed, "Parameter %s has a malformed value %q (invalid percent-encoding).", Clip(name), Clip(v))
		}
		if _, dup := q[name]; dup {
			return nil, Report(ErrMalformed, "Parameter %s is given more than once; give it once.", Clip(name))
		}
		q[name] = val
	}
	return q, nil
}

// ReadInput checks r's query against rt and parses every declared query and
// path parameter. On a strict route a parameter it does not declare is
// refused, so a misspelt option is never silently ignored.
func ReadInput(rt *Route, c *compiled, r *http.Request) (*Input, error) {
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

// Merge reads the parameters again with the members of a request body
// added to the query (opentopodata's POST takes them in either place); a
// name in both is refused.
func (in *Input) Merge(body map[string]string) (*Input, error) {
	q := make(map[string]string, len(in.query)+len(body))
	for k, v := range in.query {
		q[k] = v
	}
	for k, v := range body {
		if _, dup := q[k]; dup {
			return nil, Report(ErrMalformed, "Parameter %s is given both in the query and in the body.", Clip(k))
		}
		q[k] = v
	}
	if err := unknownParams(in.rt, q); err != nil {
		return nil, err
	}
	return readValues(in.rt, in.c, q, in.r)
}

// Values returns the query parameters as the client sent them, for links
// that repeat the request (OGC next and alternate links).
func (in *Input) Values() url.Values {
	q := make(url.Values, len(in.query))
	for k, v := range in.query {
		q[k] = []string{v}
	}
	return q
}

func readValues(rt *Route, c *compiled, q map[string]string, r *http.Request) (*Input, error) {
	in := &Input{rt: rt, vals: make([]value, len(rt.Params)), c: c, query: q, r: r}
	for i := range rt.Params {
		p := &rt.Params[i]
		var raw string
		var given bool
		switch p.In {
		case "query":
			raw, given = q[p.Name]
		case "path":
			raw = r.PathValue(p.Name)
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

func unknownParams(rt *Route, q map[string]string) error {
	for name := range q {
		if slices.ContainsFunc(rt.Params, func(p Param) bool { return p.In == "query" && p.Name == name }) {
			continue
		}
		var known []string
		for _, p := range rt.Params {
			if p.In == "query" {
				known = append(known, p.Name)
			}
		}
		if len(known) == 0 {
			return Report(ErrMalformed, "Parameter %s is not known: this operation takes no query parameters.", Clip(name))
		}
		slices.Sort(known)
		return Report(ErrMalformed, "Parameter %s is not known; this operation takes %s.", Clip(name), strings.Join(known, ", "))
	}
	return nil
}

// readParam parses one parameter into v. An empty value counts as absent
// for strings without a pattern (cursor= is the first page) and is checked
// like any other value otherwise (limit= is not a number, gmlid= does not
// match its pattern).
func readParam(rt *Route, p *Param, re *regexp.Regexp, raw string, given bool, v *value) error {
	if raw == "" && (!given || p.Type == "string" && p.Pattern == "") {
		if p.Required {
			return paramErr(rt, p, false, "is required: %s.", p.Desc)
		}
		if p.Default != nil {
			setDefault(p, v)
		}
		return nil
	}
	v.given, v.s = true, raw
	if re != nil && !re.MatchString(raw) {
		return paramErr(rt, p, false, "must match %s, not %q.", p.Pattern, Clip(raw))
	}
	switch p.Type {
	case "number":
		f, ok := geo.ParseDecimal(raw)
		if !ok {
			return paramErr(rt, p, false, "must be a decimal number%s, not %q.", RangeText(p, "%g"), Clip(raw))
		}
		if clamped(p, f) {
			f, v.s = *p.Max, strconv.FormatFloat(*p.Max, 'g', -1, 64)
		}
		if !inRange(p, f) {
			return paramErr(rt, p, true, "must be a number%s, not %q.", RangeText(p, "%g"), Clip(raw))
		}
		v.f = f
	case "integer":
		n, ok := DecimalInt(raw)
		if !ok && p.Clamp && p.Max != nil && manyDigits(raw) {
			n, ok = int(*p.Max)+1, true // above any max: clamped below
		}
		if !ok {
			return paramErr(rt, p, false, "must be an integer%s, not %q.", RangeText(p, "%.0f"), Clip(raw))
		}
		if clamped(p, float64(n)) {
			n, v.s = int(*p.Max), strconv.Itoa(int(*p.Max))
		}
		if !inRange(p, float64(n)) {
			return paramErr(rt, p, true, "must be an integer%s, not %q.", RangeText(p, "%.0f"), Clip(raw))
		}
		v.i, v.f = n, float64(n)
	case "boolean":
		switch strings.ToLower(raw) {
		case "true", "1":
			v.b = true
		case "false", "0":
		default:
			return paramErr(rt, p, false, "must be true or false, not %q.", Clip(raw))
		}
	default:
		if p.Enum != nil {
			i := slices.IndexFunc(p.Enum, func(e string) bool { return e == raw || p.Fold && strings.EqualFold(e, raw) })
			if i < 0 {
				return paramErr(rt, p, true, "must be one of %s, not %q.", strings.Join(p.Enum, ", "), Clip(raw))
			}
			v.s = p.Enum[i]
		}
	}
	if p.Parse != nil {
		x, err := p.Parse(v.s)
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

func setDefault(p *Param, v *value) {
	switch d := p.Default.(type) {
	case string:
		v.s = d
	case int:
		v.i, v.f, v.s = d, float64(d), strconv.Itoa(d)
	case float64:
		v.f, v.s = d, strconv.FormatFloat(d, 'g', -1, 64)
	case bool:
		v.b, v.s = d, strconv.FormatBool(d)
	}
	if p.Parse != nil {
		v.v, _ = p.Parse(v.s)
	}
}

// clamped tells whether f is above the max of a parameter that clamps.
func clamped(p *Param, f float64) bool { return p.Clamp && p.Max != nil && f > *p.Max }

// manyDigits tells a positive integer too large for decimalInt (more than
// 18 significant digits), which a clamping parameter takes as its max.
func manyDigits(s string) bool {
	return strings.TrimLeft(s, "0123456789") == "" && len(strings.TrimLeft(s, "0")) > 18
}

func inRange(p *Param, f float64) bool {
	return (p.Min == nil || f >= *p.Min) && (p.Max == nil || f <= *p.Max)
}

func RangeText(p *Param, verb string) string {
	switch {
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf(" from "+verb+" to "+verb, *p.Min, *p.Max)
	case p.Min != nil:
		return fmt.Sprintf(" of at least "+verb, *p.Min)
	case p.Max != nil:
		return fmt.Sprintf(" of at most "+verb, *p.Max)
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
func paramErr(rt *Route, p *Param, outOfRange bool, format string, args ...any) error {
	kind := ErrInvalid
	switch {
	case p.Refuse != nil:
		kind = p.Refuse
	case p.In == "path" && outOfRange:
		kind = ErrNotFound
	case p.In == "path":
		kind = ErrMalformed
	case rt.Surface.Refuse != nil:
		kind = rt.Surface.Refuse
	case outOfRange:
	case p.Malformed != nil:
		kind = p.Malformed
	case p.Type == "string" && p.Enum == nil:
		kind = ErrMalformed
	}
	return Report(kind, "Parameter %s %s", p.Name, fmt.Sprintf(format, args...))
}

// Clip shortens echoed input so a problem body never grows with a request.
func Clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// DecimalInt parses an integer written as digits with an optional leading
// '-': no '+', no spaces, no underscores, at most 18 digits.
func DecimalInt(s string) (int, bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 18 || strings.TrimLeft(d, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}
