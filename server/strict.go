package server

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// checkQuery applies the rules every declared route shares before its
// handler parses anything: the query must be well formed (valid
// percent-encoding, '&'-separated, no ';' in names: values may hold it, as
// the profile's coords do), name each parameter at most once,
// and, on the /v1 data routes, name only parameters the route declares.
// url.Values would silently drop a pair it cannot decode (so cursor=%%%%
// answered page one) and keep only the first of two values.
func checkQuery(rt *route, r *http.Request) error {
	raw := r.URL.RawQuery
	if raw == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || strings.Contains(k, ";") {
			return badRequest("The query has a malformed parameter name %q (invalid percent-encoding or ';').", clip(k))
		}
		if _, err := url.QueryUnescape(v); err != nil {
			return badRequest("Parameter %s has a malformed value %q (invalid percent-encoding).", clip(name), clip(v))
		}
		if seen[name] {
			return badRequest("Parameter %s is given more than once; give it once.", clip(name))
		}
		seen[name] = true
	}
	// url.Values drops a pair holding ';' (Go's rule against the old
	// separator); escaped, the value reaches every handler intact.
	if strings.Contains(raw, ";") {
		r.URL.RawQuery = strings.ReplaceAll(raw, ";", "%3B")
	}
	if !apiPath(rt.path) || strings.Contains(rt.path, "...}") {
		return nil
	}
	var known []string
	for _, p := range rt.params {
		if p.in == "query" {
			known = append(known, p.name)
		}
	}
	for name := range seen {
		if !slices.Contains(known, name) {
			if len(known) == 0 {
				return badRequest("Parameter %s is not known: this operation takes no query parameters.", clip(name))
			}
			slices.Sort(known)
			return badRequest("Parameter %s is not known; this operation takes %s.", clip(name), strings.Join(known, ", "))
		}
	}
	return nil
}

// apiPath tells the data API paths: /v1, the OGC API and the opentopodata
// layer. They refuse unknown query parameters (OGC Part 1 allows it), have
// a time budget, and are under the access rules of SPEC 5 and 8, so a limit
// cannot be sidestepped through another shape of the same data.
func apiPath(p string) bool {
	return strings.HasPrefix(p, "/v1/") || p == "/ogc" || strings.HasPrefix(p, "/ogc/") || strings.HasPrefix(p, "/opentopodata/")
}
