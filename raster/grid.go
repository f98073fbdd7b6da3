package raster

import (
	"context"
	"fmt"
	"math"
)

// maxGridPixels caps ReadGrid: 2^28 pixels is 1 GiB of float32.
const maxGridPixels = 1 << 28

// Grid is a whole single-band raster in memory, the unit WriteCOG writes
// and ReadGrid returns.
type Grid struct {
	Width, Height int
	// Data holds Width*Height samples, row by row from the top (north).
	Data []float32
	// GeoTransform places pixel corners in the CRS, GDAL convention (see
	// Info.GeoTransform).
	GeoTransform [6]float64
	EPSG         int      // CRS code, e.g. 25832; 0 writes no CRS
	Nodata       *float64 // written as GDAL_NODATA; nil for none
}

// ReplaceNodata sets the grid's nodata value to v and rewrites every pixel
// that was nodata under the old value, or NaN, to v. The spec's COGs use
// -9999, so a converter calls g.ReplaceNodata(-9999) before WriteCOG.
func (g *Grid) ReplaceNodata(v float64) {
	old, has := float32(0), g.Nodata != nil
	if has {
		old = float32(*g.Nodata)
	}
	nv := float32(v)
	for i, x := range g.Data {
		if x != x || (has && x == old) {
			g.Data[i] = nv
		}
	}
	g.Nodata = &v
}

// ReadGrid reads the whole full-resolution image into a Grid, whatever the
// layout (tiled or stripped, any supported codec), converting samples to
// float32 (integers above 2^24 and float64 values lose precision). Tiles
// bypass the cache. It returns ErrTooLarge for more than 2^28 pixels and
// the tile errors of Sample otherwise; ctx is checked between blocks.
func (c *COG) ReadGrid(ctx context.Context) (Grid, error) {
	lv := c.levels[0]
	if lv.width*lv.height > maxGridPixels {
		return Grid{}, fmt.Errorf("raster: %dx%d pixels: %w", lv.width, lv.height, ErrTooLarge)
	}
	g := Grid{
		Width: lv.width, Height: lv.height, GeoTransform: c.info.GeoTransform, EPSG: c.info.EPSG,
		Data: make([]float32, lv.width*lv.height),
	}
	if c.hasNodata {
		v := c.nodata
		g.Nodata = &v
	}
	for idx := range lv.across * lv.down {
		if err := ctx.Err(); err != nil {
			return Grid{}, err
		}
		b, err := c.loadBlock(ctx, 0, idx)
		if err != nil {
			return Grid{}, err
		}
		copyBlock(&g, lv, b, idx)
	}
	return g, nil
}

// copyBlock copies the in-image part of block idx into g.
func copyBlock(g *Grid, lv *level, b *block, idx int) {
	bx, by := idx%lv.across, idx/lv.across
	x0, y0 := bx*lv.blockW, by*lv.blockH
	w := min(lv.blockW, lv.width-x0)
	h := min(lv.blockH, lv.height-y0)
	for r := range h {
		dst := g.Data[(y0+r)*g.Width+x0 : (y0+r)*g.Width+x0+w]
		src := r * lv.blockW
		switch {
		case b.f32 != nil:
			copy(dst, b.f32[src:src+w])
		case b.f64 != nil:
			for i := range dst {
				dst[i] = float32(b.f64[src+i])
			}
		default:
			fill := float32(b.fill)
			for i := range dst {
				dst[i] = fill
			}
		}
	}
}

// validate checks that g can be written.
func (g *Grid) validate() error {
	if g.Width <= 0 || g.Height <= 0 || g.Width > maxImageSide || g.Height > maxImageSide {
		return fmt.Errorf("raster: grid of %dx%d pixels", g.Width, g.Height)
	}
	if len(g.Data) != g.Width*g.Height {
		return fmt.Errorf("raster: grid of %dx%d pixels has %d samples", g.Width, g.Height, len(g.Data))
	}
	if _, ok := invGeoTransform(g.GeoTransform); !ok {
		return fmt.Errorf("raster: geotransform %v is not invertible", g.GeoTransform)
	}
	if g.EPSG < 0 || g.EPSG > math.MaxUint16 {
		return fmt.Errorf("raster: EPSG %d does not fit a GeoKey", g.EPSG)
	}
	return nil
}

// downsample halves a level (rounding up, as GDAL sizes overviews) by
// averaging the valid pixels of each 2x2 block; a block without valid
// pixels becomes fill.
func downsample(src []float32, w, h int, valid func(float32) bool, fill float32) ([]float32, int, int) {
	nw, nh := (w+1)/2, (h+1)/2
	out := make([]float32, nw*nh)
	for y := range nh {
		for x := range nw {
			var sum float64
			n := 0
			for dy := range 2 {
				for dx := range 2 {
					sx, sy := 2*x+dx, 2*y+dy
					if sx < w && sy < h {
						if v := src[sy*w+sx]; valid(v) {
							sum += float64(v)
							n++
						}
					}
				}
			}
			if n == 0 {
				out[y*nw+x] = fill
			} else {
				out[y*nw+x] = float32(sum / float64(n))
			}
		}
	}
	return out, nw, nh
}
