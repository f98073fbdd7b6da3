// Package server is the HTTP face of svc: it composes the API surfaces
// (packages dataapi, terrainapi, ogcapi, opentopo, keysadmin, static, each
// declared on the framework of package httpapi) with the middleware (CORS,
// request ids, access, logging, metrics, recovery), puts each on its
// policy (surface.go), and serves the infrastructure routes (health,
// metrics, the OpenAPI documents, /docs, the problem pages).
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/qmesh"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/server/dataapi"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/keysadmin"
	"github.com/svc-geodata/svc/server/metrics"
	"github.com/svc-geodata/svc/server/ogcapi"
	"github.com/svc-geodata/svc/server/opentopo"
	"github.com/svc-geodata/svc/server/static"
	"github.com/svc-geodata/svc/server/terrainapi"
	"github.com/svc-geodata/svc/tilecache"
)

// APIVersion is the version of the interface this build implements
// (SPEC 9: info.version of the OpenAPI document).
const APIVersion = "0.1.0"

// Config holds the server's settings; cmd fills it from flags and
// environment.
type Config struct {
	BaseURL    string // public address of the API, no trailing slash
	TilesURL   string // {tiles_url}; default BaseURL + "/tiles"
	ErrorsBase string // {errors_base}; default BaseURL + "/problems"
	DocsURL    string // {docs_url}; default BaseURL + "/docs"
	KeyURL     string // {key_url}; default DocsURL + "#trial-keys"
	AdminToken string // secret for X-Svc-Admin-Token; "" disables admin routes
	Version    string // the API version published as info.version
	// TrustedProxies are the peers whose rightmost X-Forwarded-For entry is
	// taken as the client IP; none by default.
	TrustedProxies []netip.Prefix
	// TrialMintingOff answers POST /v1/keys/trial with 503.
	TrialMintingOff bool
	// HeightModel lifts the quantized-mesh terrain to ellipsoidal heights
	// (nil: the embedded default, GCG2016); use the one the tilesets were built with.
	HeightModel *geoid.Model
	// QMeshCacheBytes bounds the quantized-mesh tile cache (default 64 MiB).
	QMeshCacheBytes int64
	// VectorTileCacheBytes bounds the building vector tile cache (0: 64
	// MiB); negative caches nothing, so every request cuts its tile (the
	// cold workload of make bench-peers).
	VectorTileCacheBytes int64
	// BatchMaxPoints caps the points of one batch elevation request
	// (default 10,000).
	BatchMaxPoints int
	// PublicSourceURL shows the packs' source_url in the manifest.json the
	// tile host serves (off: it may name a local path or an internal mirror).
	PublicSourceURL bool
}

// Deps are the components the server uses.
type Deps struct {
	Catalog *catalog.Catalog
	Logger  *slog.Logger
	// Reload rescans the data directory (POST /v1/admin/datasets, SIGHUP).
	Reload func() (*catalog.View, error)
	Now    func() time.Time
	// Access counts and limits /v1 traffic and manages keys; nil switches
	// the limits off and the key routes answer 503.
	Access *access.Service
	// Bundles are the PMTiles archives of `svc serve --pmtiles`: a tile
	// route answers from its layer's archive when no pack holds its
	// source data (offline bundles). Nil holds none.
	Bundles *maplayer.Bundles
	// Climate is the irradiance file of `svc serve --irradiance` for the
	// solar route; nil: none (the route uses DefaultClimate).
	Climate *roofsolar.Climate
	// DefaultClimate is the built-in climate of Germany the solar route
	// uses without Climate; nil with Climate nil too: the route answers 503.
	DefaultClimate *roofsolar.DefaultClimates
}

