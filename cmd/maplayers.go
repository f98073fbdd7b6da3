package cmd

import (
	"context"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/contour"
	"github.com/svc-geodata/svc/demtile"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/maplayer"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/terrain"
)

// mapLayers is the registry of the XYZ map layers `svc export pmtiles`
// writes. A new tile layer registers here with one line in the list below:
//
//	hillshadeLayer(cat), <kind>Layer(cat),
//
// where <kind>Layer returns the maplayer.Layer whose Tile makes the
// bytes its route answers (see hillshadeLayer).
func mapLayers(cat *catalog.Catalog) (*maplayer.Registry, error) {
	reg := &maplayer.Registry{}
	for _, l := range []maplayer.Layer{
		hillshadeLayer(cat),
		buildingsLayer(cat),
		demLayer(cat, demtile.TerrainRGB),
		demLayer(cat, demtile.Terrarium),
		contourLayer(cat),
	} {
		if err := reg.Register(l); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// hillshadeLayer is the map layer of GET /v1/terrain/hillshade/{z}/{x}/{y}.png
// (style shade, 256 px): the multidirectional hillshade of the DGM of
// every published terrain pack of cat, read from the catalog's view at the
// time of each tile. Its tiles are the route's bytes.
func hillshadeLayer(cat *catalog.Catalog) maplayer.Layer {
	return maplayer.Layer{
		Name: "hillshade", Title: "svc DGM1 hillshade", Format: maplayer.PNG, TileSizePx: 256,
		Description: "Multidirectional hillshade of the DGM1 (as gdaldem hillshade -multidirectional), transparent without data",
		MinZoom:     hillshade.MinZoom, MaxZoom: hillshade.MaxZoom,
		Coverage: func(within geo.BBox) maplayer.Coverage {
			v, release := cat.Acquire()
			defer release()
			return terrainCoverage(v, within)
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

// buildingsLayer is the map layer of GET /v1/buildings/tiles/{z}/{x}/{y}.mvt:
// both vector layers (buildings, roofs from zoom 16) of every published
// LoD2 pack of cat, one archive (docs/offline-bundles.md). Its tiles are
// the gzip bytes the route sends to a client accepting gzip (mvt.Gzip of
// buildings.Tiler.Tile), stored with PMTiles tile compression gzip; a
// tile without buildings is empty (left out of the archive).
func buildingsLayer(cat *catalog.Catalog) maplayer.Layer {
	return maplayer.Layer{
		Name: "buildings", Title: "svc LoD2 buildings", Format: maplayer.MVT, Gzip: true,
		Description: "Building footprints with heights (layer buildings) and roof facets (layer roofs, from zoom 16) of the LoD2 data",
		MinZoom:     buildings.TileMinZoom, MaxZoom: buildings.TileMaxZoom, VectorLayers: buildings.VectorLayers,
		Coverage: func(within geo.BBox) maplayer.Coverage {
			v, release := cat.Acquire()
			defer release()
			return packCoverage(v, pack.LoD2, within)
		},
		Tile: func(ctx context.Context, z, x, y int) ([]byte, error) {
			v, release := cat.Acquire()
			defer release()
			b, err := buildings.NewTiler(buildings.Sources(v)).WithSolar(buildings.SolarStores(v)).Tile(ctx, z, x, y)
			if err != nil {
				return nil, err
			}
			return mvt.Gzip(b)
		},
	}
}

// demLayer is the map layer of GET /v1/terrain/rgb/{z}/{x}/{y}.png
// (enc demtile.TerrainRGB, layer terrain-rgb) or
// /v1/terrain/terrarium/{z}/{x}/{y}.png (demtile.Terrarium, layer
// terrarium): the DGM of every published terrain pack of cat packed as
// heights in PNG, the route's bytes (demtile.Tiler.Tile over demtile.DGM).
func demLayer(cat *catalog.Catalog, enc demtile.Encoding) maplayer.Layer {
	name, title, formula := "terrain-rgb", "terrain-RGB", "height = -10000 + (R × 65536 + G × 256 + B) × 0.1 m"
	if enc == demtile.Terrarium {
		name, title, formula = "terrarium", "Terrarium", "height = R × 256 + G + B / 256 - 32768 m"
	}
	return maplayer.Layer{
		Name: name, Title: "svc DGM1 " + title, Format: maplayer.PNG, TileSizePx: demtile.TileSize, Encoding: enc.String(),
		Description: "DGM1 heights in metres above NHN (DHHN2016) as " + title + " (" + formula + "); transparent outside the data",
		MinZoom:     demtile.MinZoom, MaxZoom: demtile.MaxZoom,
		Coverage: func(within geo.BBox) maplayer.Coverage {
			v, release := cat.Acquire()
			defer release()
			return terrainCoverage(v, within)
		},
		Tile: func(ctx context.Context, z, x, y int) ([]byte, error) {
			v, release := cat.Acquire()
			defer release()
			return demtile.New(demtile.DGM(v.Rasters(pack.Terrain)), enc, demtile.Transparent).Tile(ctx, z, x, y)
		},
	}
}

// contourLayer is the map layer of GET /v1/terrain/contours/{z}/{x}/{y}.mvt:
// the contour lines of the DGM of every published terrain pack of cat.
// Its tiles are the gzip bytes the route sends to a client accepting gzip
// (mvt.Gzip of contour.Tiler.Tile), stored with PMTiles tile compression
// gzip; a tile without lines is empty (left out of the archive).
func contourLayer(cat *catalog.Catalog) maplayer.Layer {
	return maplayer.Layer{
		Name: contour.Layer, Title: "svc DGM1 contours", Format: maplayer.MVT, Gzip: true,
		Description: "Contour lines of the DGM1 with elevation_m and index (interval 50 m at zoom 10-11, 10 m at 12-13, 5 m at 14-15, 1 m from 16)",
		MinZoom:     contour.MinZoom, MaxZoom: contour.MaxZoom, VectorLayers: contour.VectorLayers,
		Coverage: func(within geo.BBox) maplayer.Coverage {
			v, release := cat.Acquire()
			defer release()
			return terrainCoverage(v, within)
		},
		Tile: func(ctx context.Context, z, x, y int) ([]byte, error) {
			v, release := cat.Acquire()
			defer release()
			// The datasets the route reads (query.Datasets), so a bundle's
			// tiles are the route's bytes.
			b, err := contour.NewTiler(query.Datasets(v, pack.Terrain)).Tile(ctx, z, x, y)
			if err != nil {
				return nil, err
			}
			return mvt.Gzip(b)
		},
	}
}

// terrainCoverage is packCoverage of the terrain packs.
func terrainCoverage(v *catalog.View, within geo.BBox) maplayer.Coverage {
	return packCoverage(v, pack.Terrain, within)
}

// packCoverage is the union of the WGS84 bboxes of the published
// packs of product p meeting within (the whole Web Mercator square when
// there are none) and their attributions joined by "; ".
func packCoverage(v *catalog.View, prod pack.Product, within geo.BBox) maplayer.Coverage {
	b, attr := v.Coverage(prod, within)
	return maplayer.Coverage{Bounds: b, Attribution: attr}
}
