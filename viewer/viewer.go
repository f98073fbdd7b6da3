// Package viewer is the built-in map and globe: a page that shows what the
// server publishes (hillshade map tiles, buildings, elevation, profiles,
// canopy, 3D Tiles) using only the server's own API, with MapLibre GL JS
// for the map and CesiumJS for the globe. Every file is embedded in the
// binary, so the page works on an air-gapped machine. The package knows the
// API only as URLs the page calls; it serves static files and nothing else.
package viewer

//go:generate go run ./internal/vendorgen

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// The page's own files are plain; the vendored libraries are stored as
// gzip (vendor/*.gz) and sent as they are to clients that accept gzip.
//
//go:embed assets vendor
var files embed.FS

// Handler serves the viewer's files below prefix (e.g. "/viewer/"):
// prefix itself is the page. Unknown files answer 404 through notFound, so
// the caller keeps its own error format.
func Handler(prefix string, notFound http.Handler) http.Handler {
	return &handler{prefix: prefix, notFound: notFound}
}

type handler struct {
	prefix   string
	notFound http.Handler
	etags    sync.Map // embedded path -> quoted ETag
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rel := strings.TrimPrefix(r.URL.Path, h.prefix)
	if rel == r.URL.Path && r.URL.Path+"/" != h.prefix {
		h.notFound.ServeHTTP(w, r)
		return
	}
	if rel == "" || r.URL.Path+"/" == h.prefix {
		rel = "index.html"
	}
	clean := path.Clean("/" + rel)[1:]
	if clean != rel || strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.") {
		h.notFound.ServeHTTP(w, r)
		return
	}
	name, gz := "assets/"+rel, false
	if strings.HasPrefix(rel, "vendor/") {
		name, gz = rel+".gz", true
	}
	b, err := fs.ReadFile(files, name)
	if err != nil {
		h.notFound.ServeHTTP(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", contentType(rel))
	hd.Set("X-Content-Type-Options", "nosniff")
	if rel == "index.html" {
		// The page names no versioned files, so it is revalidated; the
		// libraries change only with the binary.
		hd.Set("Cache-Control", "no-cache")
		hd.Set("Content-Security-Policy", csp)
	} else {
		hd.Set("Cache-Control", "public, max-age=3600")
	}
	etag := h.etag(name, b)
	hd.Set("ETag", etag)
	hd.Add("Vary", "Accept-Encoding")
	if gz {
		if acceptsGzip(r) {
			hd.Set("Content-Encoding", "gzip")
		} else if b, err = gunzip(b); err != nil {
			http.Error(w, "corrupt embedded file", http.StatusInternalServerError)
			return
		}
	}
	if gz && hd.Get("Content-Encoding") == "gzip" {
		// Ranges of an encoded body would confuse clients; send it whole.
		r.Header.Del("Range")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// csp keeps the page to its own origin: no CDN, no tracker, nothing that
// would fail on an air-gapped machine. CesiumJS (its IIFE build, Cesium.js)
// carries its web workers' code inside: it starts each worker from a blob:
// URL whose script calls importScripts on a second blob: URL holding that
// code. A worker's script loads are governed by the CSP it inherits from
// the page: worker-src for the worker itself, script-src for
// importScripts, hence blob: in both (without it in script-src every
// worker dies on start and no terrain tile is ever decoded). blob: URLs
// can only be made by script already running in the page, so this admits
// no other origin. 'unsafe-eval' is for Cesium's glsl optimiser,
// 'wasm-unsafe-eval' for its wasm decoders (Draco, meshopt's worker).
const csp = "default-src 'self'; img-src 'self' data: blob:; worker-src 'self' blob:; child-src blob:; " +
	"script-src 'self' blob: 'unsafe-eval' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; connect-src 'self' data: blob:"

func (h *handler) etag(name string, b []byte) string {
	if v, ok := h.etags.Load(name); ok {
		return v.(string)
	}
	sum := sha256.Sum256(b)
	e := `"` + hex.EncodeToString(sum[:12]) + `"`
	h.etags.Store(name, e)
	return e
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		f := strings.Fields(strings.ReplaceAll(part, ";", " "))
		if len(f) > 0 && strings.EqualFold(f[0], "gzip") && !strings.Contains(part, "q=0") {
			return true
		}
	}
	return false
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".wasm":
		return "application/wasm"
	case ".json":
		return "application/json"
	case ".md", ".txt":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
