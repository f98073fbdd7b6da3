package terrain

import (
	"context"
	"errors"
	"math"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/raster"
)

// Hit is one sampled value and where it came from.
type Hit struct {
	Value   float64  // metres: elevation above NHN, or height above ground
	Dataset *Dataset // the answering dataset (BL, snapshot, licence)
	TileID  string   // "<bl>/<snapshot>/<tile name>"
}

// Elevation samples the DGM layer of datasets (ordered by BL code) at the
// WGS84 point lon, lat (degrees): the first dataset whose tile has a valid
// pixel answers. It returns ErrOutside when no tile covers the point,
// ErrNoData when covering tiles hold NoData there, and a *TileError when a
// tile cannot be read (wrapping raster.ErrUnavailable for an unreachable
// pass-through source).
func Elevation(ctx context.Context, datasets []*Dataset, lon, lat float64) (Hit, error) {
	return sampleAt(ctx, datasets, LayerDGM, lon, lat, Nearest, 0)
}

// ElevationWith is Elevation with an interpolation method (see
// Layer.SampleInterp). The neighbours of a point come from its answering
// dataset only: across a BL border the other state's grid is not mixed in.
func ElevationWith(ctx context.Context, datasets []*Dataset, lon, lat float64, m Interpolation) (Hit, error) {
	return sampleAt(ctx, datasets, LayerDGM, lon, lat, m, 0)
}

// ElevationLevel is ElevationWith on a COG overview level (see
// Layer.SampleLevel): for map tiles whose pixels are larger than the DGM's.
func ElevationLevel(ctx context.Context, datasets []*Dataset, lon, lat float64, m Interpolation, level int) (Hit, error) {
	return sampleAt(ctx, datasets, LayerDGM, lon, lat, m, level)
}

// sampleAt is Elevation on any layer. A dataset whose tile holds NoData
// lets the next dataset try; a read error ends the search.
func sampleAt(ctx context.Context, datasets []*Dataset, layer string, lon, lat float64, m Interpolation, level int) (Hit, error) {
	res := ErrOutside
	for _, d := range datasets {
		l := d.layers[layer]
		if l == nil || !d.mayCover(lon, lat) {
			continue
		}
		x, y := geo.ToUTM(d.Zone, lon, lat)
		v, tile, err := l.SampleLevel(ctx, x, y, m, level)
		switch {
		case err == nil:
			return Hit{Value: v, Dataset: d, TileID: l.TileID(tile)}, nil
		case errors.Is(err, ErrNoData):
			res = ErrNoData
		case !errors.Is(err, ErrOutside):
			return Hit{Dataset: d}, err
		}
	}
	return Hit{}, res
}

// ProfileSample is one sample of a profile: its position and cumulative
// distance (geo.Sample) and its elevation. OK is false when the sample lies
// outside coverage, on NoData, or on a tile that failed to read; Hit is then
// zero apart from Dataset when a dataset covered it.
type ProfileSample struct {
	geo.Sample
	Hit
	OK bool
}

// Profile is the result of ProfileAlong.
type Profile struct {
	Samples       []ProfileSample
	TotalM        float64  // polyline length in UTM32N metres
	Partial       bool     // some sample has no elevation
	FailedTileIDs []string // tiles whose read failed, in first-failure order
}

// ProfileAlong samples n points evenly spaced along the WGS84 polyline pts
// (length measured in UTM32N, see geo.Interpolate) with the rules of
// Elevation. A sample on a tile that fails to read gets no elevation and
// the tile is listed in FailedTileIDs; the profile is still returned. When
// no sample has a value it returns ErrOutside if no tile failed (all
// outside coverage or NoData), and the first *TileError if that wraps
// raster.ErrUnavailable (a pass-through source down); corrupt tiles alone
// give a partial profile. Bad input gives the error of geo.Interpolate.
// ctx is checked every 256 samples.
func ProfileAlong(ctx context.Context, datasets []*Dataset, pts []geo.LonLat, n int, m Interpolation) (Profile, error) {
	ss, err := geo.Interpolate(pts, n)
	if err != nil {
		return Profile{}, err
	}
	p := Profile{Samples: make([]ProfileSample, len(ss)), TotalM: ss[len(ss)-1].DistanceM}
	var firstErr error
	good := 0
	failed := map[string]bool{}
	for i, s := range ss {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return Profile{}, err
			}
		}
		h, err := ElevationWith(ctx, datasets, s.Lon, s.Lat, m)
		ps := ProfileSample{Sample: s}
		var te *TileError
		switch {
		case err == nil:
			ps.Hit, ps.OK = h, true
			good++
		case errors.As(err, &te):
			ps.Dataset = h.Dataset
			if ctx.Err() != nil {
				return Profile{}, ctx.Err()
			}
			if !failed[te.TileID] {
				failed[te.TileID] = true
				p.FailedTileIDs = append(p.FailedTileIDs, te.TileID)
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		p.Samples[i] = ps
	}
	p.Partial = good < len(ss)
	switch {
	case good > 0:
		return p, nil
	case firstErr == nil:
		return p, ErrOutside
	case errors.Is(firstErr, raster.ErrUnavailable):
		return p, firstErr
	}
	return p, nil
}

// Round3 rounds v to 3 decimals (millimetres), half away from zero.
func Round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// LevelHeights samples the DGM of datasets bilinearly on COG overview
// level (0: full resolution) at lon, lat (WGS84 degrees), first valid
// value in BL order: the heights map tiles are shaded from. No coverage
// and NoData are "no value" (ok false), not errors.
func LevelHeights(datasets []*Dataset) func(ctx context.Context, lon, lat float64, level int) (float64, bool, error) {
	return func(ctx context.Context, lon, lat float64, level int) (float64, bool, error) {
		h, err := ElevationLevel(ctx, datasets, lon, lat, Bilinear, level)
		switch {
		case err == nil:
			return h.Value, true, nil
		case errors.Is(err, ErrOutside), errors.Is(err, ErrNoData):
			return 0, false, nil
		}
		return 0, false, err
	}
}