// Server answers every route. Create it with New.
type Server struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	mux     *http.ServeMux
	routes  []httpapi.Route
	metrics *metrics.Requests
	openapi []byte
	// ogcOpenAPI describes the /ogc operations alone (GET /ogc/api).
	ogcOpenAPI []byte
	docs       http.Handler // the /docs page
	handler    http.Handler
	// byPattern maps each ServeMux pattern to its route (its policy).
	byPattern map[string]*httpapi.Route
	// exact maps method and path of the routes without wildcards to their
	// route: the cheap routes skip a second ServeMux match.
	exact     map[methodPath]*httpapi.Route
	qmesh     *qmesh.Tiler
	hillshade *tilecache.Cache // rendered hillshade PNGs
	demTiles  *tilecache.Cache // terrain-RGB and Terrarium PNGs
	// footprints caches footprint tiles: uncounted, so a crowd panning
	// over one town must not cost a search per request.
	footprints *tilecache.Cache
	// vectorTiles caches building vector tiles, for the same reason.
	vectorTiles *tilecache.Cache
	// contours caches contour vector tiles, for the same reason.
	contours *tilecache.Cache
	// ogcTiles caches the OGC dataset's vector tiles (building and contour
	// tiles concatenated) with their gzip encoding.
	ogcTiles *tilecache.Cache
	schemas  obj       // component schemas, for the exact members of request bodies
	damage   damageLog // damaged files met while answering or found by verify
	verify   verifier
}

