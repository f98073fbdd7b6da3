package server

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/svc-geodata/svc/access"
)

// surface is one API surface: a family of routes that answer under one
// policy. Each surface declares its policy once here; a route inherits it
// from the surface routeTable puts it on and overrides only what it says
// (exempt, budget, lax, stability). Access control, readInput, the problem
// renderer, the OpenAPI document and /docs read the policy of the matched
// route; a request no route matches gets the policy of pathSurface. No other
// code tells surfaces apart by a path (TestNoPathPolicy).
type surface struct {
	name string
	// access: the access layer (SPEC 5, 8) sees the surface's requests; a
	// request without X-API-Key gets X-Keyless-Remaining.
	access bool
	// keyed: X-API-Key is read; a malformed, unknown, expired or revoked
	// key is 401.
	keyed bool
	// counted: requests count against the keyless daily limit of the
	// client IP, or against the key's quota. A route may be exempt.
	counted bool
	// strict: a query parameter the route does not declare is refused, so
	// a misspelt option is never silently ignored (OGC API - Features Part 1
	// allows it). A route may be lax.
	strict bool
	// budget is the time a request may take (0: none); a route may set its
	// own or noBudget.
	budget time.Duration
	// refuse, when set, is the kind of every refused parameter (the OGC
	// API answers 400 to all: /req/core/query-param-invalid); otherwise
	// paramErr's rules of SPEC 10 apply.
	refuse error
	// openTopoData: problems also carry the detail as "error", where
	// opentopodata clients read it.
	openTopoData bool
	// admin: every route needs the admin token, checked before anything
	// else; the operations' OpenAPI security follows from it.
	admin bool
	// stability of the surface's operations, when a route declares none.
	stability string
}

// The surfaces. The data API, the OGC API and the opentopodata layer are
// under the same access rules, so a limit cannot be sidestepped through
// another shape of the same data.
var (
	dataAPI = &surface{name: "data API (/v1)", access: true, keyed: true, counted: true, strict: true, budget: defaultBudget}
	ogcAPI  = &surface{name: "OGC API - Features (/ogc)", access: true, keyed: true, counted: true, strict: true, budget: defaultBudget,
		refuse: errMalformed, stability: "beta"}
	openTopoDataAPI = &surface{name: "opentopodata (/opentopodata)", access: true, keyed: true, counted: true, strict: true, budget: defaultBudget,
		openTopoData: true, stability: "beta"}
	// The key and admin routes have their own credentials: they neither take
	// an API key nor count, but show the keyless budget left.
	keysAPI  = &surface{name: "self-service keys (/v1/keys)", access: true, strict: true, budget: defaultBudget}
	adminAPI = &surface{name: "admin (/v1/admin)", access: true, strict: true, budget: defaultBudget, admin: true}
	// Streaming files has no budget (large files on slow links; the
	// server's write timeout bounds them).
	staticSite = &surface{name: "static tiles and viewer"}
	infraSite  = &surface{name: "infrastructure"}
)

// noBudget is the budget of a route that has none on a surface that has.
const noBudget time.Duration = -1

// pathSurfaces is the one table that reads request paths: it gives the
// surface of a request no route matches (404, 405), so that an unknown
// path below /v1 is counted and an unknown path below /opentopodata is
// answered in its form. New checks that every route is on the surface its
// path has here. The first row that matches wins; a row ending in "/"
// matches the paths below it, any other row its path alone. Paths in no row
// are the static site's.
var pathSurfaces = []struct {
	path string
	sf   *surface
}{
	{"/v1/keys", keysAPI},
	{"/v1/keys/", keysAPI},
	{"/v1/admin/", adminAPI},
	{"/v1/", dataAPI},
	{"/ogc", ogcAPI},
	{"/ogc/", ogcAPI},
	{"/opentopodata/", openTopoDataAPI},
	{"/healthz", infraSite},
	{"/readyz", infraSite},
	{"/metrics", infraSite},
	{"/openapi.json", infraSite},
	{"/docs", infraSite},
	{"/problems/", infraSite},
}

// pathSurface is the surface of path by pathSurfaces.
func pathSurface(path string) *surface {
	for _, row := range pathSurfaces {
		if path == row.path || strings.HasSuffix(row.path, "/") && strings.HasPrefix(path, row.path) {
			return row.sf
		}
	}
	return staticSite
}

// on puts routes on sf: each inherits sf's policy unless it names another
// surface itself.
func on(sf *surface, routes ...route) []route {
	for i := range routes {
		rt := &routes[i]
		if rt.surface == nil {
			rt.surface = sf
		}
		rt.admin = rt.surface.admin
		if rt.stability == "" && !rt.hidden {
			rt.stability = rt.surface.stability
		}
	}
	return routes
}

// checkSurface refuses a route without a surface, or on another surface
// than the one its path has in pathSurfaces: an unknown path beside it
// would be answered under another policy than its own.
func checkSurface(rt *route) error {
	if rt.surface == nil {
		return fmt.Errorf("server: route %s %s is on no surface (routeTable puts each group of routes on one)", rt.method, rt.path)
	}
	if want := pathSurface(rt.path); want != rt.surface {
		return fmt.Errorf("server: route %s %s is on the %s surface, but pathSurfaces gives its path to the %s", rt.method, rt.path, rt.surface.name, want.name)
	}
	return nil
}

// surfaceOf is the surface whose policy applies to r: the matched route's,
// or for a request no route matches, its path's.
func (s *Server) surfaceOf(r *http.Request) *surface {
	if rt := s.matched(r); rt != nil {
		return rt.surface
	}
	return pathSurface(r.URL.Path)
}

// keyed tells whether rt reads X-API-Key.
func (rt *route) keyed() bool { return rt.surface.keyed }

// counted tells whether rt's requests count against the keyless limit or
// the key's quota.
func (rt *route) counted() bool { return rt.surface.counted && !rt.exempt }

// strict tells whether rt refuses a query parameter it does not declare.
func (rt *route) strict() bool { return rt.surface.strict && !rt.lax }

// budgetOf is rt's time budget; 0 means none.
func budgetOf(rt *route) time.Duration {
	switch {
	case rt.budget < 0:
		return 0
	case rt.budget > 0:
		return rt.budget
	}
	return rt.surface.budget
}

// trialStatusPrefix is the path of the trial status route, whose last
// segment is a plaintext key that must never reach a log.
const trialStatusPrefix = "/v1/keys/trial/"

// logPath is the request path as it may be logged: trial keys in the path
// are cut to their prefix, whether or not a route matches.
func logPath(r *http.Request) string {
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, trialStatusPrefix); ok && len(rest) > access.PrefixLen {
		return trialStatusPrefix + rest[:access.PrefixLen] + "..."
	}
	return p
}
