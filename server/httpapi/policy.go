package httpapi

import "time"

// Surface is one API surface: a family of routes that answer under one
// policy. Each surface declares its policy once here; a route inherits it
// from the surface routeTable puts it on and overrides only what it says
// (exempt, budget, lax, stability). Access control, ReadInput, the problem
// renderer, the OpenAPI document and /docs read the policy of the matched
// route; a request no route matches gets the policy of pathSurface. No other
// code tells surfaces apart by a path (TestNoPathPolicy).
type Surface struct {
	Name string
	// Access: the access layer (SPEC 5, 8) sees the surface's requests; a
	// request without X-API-Key gets X-Keyless-Remaining.
	Access bool
	// Keyed: X-API-Key is read; a malformed, unknown, expired or revoked
	// key is 401.
	Keyed bool
	// Counted: requests count against the keyless daily limit of the
	// client IP, or against the key's quota. A route may be exempt.
	Counted bool
	// Strict: a query parameter the route does not declare is refused, so
	// a misspelt option is never silently ignored (OGC API - Features Part 1
	// allows it). A route may be lax.
	Strict bool
	// Budget is the time a request may take (0: none); a route may set its
	// own or noBudget.
	Budget time.Duration
	// Refuse, when set, is the kind of every refused parameter (the OGC
	// API answers 400 to all: /req/core/query-param-invalid); otherwise
	// paramErr's rules of SPEC 10 apply.
	Refuse error
	// OpenTopoData: problems also carry the detail as "error", where
	// opentopodata clients read it.
	OpenTopoData bool
	// Admin: every route needs the admin token, checked before anything
	// else; the operations' OpenAPI security follows from it.
	Admin bool
	// Stability of the surface's operations, when a route declares none.
	Stability string
}

// NoBudget is the budget of a route that has none on a surface that has.
const NoBudget time.Duration = -1

// On puts routes on sf: each inherits sf's policy unless it names another
// surface itself.
func On(sf *Surface, routes ...Route) []Route {
	for i := range routes {
		rt := &routes[i]
		if rt.Surface == nil {
			rt.Surface = sf
		}
		rt.Admin = rt.Surface.Admin
		if rt.Stability == "" && !rt.Hidden {
			rt.Stability = rt.Surface.Stability
		}
	}
	return routes
}

// Keyed tells whether rt reads X-API-Key.
func (rt *Route) Keyed() bool { return rt.Surface.Keyed }

// Counted tells whether rt's requests count against the keyless limit or
// the key's quota.
func (rt *Route) Counted() bool { return rt.Surface.Counted && !rt.Exempt }

// strict tells whether rt refuses a query parameter it does not declare.
func (rt *Route) strict() bool { return rt.Surface.Strict && !rt.Lax }

// BudgetOf is rt's time budget; 0 means none.
func BudgetOf(rt *Route) time.Duration {
	switch {
	case rt.Budget < 0:
		return 0
	case rt.Budget > 0:
		return rt.Budget
	}
	return rt.Surface.Budget
}
