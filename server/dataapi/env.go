// Package dataapi holds the building routes of the data API (/v1): the
// federated building search, buildings and roofs by gml:id, footprint
// tiles, the building vector tiles (MVT), the GLB export, the tilesets
// and the dataset list and attribution. What they need of the server comes as an Env; the policy
// they answer under is the server's dataAPI surface. The terrain routes of
// the data API are package terrainapi.
package dataapi

import (
	"context"
	"log/slog"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/tilecache"
)

// Env is what the routes need of the server that composes them.
type Env struct {
	Catalog *catalog.Catalog
	// TilesURL is {tiles_url}, where the tile host serves the packs.
	TilesURL string
	// AdminTok is the server's admin token, which raises the GLB export's
	// limits; "" none.
	AdminTok string
	// HeightModel is the id of the height model the quantized-mesh terrain
	// is lifted with.
	HeightModel func() string
	// Footprints caches footprint tiles.
	Footprints *tilecache.Cache
	// VectorTiles caches building vector tiles.
	VectorTiles *tilecache.Cache
	// Bundles answer the building vector tile routes when no LoD2 pack is
	// published (offline bundles of `svc export pmtiles`); nil holds none.
	Bundles *maplayer.Bundles
	// BaseURL is the server's public base URL (TileJSON tile templates).
	BaseURL string
	// NoteDamage records a damaged file a request met (admin health,
	// /readyz).
	NoteDamage func(error)
	// SetBL records which federal state answered the request, for the
	// per-BL usage counters.
	SetBL func(ctx context.Context, code string)
	// Log and RequestID report what a client is not told (a failed Draco
	// compression).
	// Climate is the irradiance file of `svc serve --irradiance`; nil:
	// none, the solar route uses DefaultClimate.
	Climate *roofsolar.Climate
	// DefaultClimate is the built-in climate of Germany per grid cell,
	// used without Climate; nil with it nil too: the solar route answers
	// 503.
	DefaultClimate *roofsolar.DefaultClimates
	Log            *slog.Logger
	RequestID      func(context.Context) string
}

type surface struct{ Env }

// hdrJSON is the Content-Type of the JSON answers, as a header value.
var hdrJSON = []string{"application/json"}
