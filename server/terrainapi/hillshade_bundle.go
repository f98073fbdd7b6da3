package terrainapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/demtile"
	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/pmtiles"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/tilecache"
)

// hillshadeBundle is the offline archive the hillshade routes answer from.
func (s *surface) hillshadeBundle(v *catalog.View) (*maplayer.Bundle, bool) {
	return s.terrainBundle(v, "hillshade")
}

// terrainBundle is the offline archive of a terrain map layer (hillshade,
// terrain-rgb, terrarium, contours): the one of `svc serve --pmtiles` holding layer,
// used only while no terrain pack is published (published DGM always
// wins, so a bundle never hides fresher data).
func (s *surface) terrainBundle(v *catalog.View, layer string) (*maplayer.Bundle, bool) {
	if len(v.Packs(pack.Terrain)) > 0 {
		return nil, false
	}
	return s.Bundles.Get(layer)
}

// bundleDEMTile answers a terrain-RGB or Terrarium tile from the archive
// (the stored bytes, ETag their SHA-256). The archive holds the route's
// default, transparent tiles; nodata=fill (mark Opaque, what the TileJSON
// asks for) makes them opaque (demtile.OpaquePNG). A tile the archive does
// not hold is the tile the live route answers where there is no DGM.
func bundleDEMTile(w http.ResponseWriter, r *http.Request, b *maplayer.Bundle, l demLayer, mark demtile.NoData, z, x, y int) error {
	data, err := b.Tile(r.Context(), z, x, y)
	switch {
	case errors.Is(err, pmtiles.ErrNoTile):
		data, err = demtile.New(hillshade.Heights(noHeights).Row(), l.enc, mark).Tile(r.Context(), z, x, y)
	case err == nil && mark == demtile.Opaque:
		data, err = demtile.OpaquePNG(data)
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	writePNG(w, r, tilecache.Entry{Data: data, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`})
	return nil
}

// bundleDEMTileJSON is the TileJSON of a raster-dem archive: its bounds,
// zooms, attribution and the encoding.
func (s *surface) bundleDEMTileJSON(w http.ResponseWriter, r *http.Request, l demLayer, b *maplayer.Bundle) error {
	bounds := b.Bounds()
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": b.Meta.Name, "scheme": "xyz", "format": "png", "encoding": l.enc.String(),
		"description": b.Meta.Description,
		"tiles":       []string{s.BaseURL + l.base + "/{z}/{x}/{y}.png?nodata=" + demtile.Opaque.String()},
		"minzoom":     b.Header.MinZoom, "maxzoom": b.Header.MaxZoom, "bounds": bounds[:], "tileSize": demtile.TileSize,
		"attribution": b.Meta.Attribution})
}

// bundleTile answers a hillshade tile from the archive. The archive holds
// the 256 px shade tiles of its bbox and zooms (what `svc export pmtiles`
// writes): other styles and sizes are 404 problems saying so; a tile the
// archive does not hold is the transparent tile the live route answers
// where there is no DGM.
func (s *surface) bundleTile(w http.ResponseWriter, r *http.Request, b *maplayer.Bundle, z, x, y, size int, style hillshade.Style) error {
	if size != 256 || style != hillshade.Shade {
		return httpapi.Report(httpapi.ErrNotFound, "No tile %d/%d/%d in this style or size: the server answers from an offline bundle "+
			"holding 256 px tiles of style shade only (no DGM is published).", z, x, y)
	}
	data, err := b.Tile(r.Context(), z, x, y)
	if errors.Is(err, pmtiles.ErrNoTile) {
		data, err = hillshade.Tile(r.Context(), hillshade.Heights(noHeights).Row(), z, x, y, size, style)
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	writePNG(w, r, tilecache.Entry{Data: data, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`})
	return nil
}

// noHeights is terrain without any data.
func noHeights(context.Context, float64, float64, int) (float64, bool, error) { return 0, false, nil }

// bundleTileJSON is the TileJSON of the archive: its bounds, zooms and
// attribution.
func (s *surface) bundleTileJSON(w http.ResponseWriter, r *http.Request, in *httpapi.Input, b *maplayer.Bundle) error {
	bounds := b.Bounds()
	q := ""
	if in.Has("style") {
		q = "?style=" + in.Str("style")
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "public, max-age=300", map[string]any{
		"tilejson": "3.0.0", "name": b.Meta.Name, "scheme": "xyz", "format": "png",
		"tiles":   []string{s.BaseURL + hillshadeBase + "/{z}/{x}/{y}.png" + q},
		"minzoom": b.Header.MinZoom, "maxzoom": b.Header.MaxZoom, "bounds": bounds[:], "tileSize": 256,
		"attribution": b.Meta.Attribution})
}
