package cmd

import (
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/demtile"
	"github.com/svc-geodata/svc/export"
	"github.com/svc-geodata/svc/maplayer"
)

// mapLayers is the registry of the XYZ map layers `svc export pmtiles`
// writes. A new tile layer registers here with one line in the list below:
//
//	export.HillshadeLayer(cat), <package>.Layer(cat),
//
// where <package>.Layer returns the maplayer.Layer whose Tile makes the
// bytes its route answers (see export.HillshadeLayer).
func mapLayers(cat *catalog.Catalog) (*maplayer.Registry, error) {
	reg := &maplayer.Registry{}
	for _, l := range []maplayer.Layer{
		export.HillshadeLayer(cat),
		export.BuildingsLayer(cat),
		export.DEMLayer(cat, demtile.TerrainRGB),
		export.DEMLayer(cat, demtile.Terrarium),
		// contours: the lead registers the contour layer here at merge.
	} {
		if err := reg.Register(l); err != nil {
			return nil, err
		}
	}
	return reg, nil
}
