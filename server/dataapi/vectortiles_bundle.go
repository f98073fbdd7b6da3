package dataapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/klauspost/compress/gzip"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/pmtiles"
	"github.com/svc-geodata/svc/server/httpapi"
)

// maxBundleTile caps a vector tile decompressed from an archive: the
// archive is a user's file, and a gzip bomb must not take the server's
// memory (a dense z12 tile is a few MB).
const maxBundleTile = 64 << 20

// buildingBundle is the offline archive the building vector tile routes
// answer from: the one of `svc serve --pmtiles` holding layer buildings,
// used only while no LoD2 pack is published (published data always wins,
// so a bundle never hides fresher data).
func (s *surface) buildingBundle(v *catalog.View) (*maplayer.Bundle, bool) {
	if len(v.Packs(pack.LoD2)) > 0 {
		return nil, false
	}
	return s.Bundles.Get("buildings")
}

// bundleVectorTile answers a building vector tile from the archive: the
// stored gzip bytes with Content-Encoding: gzip to a client accepting it,
// else decompressed (the bytes the full server sends either way). A tile
// the archive does not hold is the empty tile the live route answers where
// there are no buildings. The ETag is the stored bytes' SHA-256 (its first
// 12 bytes), -gz for the gzip encoding: stable across restarts.
func bundleVectorTile(w http.ResponseWriter, r *http.Request, b *maplayer.Bundle, z, x, y int) error {
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
		return writeMVT(w, r, func() ([]byte, error) { return stored, nil }, nil, etag)
	}
	return writeMVT(w, r, func() ([]byte, error) { return gunzipTile(stored) }, stored, etag)
}

// gunzipTile decompresses an archive's tile, at most maxBundleTile bytes.
func gunzipTile(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("dataapi: archive tile: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxBundleTile+1))
	if err == nil && len(out) > maxBundleTile {
		err = errors.New("larger than 64 MiB")
	}
	if err != nil {
		return nil, fmt.Errorf("dataapi: archive tile: %w", err)
	}
	return out, nil
}

// bundleVectorTileJSON is the TileJSON of the archive: its bounds, zooms,
// attribution and vector_layers.
func (s *surface) bundleVectorTileJSON(w http.ResponseWriter, r *http.Request, b *maplayer.Bundle) error {
	bounds := b.Bounds()
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": b.Meta.Name, "scheme": "xyz", "format": "pbf",
		"tiles":   []string{s.BaseURL + vectorBase + "/{z}/{x}/{y}.mvt"},
		"minzoom": b.Header.MinZoom, "maxzoom": b.Header.MaxZoom, "bounds": bounds[:],
		"attribution": b.Meta.Attribution, "vector_layers": b.Meta.VectorLayers})
}
