package static

import (
	"net/http"

	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/viewer"
)

// ViewerRoutes serve the built-in map and globe (package viewer). The page
// lives at /viewer/ so that its files and the API resolve relative to it;
// / and /viewer redirect there with a relative Location, which keeps working
// behind a reverse proxy that adds a path prefix.
func ViewerRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	files := viewer.Handler("/viewer/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Fail(w, r, httpapi.Report(httpapi.ErrNotFound, "The viewer has no file %q.", r.URL.Path))
	}))
	redirect := func(to string) httpapi.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
			w.Header().Set("Location", to)
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusFound)
			return nil
		}
	}
	return []httpapi.Route{
		{Method: "GET", Path: "/viewer", OpID: "getViewer", Tag: "Service", Stability: "beta", Since: "0.2.0", Exempt: true,
			Summary: "Built-in viewer: map and 3D globe of the published data (HTML; redirects to /viewer/)",
			Desc: "A MapLibre GL JS map (hillshade tiles when served, dataset extents, building footprints; click for building details " +
				"with roof facets, elevation and canopy; a profile tool) and a CesiumJS globe (quantized-mesh terrain when served, " +
				"building, terrain-mesh, vegetation and OSM cover 3D Tiles, picking, GLB download of the view). Every file is embedded " +
				"in the binary and every request goes to this server: it works without network. `/` redirects here too. " +
				"The viewer draws from uncounted tile routes (hillshade, footprint and 3D tiles), so panning does not use the keyless " +
				"budget; the requests a click makes (roof, elevation, canopy, profile) and the dataset list count like any other client's. " +
				"Past the limit the viewer shows the problem's detail and a button that mints a trial key (POST /v1/keys/trial), which it " +
				"then sends in X-API-Key on counted requests. The view is kept in the URL hash `#zoom/lat/lon` (read on load and on " +
				"change, written as the map moves); without one the viewer opens on the last view in this browser, else on everything " +
				"published.",
			Responses: []httpapi.Response{{Status: 302, Desc: "Redirect to /viewer/ (relative Location)"}},
			Handle:    redirect("viewer/")},
		{Method: "GET", Path: "/{$}", Hidden: true, Exempt: true, Handle: redirect("viewer/")},
		{Method: "GET", Path: "/viewer/{path...}", Hidden: true, Exempt: true,
			Handle: func(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
				files.ServeHTTP(w, r)
				return nil
			}},
	}
}