// New builds the server and its route table.
func New(cfg Config, deps Deps) (*Server, error) {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.TilesURL == "" {
		cfg.TilesURL = cfg.BaseURL + "/tiles"
	}
	cfg.TilesURL = strings.TrimRight(cfg.TilesURL, "/")
	if cfg.ErrorsBase == "" {
		cfg.ErrorsBase = cfg.BaseURL + "/problems"
	}
	cfg.ErrorsBase = strings.TrimRight(cfg.ErrorsBase, "/")
	if cfg.DocsURL == "" {
		cfg.DocsURL = cfg.BaseURL + "/docs"
	}
	if cfg.KeyURL == "" {
		cfg.KeyURL = cfg.DocsURL + "#trial-keys"
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	s := &Server{cfg: cfg, deps: deps, log: deps.Logger, mux: http.NewServeMux(), metrics: metrics.New(),
		qmesh: qmesh.New(cfg.HeightModel, cfg.QMeshCacheBytes), hillshade: tilecache.New(64 << 20), demTiles: tilecache.New(64 << 20),
		footprints: tilecache.New(64 << 20), vectorTiles: tilecache.New(cfg.VectorTileCacheBytes), contours: tilecache.New(64 << 20),
		ogcTiles: tilecache.New(64 << 20)}
	comps, err := components()
	if err != nil {
		return nil, err
	}
	s.schemas, _ = comps["schemas"].(obj)
	s.routes = s.routeTable()
	for _, rt := range s.routes {
		if !rt.Hidden && (rt.Stability != "stable" && rt.Stability != "beta" || rt.Since == "") {
			return nil, fmt.Errorf("server: route %s %s declares no stability or since", rt.Method, rt.Path)
		}
		if err := checkSurface(&rt); err != nil {
			return nil, err
		}
		for _, p := range rt.Params {
			if p.Clamp && (p.Max == nil || p.Type != "integer" && p.Type != "number") {
				return nil, fmt.Errorf("server: route %s %s: parameter %s clamps without a numeric maximum", rt.Method, rt.Path, p.Name)
			}
		}
	}
	s.byPattern = make(map[string]*httpapi.Route, len(s.routes))
	s.exact = map[methodPath]*httpapi.Route{}
	for i, rt := range s.routes {
		s.routes[i].Pattern = rt.Method + " " + rt.Path
		s.byPattern[s.routes[i].Pattern] = &s.routes[i]
		if !strings.Contains(rt.Path, "{") && !strings.HasSuffix(rt.Path, "/") {
			s.exact[methodPath{rt.Method, rt.Path}] = &s.routes[i]
			if rt.Method == "GET" {
				s.exact[methodPath{"HEAD", rt.Path}] = &s.routes[i]
			}
		}
	}
	for _, rt := range s.routes {
		s.mux.Handle(rt.Method+" "+rt.Path, s.adapt(rt))
	}
	if err := s.describe(comps); err != nil {
		return nil, err
	}
	s.handler = s.middleware(s.accessControl(http.HandlerFunc(s.dispatch)))
	return s, nil
}

// ServeHTTP makes Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// routeTable lists every route the server answers, each group on the API
// surface whose policy it inherits (surface.go).
func (s *Server) routeTable() []httpapi.Route {
	var rs []httpapi.Route
	rs = append(rs, httpapi.On(infraSite, s.infraRoutes()...)...)
	rs = append(rs, httpapi.On(staticSite, static.ViewerRoutes(s.staticEnv())...)...)
	rs = append(rs, httpapi.On(infraSite, s.readyRoutes()...)...)
	de := dataapi.Env{Catalog: s.deps.Catalog, TilesURL: s.cfg.TilesURL, AdminTok: s.cfg.AdminToken,
		HeightModel: s.qmesh.HeightModel, Footprints: s.footprints, VectorTiles: s.vectorTiles, Bundles: s.deps.Bundles, BaseURL: s.cfg.BaseURL, NoteDamage: s.damage.note, SetBL: setBL,
		Climate: s.deps.Climate, DefaultClimate: s.deps.DefaultClimate, Log: s.log, RequestID: requestID}
	rs = append(rs, httpapi.On(dataAPI, dataapi.DiscoveryRoutes(de)...)...)
	rs = append(rs, httpapi.On(dataAPI, dataapi.BuildingRoutes(de)...)...)
	rs = append(rs, httpapi.On(dataAPI, dataapi.AttributeRoutes(de)...)...)
	rs = append(rs, httpapi.On(dataAPI, dataapi.FootprintRoutes(de)...)...)
	rs = append(rs, httpapi.On(dataAPI, dataapi.VectorTileRoutes(de)...)...)
	rs = append(rs, httpapi.On(dataAPI, dataapi.SolarTileRoutes(de)...)...)
	rs = append(rs, httpapi.On(dataAPI, append(dataapi.TilesetRoutes(de), dataapi.GLBRoute(de))...)...)
	te := terrainapi.Env{Catalog: s.deps.Catalog, BaseURL: s.cfg.BaseURL, MaxPoints: s.batchMax(),
		Charge: s.chargePoints, NoteDamage: s.noteBatchDamage, SetBL: setBL, QMesh: s.qmesh, Hillshade: s.hillshade, DEMTiles: s.demTiles, Bundles: s.deps.Bundles,
		Contours: s.contours}
	rs = append(rs, httpapi.On(dataAPI, terrainapi.TerrainRoutes(te)...)...)
	rs = append(rs, httpapi.On(dataAPI, terrainapi.BatchRoute(te))...)
	rs = append(rs, httpapi.On(openTopoDataAPI, opentopo.Routes(opentopo.Env{
		Catalog: s.deps.Catalog, MaxPoints: s.batchMax(), Interpolation: terrainapi.InterpolationParam(),
		Charge:     s.chargePoints,
		NoteDamage: s.noteBatchDamage,
	})...)...)
	rs = append(rs, httpapi.On(ogcAPI, ogcapi.Routes(ogcapi.Env{
		Catalog: s.deps.Catalog, BaseURL: s.cfg.BaseURL, OpenAPI: func() []byte { return s.ogcOpenAPI },
		DamagedWarnings: func(d []*lod2store.DamagedError) []string { return dataapi.DamagedWarnings(d, s.damage.note) }, SetBL: setBL,
		TileSets: ogcTileSets(de, te, s.ogcTiles),
	})...)...)
	rs = append(rs, httpapi.On(dataAPI, terrainapi.QuantizedMeshRoutes(te)...)...)
	rs = append(rs, httpapi.On(dataAPI, terrainapi.HillshadeRoutes(te)...)...)
	rs = append(rs, httpapi.On(dataAPI, terrainapi.DEMTileRoutes(te)...)...)
	rs = append(rs, httpapi.On(dataAPI, terrainapi.ContourRoutes(te)...)...)
	ka := keysadmin.Env{Catalog: s.deps.Catalog, Access: s.deps.Access, Now: s.deps.Now, Reload: s.deps.Reload,
		DocsURL: s.cfg.DocsURL, TrialMintingOff: s.cfg.TrialMintingOff, ClientAddr: s.clientAddr,
		ExactMembers: s.exactMembers, Damage: s.damage.list, ResetDamage: s.damage.reset,
		VerifyInBackground: s.VerifyInBackground}
	rs = append(rs, httpapi.On(adminAPI, keysadmin.AdminRoutes(ka)...)...)
	rs = append(rs, httpapi.On(keysAPI, keysadmin.KeyRoutes(ka)...)...)
	rs = append(rs, httpapi.On(adminAPI, keysadmin.APIKeyRoutes(ka)...)...)
	return rs
}

// adapt turns a handlerFunc into an http.Handler that renders its error.
func (s *Server) adapt(rt httpapi.Route) http.Handler {
	c := httpapi.CompileRoute(&rt)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.Admin {
			var err error
			if r, err = s.authorizeAdmin(w, r); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		in, err := httpapi.ReadInput(&rt, &c, r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if b := httpapi.BudgetOf(&rt); b > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), b)
			defer cancel()
			r = r.WithContext(ctx)
		}
		if err := rt.Handle(w, r, in); err != nil {
			s.fail(w, r, err)
		}
	})
}

