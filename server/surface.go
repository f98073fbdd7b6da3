package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/server/httpapi"
)

// The surfaces. The data API, the OGC API and the opentopodata layer are
// under the same access rules, so a limit cannot be sidestepped through
// another shape of the same data.
var (
	dataAPI = &httpapi.Surface{Name: "data API (/v1)", Access: true, Keyed: true, Counted: true, Strict: true, Budget: httpapi.DefaultBudget}
	ogcAPI  = &httpapi.Surface{Name: "OGC API - Features (/ogc)", Access: true, Keyed: true, Counted: true, Strict: true, Budget: httpapi.DefaultBudget,
		Refuse: httpapi.ErrMalformed, Stability: "beta"}
	openTopoDataAPI = &httpapi.Surface{Name: "opentopodata (/opentopodata)", Access: true, Keyed: true, Counted: true, Strict: true, Budget: httpapi.DefaultBudget,
		OpenTopoData: true, Stability: "beta"}
	// The key and admin routes have their own credentials: they neither take
	// an API key nor count, but show the keyless budget left.
	keysAPI  = &httpapi.Surface{Name: "self-service keys (/v1/keys)", Access: true, Strict: true, Budget: httpapi.DefaultBudget}
	adminAPI = &httpapi.Surface{Name: "admin (/v1/admin)", Access: true, Strict: true, Budget: httpapi.DefaultBudget, Admin: true}
	// Streaming files has no budget (large files on slow links; the
	// server's write timeout bounds them).
	staticSite = &httpapi.Surface{Name: "static tiles and viewer"}
	infraSite  = &httpapi.Surface{Name: "infrastructure"}
)

// pathSurfaces is the one table that reads request paths: it gives the
// surface of a request no route matches (404, 405), so that an unknown
// path below /v1 is counted and an unknown path below /opentopodata is
// answered in its form. New checks that every route is on the surface its
// path has here. The first row that matches wins; a row ending in "/"
// matches the paths below it, any other row its path alone. Paths in no row
// are the static site's.
var pathSurfaces = []struct {
	path string
	sf   *httpapi.Surface
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
func pathSurface(path string) *httpapi.Surface {
	for _, row := range pathSurfaces {
		if path == row.path || strings.HasSuffix(row.path, "/") && strings.HasPrefix(path, row.path) {
			return row.sf
		}
	}
	return staticSite
}

// checkSurface refuses a route without a surface, or on another surface
// than the one its path has in pathSurfaces: an unknown path beside it
// would be answered under another policy than its own.
func checkSurface(rt *httpapi.Route) error {
	if rt.Surface == nil {
		return fmt.Errorf("server: route %s %s is on no surface (routeTable puts each group of routes on one)", rt.Method, rt.Path)
	}
	if want := pathSurface(rt.Path); want != rt.Surface {
		return fmt.Errorf("server: route %s %s is on the %s surface, but pathSurfaces gives its path to the %s", rt.Method, rt.Path, rt.Surface.Name, want.Name)
	}
	return nil
}

// surfaceOf is the surface whose policy applies to r: the matched route's,
// or for a request no route matches, its path's.
func (s *Server) surfaceOf(r *http.Request) *httpapi.Surface {
	if rt := s.matched(r); rt != nil {
		return rt.Surface
	}
	return pathSurface(r.URL.Path)
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
