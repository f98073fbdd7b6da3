package cmd

import (
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
)

// openers returns how each product's packs are opened when published.
func openers() map[pack.Product]catalog.Opener {
	return map[pack.Product]catalog.Opener{}
}
