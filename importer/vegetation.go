package importer

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// VegetationOptions configure Vegetation.
type VegetationOptions struct {
	CRS  string   // EPSG:25832 or EPSG:25833; "" means the BL's usual CRS
	Mode Mode     // ModeConvert ("") or ModeMirror
	CDSM []string // canopy height rasters (required)
	TDSM []string // crown base rasters (optional)
}

// Vegetation imports canopy height (CDSM, metres above ground) and
// optionally crown base (TDSM) rasters, GeoTIFF or XYZ as DGM takes them,
// into a new vegetation pack of c.BL and c.Snapshot with the themes cdsm and
// tdsm (spec 2.10) and publishes it. The 3D Tiles themes (trees,
// plantcover) come from another build step. Errors name the file; on error
// the previous snapshot stays published.
func Vegetation(ctx context.Context, c Common, o VegetationOptions) (pack.Manifest, error) {
	ri, err := newRasterImport(c, o.CRS, o.Mode, false)
	if err != nil {
		return pack.Manifest{}, err
	}
	if len(o.CDSM) == 0 {
		return pack.Manifest{}, fmt.Errorf("%w: no CDSM input (--cdsm)", ErrOptions)
	}
	w, err := pack.Create(c.DataDir, pack.Key{Product: pack.Vegetation, BL: c.BL, Snapshot: c.Snapshot})
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	defer w.Abort()
	ix := terrain.Index{EPSG: ri.epsg, Layers: map[string][]terrain.Tile{}}
	info := &pack.VegetationInfo{Index: terrain.IndexName}
	for _, l := range []struct {
		name  string
		paths []string
	}{{terrain.LayerCDSM, o.CDSM}, {terrain.LayerTDSM, o.TDSM}} {
		if len(l.paths) == 0 {
			continue
		}
		tiles, err := ri.layer(ctx, w.Dir(), l.name, l.paths)
		if err != nil {
			return pack.Manifest{}, err
		}
		ix.Layers[l.name] = tiles
		info.Themes = append(info.Themes, pack.Theme{Name: l.name, Kind: "raster_cog", Path: l.name + "/", TileCount: int64(len(tiles))})
	}
	cdsm := ix.Layers[terrain.LayerCDSM]
	info.TileSizeM = cdsm[0].BBox[2] - cdsm[0].BBox[0]
	if err := terrain.WriteIndex(filepath.Join(w.Dir(), terrain.IndexName), ix); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	m := c.manifest(ri.st)
	m.CRS = "EPSG:" + strconv.Itoa(ri.epsg)
	m.BBoxWGS84 = terrain.EnvelopeWGS84(ri.zone, cdsm)
	m.Vegetation = info
	if m, err = w.Commit(ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	return m, nil
}
