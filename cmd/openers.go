package cmd

import (
	"context"
	"io"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/store"
	"github.com/svc-geodata/svc/terrain"
)

// openers returns how each product's packs are opened when published, with
// a raster tile cache of the default size.
func openers() map[pack.Product]catalog.Opener { return openersWith(raster.NewCache(0)) }

// openersWith is openers with the decoded-tile cache shared by every
// terrain and vegetation pack.
func openersWith(cache *raster.Cache) map[pack.Product]catalog.Opener {
	openRaster := func(ctx context.Context, dir string, m pack.Manifest) (io.Closer, error) {
		return terrain.OpenPack(ctx, dir, m, terrain.Options{Cache: cache})
	}
	return map[pack.Product]catalog.Opener{
		pack.LoD2:       store.OpenPack,
		pack.Terrain:    openRaster,
		pack.Vegetation: openRaster,
	}
}
