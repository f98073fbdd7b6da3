package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/server"
	"github.com/svc-geodata/svc/state"
)

func apiVersion() string { return server.APIVersion }

type serveOptions struct {
	data, addr, baseURL, tilesURL, errorsBase, adminToken, geoid, pprof string
	trustedProxies, pmtiles                                             []string
	logFormat, logLevel                                                 string
	keylessLimit, trialMintsPerIP, batchMaxPoints                       int
	trialMinting, publicSourceURL                                       bool
	rasterCacheMB                                                       int
	vectorTileCacheMB                                                   int
	memoryLimit, gcHeadroom                                             string
	stateURL                                                            string
	irradiance                                                          string
	init                                                                bool
	quiet                                                               bool
	out                                                                 io.Writer // the welcome text
}

func newServe() *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the API and the static tiles from a data directory",
		Long: `serve answers every /v1 route from the packs in the data directory and serves their static
artefacts under /tiles/. It publishes a pack only once its import finished.

Signals: SIGHUP rescans the data directory; SIGTERM and SIGINT stop accepting connections,
let requests in flight finish (up to 30 s) and exit.

Garbage collection: the heap may grow by at least --gc-headroom between collections (GOGC is
set after each one to 100 x max(live heap, headroom) / live heap), under a soft memory limit
(--memory-limit; auto: 3/4 of the cgroup's memory limit, else 1/2 of the machine's memory).
A GOGC in the environment turns the headroom off; a GOMEMLIMIT stands unless --memory-limit
is given. The start-up log line "gc policy" shows what applies (docs/performance.md).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.out = c.ErrOrStderr()
			return runServe(c.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.data, "data", "./data", "data directory holding the BL packs")
	f.BoolVar(&o.init, "init", false, "create the data directory when it does not exist (otherwise a missing one is an error)")
	geoidFlag(f, &o.geoid)
	f.StringVar(&o.addr, "addr", ":8080", "listen address")
	f.StringVar(&o.baseURL, "base-url", "", "public base URL of the API (default http://localhost<addr>)")
	f.StringVar(&o.tilesURL, "tiles-url", "", "public URL of the static tile host (default <base-url>/tiles)")
	f.StringVar(&o.errorsBase, "errors-base", "", "base URI of problem types (default <base-url>/problems)")
	f.StringVar(&o.adminToken, "admin-token", "", "secret for the admin endpoints and the GLB admin limits; empty disables them")
	f.StringSliceVar(&o.trustedProxies, "trusted-proxy", nil, "CIDR of a reverse proxy whose X-Forwarded-For is trusted (repeatable; none by default: "+
		"behind nginx on the same host give 127.0.0.1/32)")
	f.StringVar(&o.pprof, "pprof", "", "serve Go's pprof profiles on this separate address (e.g. 127.0.0.1:6060); off by default")
	f.IntVar(&o.keylessLimit, "keyless-limit", access.DefaultKeylessLimit, "keyless /v1 requests per client IP and UTC day")
	f.IntVar(&o.trialMintsPerIP, "trial-mints-per-ip", access.DefaultMintsPerClient, "trial keys one IP may mint per 24 h")
	f.BoolVar(&o.trialMinting, "trial-minting", true, "allow POST /v1/keys/trial (false: 503)")
	f.IntVar(&o.batchMaxPoints, "batch-max-points", 10000, "points per batch elevation request (POST /v1/terrain/elevation, /opentopodata)")
	f.BoolVar(&o.publicSourceURL, "public-source-url", false, "show the packs' source_url in the manifest.json the tile host serves")
	f.StringArrayVar(&o.pmtiles, "pmtiles", nil, "PMTiles archive of 'svc export pmtiles' (repeatable): its layer's tile routes answer from it "+
		"while no pack holds the layer's source data (offline bundles, docs/offline-bundles.md)")
	f.IntVar(&o.rasterCacheMB, "raster-cache-mb", 256, "MiB of decoded terrain/vegetation COG blocks kept in memory, shared by all packs")
	f.IntVar(&o.vectorTileCacheMB, "vector-tile-cache-mb", 64, "MiB of building vector tiles kept in memory; 0 keeps none, every request cuts its tile (cold benchmarks)")
	f.StringVar(&o.stateURL, "state", "", stateFlagHelp)
	f.StringVar(&o.irradiance, "irradiance", "", "climate file for GET /v1/buildings/{gmlid}/solar: a PVGIS TMY (CSV or JSON) or EnergyPlus EPW file, "+
		"read once at start (a bad file stops the start); without it the route uses the built-in default climate of Germany "+
		"(CM SAF monthly means 2006-2025, 0.2° grid; outside Germany it answers 503; docs/solar.md)")
	f.StringVar(&o.memoryLimit, "memory-limit", "auto", "soft memory limit of the Go runtime: auto (3/4 of the cgroup limit, else 1/2 of the machine's memory; "+
		"GOMEMLIMIT when set), off, a size (2GiB, 1500MB) or a percentage of the memory (50%)")
	f.StringVar(&o.gcHeadroom, "gc-headroom", defaultGCHeadroom, "least heap growth between garbage collections (a size, or off for Go's GOGC=100; "+
		"a GOGC in the environment turns it off)")
	f.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.BoolVar(&o.quiet, "quiet", false, "do not print the welcome text (address, data, example URLs) at start")
	addEnvHelp(c)
	return c
}

func newLogger(format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, not %q", format)
}

func runServe(ctx context.Context, o serveOptions) error {
	log, err := newLogger(o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	gc, err := planGCPolicy(o.memoryLimit, o.gcHeadroom, systemGCEnv)
	if err != nil {
		return err
	}
	defer applyGCPolicy(gc)()
	log.Info("gc policy", gc.describe()...)
	var proxies []netip.Prefix
	for _, cidr := range o.trustedProxies {
		p, err := netip.ParsePrefix(strings.TrimSpace(cidr))
		if err != nil {
			return fmt.Errorf("--trusted-proxy %q: %w", cidr, err)
		}
		proxies = append(proxies, p.Masked())
	}
	// A typo in --data must not start an empty server on a new directory.
	if st, err := os.Stat(o.data); err != nil || !st.IsDir() {
		if !o.init {
			return fmt.Errorf("--data %s: no such directory (create one with 'svc demo --data %s', import data into it, or pass --init to start empty)", o.data, o.data)
		}
		if err := os.MkdirAll(o.data, 0o755); err != nil {
			return fmt.Errorf("data directory: %w", err)
		}
	}
	var clim *roofsolar.Climate
	var defClim *roofsolar.DefaultClimates
	if o.irradiance == "" {
		// 64 cells of about 200 KB each: the buildings of a state's busiest areas.
		defClim = roofsolar.NewDefaultClimates(64)
	} else {
		if clim, err = roofsolar.LoadClimate(ctx, o.irradiance); err != nil {
			return fmt.Errorf("--irradiance: %w", err)
		}
		log.Info("irradiance climate", "file", o.irradiance, "format", clim.Series.Format, "source", clim.Series.Source,
			"lat", clim.Series.Site.LatDeg, "lon", clim.Series.Site.LonDeg, "model", clim.Sky.Description(), "sha256", clim.SHA256)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	if o.baseURL == "" {
		o.baseURL = "http://" + hostForURL(ln.Addr())
	}
	// Imports killed before they finished left temporary directories:
	// remove them (a running import keeps its own) and say so.
	if gone, err := pack.Sweep(o.data); err != nil || len(gone) > 0 {
		for _, l := range gone {
			log.Warn("removed the directory of an interrupted import or build", "dir", l.Dir, "bytes", l.Bytes)
		}
		if err != nil {
			log.Warn("sweep", "err", err)
		}
	}
	hm, err := loadGeoid(o.geoid)
	if err != nil {
		return err
	}
	cat := catalog.New(catalogOptionsWith(o.data, raster.NewCache(int64(o.rasterCacheMB)<<20)))
	defer cat.Close()
	reload := func() (*catalog.View, error) {
		v, err := cat.Reload(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		logView(log, v)
		warnHeightModels(log, v, hm)
		return v, nil
	}
	if _, err := reload(); err != nil {
		return err
	}
	bundles, err := maplayer.OpenBundles(o.pmtiles)
	if err != nil {
		return fmt.Errorf("--pmtiles: %w", err)
	}
	defer bundles.Close()
	for _, l := range bundles.Layers() {
		b, _ := bundles.Get(l)
		log.Info("offline bundle", "layer", l, "path", b.Path, "minzoom", b.Header.MinZoom, "maxzoom", b.Header.MaxZoom, "bounds", b.Bounds())
	}
	st, acc, err := openAccess(ctx, o, log)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := server.New(server.Config{BaseURL: o.baseURL, TilesURL: o.tilesURL, ErrorsBase: o.errorsBase,
		AdminToken: o.adminToken, TrustedProxies: proxies, TrialMintingOff: !o.trialMinting, HeightModel: hm,
		BatchMaxPoints: o.batchMaxPoints, PublicSourceURL: o.publicSourceURL, VectorTileCacheBytes: vectorTileCacheBytes(o.vectorTileCacheMB)},
		server.Deps{Catalog: cat, Logger: log, Reload: reload, Access: acc, Bundles: bundles, Climate: clim, DefaultClimate: defClim})
	if err != nil {
		return err
	}
	flushCtx, stopFlush := context.WithCancel(context.WithoutCancel(ctx))
	defer stopFlush()
	go acc.Run(flushCtx)
	hs := &http.Server{
		Handler: srv,
		// Slow clients must not hold connections: headers arrive within 10 s.
		ReadHeaderTimeout: 10 * time.Second,
		// Request bodies are small JSON (key mints); a minute is generous.
		ReadTimeout: time.Minute,
		// Large GLB exports and tile downloads on slow links take time.
		WriteTimeout: 5 * time.Minute,
		// Keep-alive connections from viewers fetching many tiles are reused.
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Registered before serving, so a SIGHUP never meets the default action
	// (exit) once the server answers.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go watchHUP(ctx, log, hup, func() (*catalog.View, error) {
		v, err := reload()
		if err == nil {
			srv.VerifyInBackground(ctx)
		}
		return v, err
	})
	if o.pprof != "" {
		stopPprof, err := servePprof(o.pprof, log)
		if err != nil {
			return err
		}
		defer stopPprof()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(srv.Listener(ln)) }()
	// Every file against its manifest's size and checksum, in the
	// background: the server answers meanwhile, and a damaged file shows in
	// /readyz and /v1/admin/health before a request meets it.
	srv.VerifyInBackground(ctx)
	log.Info("serving", "addr", ln.Addr().String(), "base_url", o.baseURL, "data", o.data, "version", Version)
	if o.logFormat == "text" && !o.quiet {
		printWelcome(ctx, o.out, o.baseURL, cat.Current())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	stopFlush()
	// Counters of the last requests are written before the database closes.
	fctx, fcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer fcancel()
	if ferr := acc.Close(fctx); ferr != nil {
		log.Error("final counter flush failed", "err", ferr)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// hostForURL turns a listen address into host:port usable in a URL; a
// wildcard listener is reached through localhost.
func hostForURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

func watchHUP(ctx context.Context, log *slog.Logger, hup <-chan os.Signal, reload func() (*catalog.View, error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			log.Info("SIGHUP: rescanning data directory")
			if _, err := reload(); err != nil {
				log.Error("rescan failed", "err", err)
			}
		}
	}
}

func logView(log *slog.Logger, v *catalog.View) {
	log.Info("data directory scanned", "published_bl", v.BLCount(""), "skipped", len(v.Problems))
	for _, p := range v.Problems {
		log.Warn("pack skipped", "path", p.Path, "reason", p.Reason)
	}
}

// openAccess opens the state backend (--state, or the side database
// <data>/svc.db) and the access service on it.
func openAccess(ctx context.Context, o serveOptions, log *slog.Logger) (state.Store, *access.Service, error) {
	st, err := openState(ctx, o.data, o.stateURL)
	if err != nil {
		return nil, nil, err
	}
	acc, err := access.New(ctx, access.Options{Store: st, KeylessLimit: o.keylessLimit, MintsPerClient: o.trialMintsPerIP,
		OnError: func(err error) { log.Error("counter flush failed; retrying", "err", err) }})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, acc, nil
}

// servePprof starts Go's profiling endpoints on their own listener, apart
// from the API (whose middleware, limits and routes they must not share);
// the returned function stops it.
func servePprof(addr string, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ps := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go ps.Serve(ln)
	log.Info("pprof", "addr", ln.Addr().String())
	return func() { ps.Close() }, nil
}

// vectorTileCacheBytes maps --vector-tile-cache-mb to
// server.Config.VectorTileCacheBytes: 0 MiB means no cache (negative there).
func vectorTileCacheBytes(mb int) int64 {
	if mb <= 0 {
		return -1
	}
	return int64(mb) << 20
}
