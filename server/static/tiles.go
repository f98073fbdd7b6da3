// Package static is the static site of the server: the tile host
// (/tiles/..., the files of published packs with byte ranges, conditional
// requests and gzip) and the built-in viewer's pages. What it needs of the
// server comes as an Env; the policy its routes answer under (staticSite:
// not counted, no time budget) is the server's.
package static

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
)

// Env is what the site needs of the server that composes it.
type Env struct {
	Catalog *catalog.Catalog
	// PublicSourceURL shows the packs' source_url in the manifest.json the
	// tile host serves.
	PublicSourceURL bool
	// Fail renders err as the server does for a handler's error.
	Fail func(w http.ResponseWriter, r *http.Request, err error)
	// WriteProblem writes the problem of e (the tile host's 416 and 412).
	WriteProblem func(w http.ResponseWriter, r *http.Request, e *httpapi.HTTPError)
}

type surface struct{ Env }

// TileRoute is the tile host's route; the server lists it among its
// infrastructure routes, on its staticSite surface.
func TileRoute(env Env) httpapi.Route {
	s := &surface{env}
	return httpapi.Route{Method: "GET", Path: "/tiles/{path...}", OpID: "getTile", Tag: "Tiles", Stability: "stable", Since: "0.1.0", Exempt: true,
		Summary: "Static tile host: 3D Tiles, GLB/b3dm tiles and COGs of published packs",
		Desc: "Serves `{tiles_url}/<product>/<bl>/<snapshot>/<file>` for the products terrain, terrain-mesh, osm-cover, veg and buildings. " +
			"Supports byte ranges (COG reading), ETag/Last-Modified conditional requests, and gzip for JSON. No directory listings; " +
			"only files of published snapshots are served. Not counted against the keyless limit.",
		Params: []httpapi.Param{{Name: "path", In: "path", Type: "string", Required: true, Example: "buildings/he/2026-07-20/tileset.json", Desc: "`<product>/<bl>/<snapshot>/<file>`"}},
		Responses: []httpapi.Response{
			{Status: 200, Desc: "The file", ContentType: "application/octet-stream"},
			{Status: 206, Desc: "A byte range of the file", ContentType: "application/octet-stream"},
			{Status: 304, Desc: "Not modified"},
			{Status: 416, Desc: "Range not satisfiable"},
			httpapi.Resp404,
		},
		Handle: s.handleTiles}
}

// tileTypes maps artefact extensions to their media types. b3dm, i3dm, pnts,
// cmpt and implicit-tiling subtrees have no registered type; 3D Tiles
// viewers expect application/octet-stream.
var tileTypes = map[string]string{
	".json":    "application/json",
	".glb":     "model/gltf-binary",
	".gltf":    "model/gltf+json",
	".b3dm":    "application/octet-stream",
	".i3dm":    "application/octet-stream",
	".pnts":    "application/octet-stream",
	".cmpt":    "application/octet-stream",
	".subtree": "application/octet-stream",
	".tif":     "image/tiff",
	".tiff":    "image/tiff",
}

// gzipTypes are compressed on the fly when the client accepts gzip and asks
// for the whole file: JSON shrinks several-fold, while COGs, Draco meshes and
// binary tiles are already compressed or are read by byte range.
var gzipTypes = map[string]bool{".json": true, ".gltf": true}

// handleTiles serves the files of published static packs:
// /tiles/<product>/<bl>/<snapshot>/<file...>. It refuses anything outside a
// published pack: unknown products, unpublished or superseded snapshots,
// dot-files, encoded slashes, and symlinks leaving the pack directory.
func (s *surface) handleTiles(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	rel := in.Str("path")
	if strings.Contains(strings.ToLower(r.URL.RawPath), "%2f") || strings.Contains(strings.ToLower(r.URL.RawPath), "%5c") {
		return httpapi.Report(httpapi.ErrNotFound, "No tile at %s.", r.URL.Path)
	}
	parts := strings.Split(rel, "/")
	if len(parts) < 4 || !fs.ValidPath(rel) {
		return httpapi.Report(httpapi.ErrNotFound, "No tile at %s.", r.URL.Path)
	}
	for _, p := range parts {
		if p == "" || strings.HasPrefix(p, ".") || strings.ContainsRune(p, '\\') {
			return httpapi.Report(httpapi.ErrNotFound, "No tile at %s.", r.URL.Path)
		}
	}
	prod := pack.Product(parts[0])
	if !prod.Valid() || !prod.Static() {
		return httpapi.Report(httpapi.ErrNotFound, "No tile at %s.", r.URL.Path)
	}
	view, release := s.Catalog.Acquire()
	defer release()
	pk, ok := view.Published(prod, parts[1], parts[2])
	if !ok {
		return httpapi.Report(httpapi.ErrNotFound, "No published %s pack for %s snapshot %s.", prod, parts[1], parts[2])
	}
	name := strings.Join(parts[3:], "/")
	if name == pack.ManifestName {
		return s.serveManifest(w, r, pk.Manifest)
	}
	return s.serveFile(w, r, pk.Dir, name)
}

