// Package terrainapi holds the terrain routes of the data API (/v1): point
// elevation, profiles, batch elevation, canopy height, hillshade and
// quantized-mesh tiles, over the published raster packs. What they need of
// the server comes as an Env; the policy they answer under is the server's
// dataAPI surface. The building routes of the data API are still in server.
package terrainapi

import (
	"context"
	"net/http"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/qmesh"
	"github.com/svc-geodata/svc/terrain"
	"github.com/svc-geodata/svc/tilecache"
)

// Env is what the routes need of the server that composes them.
type Env struct {
	Catalog *catalog.Catalog
	// BaseURL is the public address of the API, no trailing slash.
	BaseURL string
	// MaxPoints is the most points one batch may give.
	MaxPoints int
	// Charge counts a batch of points beyond the call the access layer
	// counted (one call per started 100 points); a keyless budget it
	// exceeds is an error (429).
	Charge func(w http.ResponseWriter, r *http.Request, points int) error
	// NoteDamage lists the damaged tiles a batch met in the damage log.
	NoteDamage func([]terrain.PointResult)
	// SetBL records which federal state answered the request, for the
	// per-BL usage counters.
	SetBL func(ctx context.Context, code string)
	// QMesh builds and caches quantized-mesh tiles; Hillshade caches the
	// rendered hillshade PNGs, DEMTiles the terrain-RGB and Terrarium PNGs.
	QMesh     *qmesh.Tiler
	Hillshade *tilecache.Cache
	DEMTiles  *tilecache.Cache
	// Bundles answer the hillshade, DEM and contour tile routes when no terrain pack is
	// published (offline bundles of `svc export pmtiles`); nil holds none.
	Bundles *maplayer.Bundles
	// Contours caches the contour vector tiles (uncounted, like every
	// tile route, so a crowd panning must not recompute them).
	Contours *tilecache.Cache
}

type surface struct{ Env }
