package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/pmtiles"
)

// MVTType is the media type of a Mapbox Vector Tile.
const MVTType = "application/vnd.mapbox-vector-tile"

// maxBundleTile caps a vector tile decompressed from an archive: the
// archive is a user's file, and a gzip bomb must not take the server's
// memory (a dense z12 tile is a few MB).
const maxBundleTile = 64 << 20

// WriteMVT answers a vector tile (the building and contour tile routes):
// gz (the tile gzip'd by mvt.Gzip, nil for an empty tile) with
// Content-Encoding: gzip to a client accepting it, else plain, which is
// called only then (an archive stores the gzip bytes alone). The gzip
// encoding has its own strong ETag (etag with -gz); If-None-Match naming
// the ETag of the answer's encoding is 304. Five minutes of client
// caching, Vary: Accept-Encoding.
func WriteMVT(w http.ResponseWriter, r *http.Request, plain func() ([]byte, error), gz []byte, etag string) error {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	var body []byte
	if gz != nil && AcceptsGzip(r) {
		// A strong validator names one representation (RFC 9110 8.8.3):
		// the gzip encoding has its own.
		body, etag = gz, strings.TrimSuffix(etag, `"`)+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Type", MVTType)
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=300")
	if inm := r.Header.Get("If-None-Match"); inm != "" && ETagMatch(inm, etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if body == nil {
		var err error
		if body, err = plain(); err != nil {
			h.Del("Vary")
			return err
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// WriteBundleMVT answers vector tile z/x/y from an offline archive of
// `svc export pmtiles` (building or contour tiles): the stored gzip bytes
// with Content-Encoding: gzip to a client accepting it, else decompressed
// (at most 64 MiB), the bytes the full server sends either way. A tile the
// archive does not hold is the empty tile the live route answers where
// there is no data. The ETag is the stored bytes' SHA-256 (its first 12
// bytes), -gz for the gzip encoding: stable across restarts. Errors are
// the archive's (a damaged tile, a context error).
func WriteBundleMVT(w http.ResponseWriter, r *http.Request, b *maplayer.Bundle, z, x, y int) error {
	stored, err := b.Tile(r.Context(), z, x, y)
	if errors.Is(err, pmtiles.ErrNoTile) {
		stored, err = nil, nil
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(stored)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	if b.Header.TileCompression != pmtiles.Gzip || len(stored) == 0 {
		return WriteMVT(w, r, func() ([]byte, error) { return stored, nil }, nil, etag)
	}
	return WriteMVT(w, r, func() ([]byte, error) { return gunzipTile(stored) }, stored, etag)
}

// gunzipTile decompresses an archive's tile, at most maxBundleTile bytes.
func gunzipTile(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("httpapi: archive tile: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxBundleTile+1))
	if err == nil && len(out) > maxBundleTile {
		err = errors.New("larger than 64 MiB")
	}
	if err != nil {
		return nil, fmt.Errorf("httpapi: archive tile: %w", err)
	}
	return out, nil
}

// BundleVectorTileJSON answers the TileJSON 3.0.0 of a vector tile
// archive served at tiles (the URL template): its name, bounds, zooms,
// attribution and vector_layers.
func BundleVectorTileJSON(w http.ResponseWriter, r *http.Request, b *maplayer.Bundle, tiles string) error {
	bounds := b.Bounds()
	return WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": b.Meta.Name, "scheme": "xyz", "format": "pbf",
		"tiles":   []string{tiles},
		"minzoom": b.Header.MinZoom, "maxzoom": b.Header.MaxZoom, "bounds": bounds[:],
		"attribution": b.Meta.Attribution, "vector_layers": b.Meta.VectorLayers})
}
