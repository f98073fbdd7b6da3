package importer

import (
	"context"
	"fmt"
	"github.com/svc-geodata/svc/geoid"
	"path/filepath"
	"strconv"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
	"github.com/svc-geodata/svc/tiles3d"
)

// VegetationOptions configure Vegetation.
type VegetationOptions struct {
	CRS  string   // EPSG:25832 or EPSG:25833; "" means the BL's usual CRS
	Mode Mode     // ModeConvert ("") or ModeMirror
	CDSM []string // canopy height rasters (required)
	TDSM []string // crown base rasters (optional)
	// BridgeMask is a GeoJSON file of bridge-deck polygons (see
	// parseBridgeMask for the CRS rule): CDSM and TDSM pixels within
	// BridgeBufferM of a deck become NoData (SPEC 4.6). It needs
	// ModeConvert. Any BL accepts one; SPEC 4.6 expects it for he and ni
	// from snapshot 2026-07-20 (be has no official source). The manifest
	// records whether a mask was applied.
	BridgeMask string
	// HeightModel lifts the 3D themes to ellipsoidal heights (default: the
	// embedded GCG2016, geoid.Default).
	HeightModel *geoid.Model
	// ToleranceM is the plantcover RTIN tolerance (default 0.5 m).
	ToleranceM float64
	// Summary, when set, receives what the import did tile by tile.
	// Common.Workers also builds that many 3D Tiles tiles at once.
	Summary *RasterSummary
}

// Vegetation imports canopy height (CDSM, metres above ground) and
// optionally crown base (TDSM) rasters, GeoTIFF or XYZ as DGM takes them,
// into a new vegetation pack of c.BL and c.Snapshot and publishes it with
// all four themes of SPEC 2.10 in one atomic commit: the rasters cdsm and
// tdsm, and the 3D Tiles trees and plantcover built from the CDSM by
// tiles3d.WriteVegetation (ground from the BL's newest terrain pack when
// one is published, else height 0; import the DGM first, or rebuild with
// tiles3d.BuildVegetation later). Errors name the file; on error the
// previous snapshot stays published.
func Vegetation(ctx context.Context, c Common, o VegetationOptions) (_ pack.Manifest, err error) {
	ri, err := newRasterImport(c, o.CRS, o.Mode, false)
	if err != nil {
		return pack.Manifest{}, err
	}
	if len(o.CDSM) == 0 {
		return pack.Manifest{}, fmt.Errorf("%w: no CDSM input (--cdsm)", ErrOptions)
	}
	if o.BridgeMask != "" {
		if ri.mask, err = readBridgeMask(o.BridgeMask, ri.zone); err != nil {
			return pack.Manifest{}, err
		}
		if ri.maskSHA, err = fileSHA256(o.BridgeMask); err != nil {
			return pack.Manifest{}, fmt.Errorf("importer: bridge mask: %w", err)
		}
	}
	ri.summary = o.Summary
	key := pack.Key{Product: pack.Vegetation, BL: c.BL, Snapshot: c.Snapshot}
	if err := ri.start(key); err != nil {
		return pack.Manifest{}, err
	}
	defer func() { ri.close(err) }()
	ix := terrain.Index{EPSG: ri.epsg, Layers: map[string][]terrain.Tile{}}
	info := &pack.VegetationInfo{Index: terrain.IndexName, BridgeMask: ri.mask != nil}
	var recs []tileRecord
	for _, l := range []struct {
		name  string
		paths []string
	}{{terrain.LayerCDSM, o.CDSM}, {terrain.LayerTDSM, o.TDSM}} {
		if len(l.paths) == 0 {
			continue
		}
		tiles, lrecs, err := ri.layer(ctx, l.name, l.paths)
		if err != nil {
			return pack.Manifest{}, err
		}
		recs = append(recs, lrecs...)
		ix.Layers[l.name] = tiles
		info.Themes = append(info.Themes, pack.Theme{Name: l.name, Kind: "raster_cog", Path: l.name + "/", TileCount: int64(len(tiles))})
	}
	w, err := pack.Create(c.DataDir, key)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	defer w.Abort()
	if err := ri.assemble(w, recs); err != nil {
		return pack.Manifest{}, err
	}
	cdsm := ix.Layers[terrain.LayerCDSM]
	info.TileSizeM = cdsm[0].BBox[2] - cdsm[0].BBox[0]
	if err := terrain.WriteIndex(filepath.Join(w.Dir(), terrain.IndexName), ix); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	m := c.manifest(ri.st)
	res, err := tiles3d.WriteVegetation(ctx, w.Dir(), tiles3d.VegetationOptions{DataDir: c.DataDir, BL: c.BL,
		Snapshot: c.Snapshot, Zone: ri.zone, Tiles: cdsm, ToleranceM: o.ToleranceM, Workers: ri.workers,
		HeightModel: o.HeightModel, Attribution: m.AttributionText(), BBoxWGS84: terrain.EnvelopeWGS84(ri.zone, cdsm), Linked: w.Reuse})
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	info.Themes = append(info.Themes, res.Themes...)
	m.HeightModel = res.HeightModel
	m.CRS = "EPSG:" + strconv.Itoa(ri.epsg)
	m.BBoxWGS84 = terrain.EnvelopeWGS84(ri.zone, cdsm)
	m.Vegetation = info
	if m, err = w.Commit(ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	ri.finish()
	return m, nil
}
