package raster

import (
	"context"
	"math"
)

// GeoTransform is Info().GeoTransform without copying the rest of Info:
// interpolation asks for it on every point.
func (c *COG) GeoTransform() [6]float64 { return c.info.GeoTransform }

// Levels is the number of resolution levels: 1 plus the overviews.
func (c *COG) Levels() int { return len(c.levels) }

// LevelGeoTransform is the geotransform of level li (0 full resolution).
func (c *COG) LevelGeoTransform(li int) [6]float64 { return c.levels[li].gt }

// Quad reads the 2x2 pixels (ix, iy), (ix+1, iy), (ix, iy+1), (ix+1, iy+1)
// of level li, in that order, with one cache lookup when they share a
// block (bilinear interpolation reads four pixels per point). ok[k] is false
// for a pixel outside the raster, NoData or NaN.
func (c *COG) Quad(ctx context.Context, li, ix, iy int) (v [4]float64, ok [4]bool, err error) {
	lv := c.levels[li]
	if ix >= 0 && iy >= 0 && ix+1 < lv.width && iy+1 < lv.height {
		bx, by := ix/lv.blockW, iy/lv.blockH
		if (ix+1)/lv.blockW == bx && (iy+1)/lv.blockH == by {
			b, err := c.block(ctx, li, by*lv.across+bx)
			if err != nil {
				return v, ok, err
			}
			i := (iy-by*lv.blockH)*lv.blockW + (ix - bx*lv.blockW)
			for k, off := range [4]int{0, 1, lv.blockW, lv.blockW + 1} {
				v[k], ok[k] = c.valueIn(b, i+off)
			}
			return v, ok, nil
		}
	}
	for k := range 4 {
		px, py := ix+k%2, iy+k/2
		if px < 0 || py < 0 || px >= lv.width || py >= lv.height {
			continue
		}
		bx, by := px/lv.blockW, py/lv.blockH
		b, err := c.block(ctx, li, by*lv.across+bx)
		if err != nil {
			return v, ok, err
		}
		v[k], ok[k] = c.valueIn(b, (py-by*lv.blockH)*lv.blockW+(px-bx*lv.blockW))
	}
	return v, ok, nil
}

// valueIn is pixel i of block b and whether it holds a value.
func (c *COG) valueIn(b *block, i int) (float64, bool) {
	if b.f32 != nil {
		v := b.f32[i]
		return float64(v), v == v && !(c.hasNodata && v == c.nodata32)
	}
	v := b.at(i)
	return v, !math.IsNaN(v) && !(c.hasNodata && v == c.nodata)
}

// LevelSize is the width and height in pixels of level li.
func (c *COG) LevelSize(li int) (w, h int) { return c.levels[li].width, c.levels[li].height }
