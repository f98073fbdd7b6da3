package dataapi

import (
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/pack"
)

// buildingBundle is the offline archive the building vector tile routes
// answer from (httpapi.WriteBundleMVT, httpapi.BundleVectorTileJSON): the
// one of `svc serve --pmtiles` holding layer buildings, used only while no
// LoD2 pack is published (published data always wins, so a bundle never
// hides fresher data).
func (s *surface) buildingBundle(v *catalog.View) (*maplayer.Bundle, bool) {
	if len(v.Packs(pack.LoD2)) > 0 {
		return nil, false
	}
	return s.Bundles.Get("buildings")
}