// serveManifest answers a pack's manifest.json as published, without its
// source_url unless the operator chose to show it (Config.PublicSourceURL):
// an import records where the files came from, which may be a path on the
// operator's machine or an internal mirror.
func (s *surface) serveManifest(w http.ResponseWriter, r *http.Request, m pack.Manifest) error {
	if !s.PublicSourceURL {
		m.SourceURL = ""
	}
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("tiles: manifest: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(append(body, '\n'))
	}
	return nil
}

// serveFile serves name inside dir through os.Root, which refuses paths and
// symlinks that leave dir.
func (s *surface) serveFile(w http.ResponseWriter, r *http.Request, dir, name string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("tiles: open pack: %w", err)
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return httpapi.Report(httpapi.ErrNotFound, "No tile at %s.", r.URL.Path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("tiles: stat: %w", err)
	}
	if !st.Mode().IsRegular() {
		return httpapi.Report(httpapi.ErrNotFound, "No tile at %s.", r.URL.Path) // directories are never listed
	}
	ext := strings.ToLower(path.Ext(name))
	ctype, ok := tileTypes[ext]
	if !ok {
		ctype = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "public, max-age=86400")
	etag := fmt.Sprintf(`"%x-%x"`, st.Size(), st.ModTime().UnixNano())
	if gzipTypes[ext] && r.Header.Get("Range") == "" && httpapi.AcceptsGzip(r) && st.Size() > 512 {
		h.Add("Vary", "Accept-Encoding")
		return serveGzip(w, r, f, etag[:len(etag)-1]+`-gz"`, st.ModTime())
	}
	if gzipTypes[ext] {
		h.Add("Vary", "Accept-Encoding")
	}
	h.Set("ETag", etag)
	http.ServeContent(&contentWriter{ResponseWriter: w, r: r, s: s}, r, name, st.ModTime(), f)
	return nil
}

// contentWriter turns the errors http.ServeContent answers itself (416 for
// a Range outside the file, as text/plain; 412 for a failed If-Match, with
// no body at all) into problems like every other error.
type contentWriter struct {
	http.ResponseWriter
	r      *http.Request
	s      *surface
	failed bool // a problem was written; ServeContent's own body is dropped
}

func (c *contentWriter) WriteHeader(code int) {
	var f *httpapi.Fault
	switch code {
	case http.StatusRequestedRangeNotSatisfiable:
		f = httpapi.Report(httpapi.ErrRange, "The Range %q lies outside the file; Content-Range gives its size.", httpapi.Clip(c.r.Header.Get("Range")))
	case http.StatusPreconditionFailed:
		f = httpapi.Report(httpapi.ErrPrecondition, "The file does not meet the request's If-Match or If-Unmodified-Since condition.")
	default:
		c.ResponseWriter.WriteHeader(code)
		return
	}
	c.failed = true
	c.s.WriteProblem(c.ResponseWriter, c.r, httpapi.ToHTTPError(f))
}

func (c *contentWriter) Write(p []byte) (int, error) {
	if c.failed {
		return len(p), nil
	}
	return c.ResponseWriter.Write(p)
}

// ReadFrom keeps the sendfile path of the underlying writer for file bodies.
func (c *contentWriter) ReadFrom(src io.Reader) (int64, error) {
	if rf, ok := c.ResponseWriter.(io.ReaderFrom); ok && !c.failed {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{c}, src)
}

// serveGzip streams f gzip-compressed, answering If-None-Match itself since
// http.ServeContent knows nothing of the compressed variant.
func serveGzip(w http.ResponseWriter, r *http.Request, f io.Reader, etag string, mod time.Time) error {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
	if inm := r.Header.Get("If-None-Match"); inm != "" && httpapi.ETagMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Encoding", "gzip")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	zw := gzip.NewWriter(w)
	if _, err := io.Copy(zw, f); err != nil {
		return nil // headers are out; the client sees a truncated body
	}
	_ = zw.Close()
	return nil
}
