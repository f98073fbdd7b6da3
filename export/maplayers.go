package export

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// HillshadeLayer is the map layer of GET /v1/terrain/hillshade/{z}/{x}/{y}.png
// (style shade, 256 px): the multidirectional hillshade of the DGM of
// every published terrain pack of cat, read from the catalog's view at the
// time of each tile. Its tiles are the route's bytes.
func HillshadeLayer(cat *catalog.Catalog) maplayer.Layer {
	return maplayer.Layer{
		Name: "hillshade", Title: "svc DGM1 hillshade", Format: maplayer.PNG, TileSizePx: 256,
		Description: "Multidirectional hillshade of the DGM1 (as gdaldem hillshade -multidirectional), transparent without data",
		MinZoom:     hillshade.MinZoom, MaxZoom: hillshade.MaxZoom,
		Coverage: func(within geo.BBox) maplayer.Coverage {
			v, release := cat.Acquire()
			defer release()
			return TerrainCoverage(v, within)
		},
		Tile: func(ctx context.Context, z, x, y int) ([]byte, error) {
			v, release := cat.Acquire()
			defer release()
			datasets := v.Rasters(pack.Terrain)
			// The row sampler the hillshade route uses (demtile.DGM), so a
			// bundle's tiles are the route's bytes.
			row := func(ctx context.Context, lon0, dLonDeg, lat float64, level int, out []float64) error {
				return terrain.ElevationRow(ctx, datasets, lon0, dLonDeg, lat, terrain.Bilinear, level, out)
			}
			return hillshade.Tile(ctx, row, z, x, y, 256, hillshade.Shade)
		},
	}
}

// TerrainCoverage is the union of the WGS84 bboxes of the published
// terrain packs meeting within (the whole Web Mercator square when there
// are none) and their attributions joined by "; ".
func TerrainCoverage(v *catalog.View, within geo.BBox) maplayer.Coverage {
	b := [4]float64{180, 90, -180, -90}
	var attr []string
	for _, p := range v.Packs(pack.Terrain) {
		m := p.Manifest.BBoxWGS84
		if len(m) == 4 && (m[0] > within.MaxLon || m[2] < within.MinLon || m[1] > within.MaxLat || m[3] < within.MinLat) {
			continue
		}
		if len(m) == 4 {
			b = [4]float64{math.Min(b[0], m[0]), math.Min(b[1], m[1]), math.Max(b[2], m[2]), math.Max(b[3], m[3])}
		}
		if a := p.Manifest.AttributionText(); !slices.Contains(attr, a) {
			attr = append(attr, a)
		}
	}
	if b[0] > b[2] {
		b = [4]float64{-180, -85.0511, 180, 85.0511}
	}
	return maplayer.Coverage{Bounds: b, Attribution: strings.Join(attr, "; ")}
}
