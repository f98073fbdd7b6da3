package cmd

import (
	"context"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/solarstore"
	"github.com/svc-geodata/svc/terrain"
)

// catalogOptions returns the catalog options of the data directory: how
// each product's packs are opened when published, with a raster tile cache
// of the default size.
func catalogOptions(data string) catalog.Options { return catalogOptionsWith(data, raster.NewCache(0)) }

// catalogOptionsWith is catalogOptions with the decoded-tile cache shared
// by every terrain and vegetation pack.
func catalogOptionsWith(data string, cache *raster.Cache) catalog.Options {
	return catalog.Options{Dir: data, LoD2: lod2store.OpenPack, Solar: solarstore.OpenPack,
		Raster: func(ctx context.Context, dir string, m pack.Manifest) (*terrain.Dataset, error) {
			return terrain.OpenPack(ctx, dir, m, terrain.Options{Cache: cache})
		}}
}
