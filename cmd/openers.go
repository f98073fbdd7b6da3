package cmd

import (
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/store"
)

// openers returns how each product's packs are opened when published.
func openers() map[pack.Product]catalog.Opener {
	return map[pack.Product]catalog.Opener{
		pack.LoD2: store.OpenPack,
	}
}
