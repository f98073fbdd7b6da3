package cmd

import (
	"log/slog"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/pack"
)

// warnHeightModels logs each published 3D pack lifted with another height
// model than the one the server lifts the quantized-mesh terrain with (hm;
// nil is the default): on a globe such content sits the models' difference
// above or below the terrain (EGM96 against GCG2016: -1.8 to +0.7 m over
// Germany, docs/height-model.md). Packs built before GCG2016 became the
// default are the usual case; the warning names the fix.
func warnHeightModels(log *slog.Logger, v *catalog.View, hm *geoid.Model) int {
	if hm == nil {
		hm = geoid.Default()
	}
	n := 0
	for _, prod := range []pack.Product{pack.Buildings3D, pack.TerrainMesh, pack.OSMCover, pack.Vegetation} {
		for _, p := range v.Packs(prod) {
			m := p.Manifest
			if m.HeightModel == "" || m.HeightModel == hm.ID() {
				continue // "" (built before height models) is reported by the listings
			}
			log.Warn("3D content built with another height model than the terrain served: it sits off the terrain on a globe; "+
				"rebuild it (svc build) or serve with the --geoid it was built with",
				"pack", m.Key().String(), "height_model", m.HeightModel, "terrain_height_model", hm.ID())
			n++
		}
	}
	return n
}
