// Package query answers the point questions of the API over the published
// raster packs of a catalog view: the terrain height at a point (SPEC 4.5)
// and the canopy at a point (SPEC 4.6), in the shape the API returns them.
// GET /v1/terrain/elevation, GET /v1/vegetation/canopy and `svc query`
// share it, so the server and the command line give the same numbers.
package query

import (
	"context"
	"fmt"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// Datasets returns the opened raster datasets of a product (terrain or
// vegetation) in v, by BL code; packs that did not open as rasters are
// left out.
func Datasets(v *catalog.View, p pack.Product) []*terrain.Dataset { return v.Rasters(p) }

// Elevation is the answer of SPEC 4.5: the DGM1 height in metres above NHN
// (DHHN2016), 3 decimals, with the tile and licence that gave it.
type Elevation struct {
	ElevationM  float64 `json:"elevation_m"`
	Datum       string  `json:"datum"`
	SourceBL    string  `json:"source_bl"`
	Snapshot    string  `json:"snapshot"`
	License     string  `json:"license"`
	Attribution string  `json:"attribution"`
	TileID      string  `json:"tile_id"`
}

// ElevationAt samples the published terrain of v at the WGS84 point p.
// Errors wrap terrain.ErrOutside (no dataset covers p), terrain.ErrNoData
// (the pixel is NoData), raster.ErrUnavailable (a pass-through source did
// not answer) or raster.ErrCorrupt (the tile is damaged on disk).
func ElevationAt(ctx context.Context, v *catalog.View, p geo.LonLat, m terrain.Interpolation) (Elevation, error) {
	h, err := terrain.ElevationWith(ctx, Datasets(v, pack.Terrain), p.Lon, p.Lat, m)
	if err != nil {
		return Elevation{}, fmt.Errorf("query: elevation at lon %g, lat %g: %w", p.Lon, p.Lat, err)
	}
	mf := h.Dataset.Manifest
	return Elevation{ElevationM: terrain.Round3(h.Value), Datum: "DHHN2016", SourceBL: mf.BL, Snapshot: mf.Snapshot,
		License: mf.LicenseID, Attribution: mf.AttributionText(), TileID: h.TileID}, nil
}

// Canopy is the answer of SPEC 4.6: heights in metres above ground, 3
// decimals; Transmissivity in percent, 1 decimal, [dense, open crown].
type Canopy struct {
	CanopyHeightM   float64        `json:"canopy_height_m"`
	CrownBaseM      *float64       `json:"crown_base_m"`
	HeightReference string         `json:"height_reference"`
	Transmissivity  Transmissivity `json:"transmissivity"`
	SourceBL        string         `json:"source_bl"`
	Snapshot        string         `json:"snapshot"`
	CRS             string         `json:"crs"`
	TileID          string         `json:"tile_id"`
	License         string         `json:"license"`
	Attribution     *string        `json:"attribution"`
}

// Transmissivity is the light let through the crown, leaf on and leaf off.
type Transmissivity struct {
	LeafOn  [2]float64 `json:"leaf_on"`
	LeafOff [2]float64 `json:"leaf_off"`
}

// CanopyAt samples the published vegetation of v at the WGS84 point p;
// with trunk it also reads the crown base from the TDSM. Errors as
// ElevationAt; a canopy below 2 m is terrain.ErrNoData.
func CanopyAt(ctx context.Context, v *catalog.View, p geo.LonLat, trunk bool) (Canopy, error) {
	h, err := terrain.Canopy(ctx, Datasets(v, pack.Vegetation), p.Lon, p.Lat, trunk)
	if err != nil {
		return Canopy{}, fmt.Errorf("query: canopy at lon %g, lat %g: %w", p.Lon, p.Lat, err)
	}
	mf := h.Dataset.Manifest
	on, off := terrain.Transmissivity(h.Value, h.CrownBaseM)
	var base *float64
	if h.CrownBaseM != nil {
		b := terrain.Round3(*h.CrownBaseM)
		base = &b
	}
	return Canopy{CanopyHeightM: terrain.Round3(h.Value), CrownBaseM: base, HeightReference: "above_ground",
		Transmissivity: Transmissivity{on, off}, SourceBL: mf.BL, Snapshot: mf.Snapshot, CRS: mf.CRS, TileID: h.TileID,
		License: mf.LicenseID, Attribution: canopyAttribution(mf)}, nil
}

// canopyAttribution is null for a licence that asks for none and a pack
// without its own text (SPEC 4.6).
func canopyAttribution(m pack.Manifest) *string {
	if l, ok := bl.LookupLicense(m.LicenseID); (!ok || !l.Attribution) && m.Attribution == "" {
		return nil
	}
	a := m.AttributionText()
	return &a
}
