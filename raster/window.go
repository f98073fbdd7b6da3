package raster

import (
	"context"
	"fmt"
	"math"
)

// FillWindow samples level li of the raster at the pixel centres of a
// north-up window (gt its geotransform in the raster's CRS, w x h pixels,
// dst row by row from the north) and writes each valid value into dst
// where dst is still NaN, so several rasters can fill one window, the
// first valid value winning. A centre outside this raster, on NoData or
// NaN leaves dst unchanged. The pixel read is the one containing the
// centre (nearest neighbour; on the raster's own grid it is that pixel
// itself). Errors are those of Sample and a level out of range; ctx is
// checked once per row.
func (c *COG) FillWindow(ctx context.Context, li int, gt [6]float64, w, h int, dst []float32) error {
	if li < 0 || li >= len(c.levels) {
		return fmt.Errorf("raster: level %d of %d", li, len(c.levels)-1)
	}
	if len(dst) < w*h || gt[2] != 0 || gt[4] != 0 {
		return fmt.Errorf("raster: window %dx%d over %d values, rotation %g %g", w, h, len(dst), gt[2], gt[4])
	}
	lv := c.levels[li]
	inv := lv.inv
	if inv[2] != 0 || inv[4] != 0 {
		return nil // a rotated raster cannot share a north-up window
	}
	// The columns of this raster the window's columns fall in, once.
	cols := make([]int32, w)
	first, last := -1, -1
	for i := range w {
		px := inv[0] + inv[1]*(gt[0]+(float64(i)+0.5)*gt[1])
		cols[i] = -1
		if px >= 0 && px < float64(lv.width) {
			cols[i] = int32(px)
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil
	}
	for j := range h {
		py := inv[3] + inv[5]*(gt[3]+(float64(j)+0.5)*gt[5])
		if !(py >= 0 && py < float64(lv.height)) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		iy := int(py)
		by := iy / lv.blockH
		row := dst[j*w : (j+1)*w]
		var b *block
		bx := -1
		for i := first; i <= last; i++ {
			ix := int(cols[i])
			if ix < 0 || !math.IsNaN(float64(row[i])) {
				continue
			}
			if ix/lv.blockW != bx {
				bx = ix / lv.blockW
				var err error
				if b, err = c.block(ctx, li, by*lv.across+bx); err != nil {
					return err
				}
			}
			if v, ok := c.valueIn(b, (iy-by*lv.blockH)*lv.blockW+(ix-bx*lv.blockW)); ok {
				row[i] = float32(v)
			}
		}
	}
	return nil
}
