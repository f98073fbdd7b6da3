package raster

import (
	"context"
	"fmt"
	"math"
)

// Sample returns the full-resolution pixel value at x, y in the raster's CRS
// (metres for EPSG:25832/25833). The pixel is the one containing the point
// (floor of the pixel coordinate), as with gdallocationinfo -geoloc.
//
// ok is false when the point lies outside the raster (v is then 0) or the
// pixel is nodata or NaN (v is then the stored value). Errors come from
// reading or decoding the tile: they wrap ErrCorrupt, ErrUnavailable or a
// context error, and name the tile. Warm samples do not allocate.
func (c *COG) Sample(ctx context.Context, x, y float64) (v float64, ok bool, err error) {
	return c.sample(ctx, 0, x, y)
}

// SampleLevel is Sample on overview level (0 is full resolution, 1 the
// largest overview). A level outside [0, Info().Overviews] is an error.
func (c *COG) SampleLevel(ctx context.Context, level int, x, y float64) (v float64, ok bool, err error) {
	if level < 0 || level >= len(c.levels) {
		return 0, false, fmt.Errorf("raster: level %d of %d", level, len(c.levels)-1)
	}
	return c.sample(ctx, level, x, y)
}

// sample looks up the pixel of level li containing x, y.
func (c *COG) sample(ctx context.Context, li int, x, y float64) (float64, bool, error) {
	lv := c.levels[li]
	inv := &lv.inv
	// Same operation order as gdallocationinfo; the conversions forbid
	// fused multiply-add, which would change results at pixel edges.
	px := float64(inv[0]+float64(inv[1]*x)) + float64(inv[2]*y)
	py := float64(inv[3]+float64(inv[4]*x)) + float64(inv[5]*y)
	if !(px >= 0 && py >= 0 && px < float64(lv.width) && py < float64(lv.height)) {
		return 0, false, nil
	}
	ix, iy := int(px), int(py)
	bx, by := ix/lv.blockW, iy/lv.blockH
	b, err := c.block(ctx, li, by*lv.across+bx)
	if err != nil {
		return 0, false, err
	}
	i := (iy-by*lv.blockH)*lv.blockW + (ix - bx*lv.blockW)
	if b.f32 != nil {
		v := b.f32[i]
		return float64(v), v == v && !(c.hasNodata && v == c.nodata32), nil
	}
	v := b.at(i)
	return v, !math.IsNaN(v) && !(c.hasNodata && v == c.nodata), nil
}
