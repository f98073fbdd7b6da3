// Package terrain answers point and line queries on the raster packs of
// spec sections 2.7 and 2.10 to 2.13: DGM1 terrain (elevation, profile) and
// the CDSM/TDSM vegetation rasters (canopy height, crown base).
//
// A raster pack holds Cloud Optimized GeoTIFF tiles in one UTM CRS and an
// index file (index.json) listing every tile with its extent; a
// pass-through terrain pack lists remote COG URLs instead of files and reads
// them with HTTP range requests. [OpenPack] opens a pack for the catalog;
// tiles are opened on first use and their decoded blocks live in a
// [raster.Cache] shared by every pack.
//
// Routing and sampling rules (documented in the OpenAPI descriptions):
//   - A WGS84 point is projected into each candidate BL's UTM zone
//     (EPSG:25832 or EPSG:25833) with geo.ToUTM.
//   - Points closer than EdgeM (0.6 m) to an edge of the tile that covers
//     them move EdgeM inward before sampling; the pixel containing the moved
//     point is read (gdallocationinfo's rule).
//   - Overlapping coverage (near state borders, or tiles sharing an edge):
//     datasets are tried in BL-code order and tiles by id; the first tile
//     with a valid pixel wins.
//   - tile_id is "<bl>/<snapshot>/<tile name>", the tile name being the
//     source file's stem (e.g. "he/2026-07-20/dgm1_32_477_5551").
//
// Values are returned unrounded; the API rounds to 3 decimals.
package terrain

import (
	"errors"
	"fmt"
)

var (
	// ErrOutside reports a point that no tile of any dataset covers.
	ErrOutside = errors.New("terrain: outside coverage")
	// ErrNoData reports a point whose covering tiles hold NoData there
	// (water, tile edge, or no vegetation).
	ErrNoData = errors.New("terrain: no data")
	// ErrIndex reports a missing, unreadable or inconsistent tile index.
	ErrIndex = errors.New("terrain: invalid index")
	// ErrXYZ reports XYZ text that is not a regular elevation grid.
	ErrXYZ = errors.New("terrain: invalid XYZ")
)

// TileError is a failure to read one tile; the profile lists such tiles in
// failed_tile_ids. It wraps the raster error (raster.ErrCorrupt,
// raster.ErrUnavailable, a context error).
type TileError struct {
	TileID string
	Err    error
}

// Error names the tile and the cause.
func (e *TileError) Error() string { return fmt.Sprintf("terrain: tile %s: %v", e.TileID, e.Err) }

// Unwrap returns the cause.
func (e *TileError) Unwrap() error { return e.Err }