// fail renders err, logging what the client must not see.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil && !isDeadline(r.Context().Err()) {
		// The client hung up: nobody reads an answer.
		s.log.Debug("client gone", "request_id", requestID(r.Context()), "err", err)
		return
	}
	he := httpapi.ToHTTPError(err)
	if he.Slug == "data-damaged" {
		s.damage.note(err)
	}
	switch {
	case errors.Is(err, httpapi.ErrNotConfigured):
		// The operator's choice, not a fault: the request line says it.
		info(r.Context()).notConfigured = true
	case he.Status >= 500:
		s.log.Error("request failed", "request_id", requestID(r.Context()), "path", logPath(r), "err", err)
	}
	s.writeProblem(w, r, he)
}

// dispatch routes r, answering unknown paths with 404 and known paths with
// a wrong method with 405, both as problems.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	if s.matched(r) != nil {
		s.mux.ServeHTTP(w, r)
		return
	}
	// Let the mux decide between redirect, 404 and 405 on a scratch writer.
	h, _ := s.mux.Handler(r)
	rec := &headerRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	switch {
	case rec.status == http.StatusMethodNotAllowed:
		s.writeProblem(w, r, httpapi.ToHTTPError(httpapi.Report(httpapi.ErrMethod, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, rec.header.Get("Allow")).
			WithHeader("Allow", rec.header.Get("Allow"))))
	case rec.status >= 300 && rec.status < 400:
		w.Header().Set("Location", rec.header.Get("Location"))
		w.WriteHeader(rec.status)
	default:
		s.writeProblem(w, r, httpapi.ToHTTPError(httpapi.Report(httpapi.ErrNotFound, "No route matches %s %s; the API is described at %s.", r.Method, r.URL.Path, s.cfg.BaseURL+"/openapi.json")))
	}
}

// headerRecorder captures status and headers, discarding the body.
type headerRecorder struct {
	header http.Header
	status int
}

func (h *headerRecorder) Header() http.Header         { return h.header }
func (h *headerRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (h *headerRecorder) WriteHeader(status int)      { h.status = status }

type methodPath struct{ method, path string }
