package terrain

import (
	"context"
	"fmt"
	"math"
)

// Interpolation is how a point's value is computed from the pixels around
// it.
type Interpolation uint8

const (
	// Nearest is the value of the pixel containing the point (after the
	// edge rule of Layer.Sample): the exact stored value.
	Nearest Interpolation = iota
	// Bilinear weighs the 2x2 pixel centres around the point.
	Bilinear
	// Cubic is cubic convolution (Keys, a = -0.5) over the 4x4 pixel
	// centres around the point, the kernel of GDAL's "cubic".
	Cubic
)

// Interpolations are the accepted names, in the order of the constants.
var Interpolations = []string{"nearest", "bilinear", "cubic"}

func (m Interpolation) String() string {
	if int(m) < len(Interpolations) {
		return Interpolations[m]
	}
	return fmt.Sprintf("Interpolation(%d)", m)
}

// ParseInterpolation reads one of Interpolations; "" is Nearest.
func ParseInterpolation(s string) (Interpolation, bool) {
	if s == "" {
		return Nearest, true
	}
	for i, n := range Interpolations {
		if s == n {
			return Interpolation(i), true
		}
	}
	return 0, false
}

// SampleInterp is Sample with an interpolation method. Bilinear and cubic
// take the pixel grid of the tile holding the point's nearest pixel; the
// pixels around it come from whichever tile of the layer holds them, so a
// tile edge is seamless. The result is NoData where the nearest pixel is;
// bilinear weighs only the valid pixels of its 2x2 (renormalised), and cubic
// falls back to that bilinear where one of its 16 pixels is NoData or
// outside the layer, so a hole or the coverage edge never pulls values
// towards a fill value.
func (l *Layer) SampleInterp(ctx context.Context, x, y float64, m Interpolation) (float64, int, error) {
	return l.SampleLevel(ctx, x, y, m, 0)
}

// SampleLevel is SampleInterp on overview level (0 full resolution; a
// level beyond a tile's overviews takes its coarsest one). Map tiles of a
// large area read the overviews, not every full-resolution block.
func (l *Layer) SampleLevel(ctx context.Context, x, y float64, m Interpolation, level int) (float64, int, error) {
	v, tile, err := l.Sample(ctx, x, y)
	if err != nil || m == Nearest && level == 0 {
		return v, tile, err
	}
	c, err := l.open(ctx, tile)
	if err != nil {
		return 0, tile, &TileError{TileID: l.TileID(tile), Err: err}
	}
	level = min(level, c.Levels()-1)
	gt := c.LevelGeoTransform(level)
	if level > 0 && m == Nearest {
		lv, ok, err := l.readLevel(ctx, tile, level, x, y)
		if err != nil || !ok {
			return v, tile, err // NoData in the overview: keep the full-resolution value
		}
		return lv, tile, nil
	}
	if gt[2] != 0 || gt[4] != 0 || gt[1] == 0 || gt[5] == 0 {
		return v, tile, nil // rotated grids keep the nearest value
	}
	// Pixel-centre coordinates: centre (i, j) is at fx = i, fy = j.
	fx := (x-gt[0])/gt[1] - 0.5
	fy := (y-gt[3])/gt[5] - 0.5
	i0, j0 := math.Floor(fx), math.Floor(fy)
	tx, ty := fx-i0, fy-j0
	if w, h := c.LevelSize(level); m == Bilinear && i0 >= 0 && j0 >= 0 && int(i0)+1 < w && int(j0)+1 < h {
		// All four pixels in this tile: one read (most points).
		q, ok, err := c.Quad(ctx, level, int(i0), int(j0))
		if err != nil {
			return 0, tile, &TileError{TileID: l.TileID(tile), Err: err}
		}
		sum, wsum := 0.0, 0.0
		for k := range 4 {
			wt := (1 - math.Abs(float64(k%2)-tx)) * (1 - math.Abs(float64(k/2)-ty))
			if ok[k] && wt != 0 {
				sum += q[k] * wt
				wsum += wt
			}
		}
		if wsum == 0 {
			return v, tile, nil
		}
		return sum / wsum, tile, nil
	}
	px := func(di, dj int) (float64, bool, error) {
		X := gt[0] + (i0+float64(di)+0.5)*gt[1]
		Y := gt[3] + (j0+float64(dj)+0.5)*gt[5]
		return l.pixel(ctx, tile, level, X, Y)
	}
	if m == Cubic {
		var wx, wy [4]float64
		for k := range 4 {
			wx[k] = keys(float64(k-1) - tx)
			wy[k] = keys(float64(k-1) - ty)
		}
		sum, complete := 0.0, true
		for dj := -1; dj <= 2 && complete; dj++ {
			for di := -1; di <= 2; di++ {
				pv, ok, err := px(di, dj)
				if err != nil {
					return 0, tile, err
				}
				if !ok {
					complete = false
					break
				}
				sum += pv * wx[di+1] * wy[dj+1]
			}
		}
		if complete {
			return sum, tile, nil
		}
	}
	sum, wsum := 0.0, 0.0
	for dj := 0; dj <= 1; dj++ {
		for di := 0; di <= 1; di++ {
			w := (1 - math.Abs(float64(di)-tx)) * (1 - math.Abs(float64(dj)-ty))
			if w == 0 {
				continue
			}
			pv, ok, err := px(di, dj)
			if err != nil {
				return 0, tile, err
			}
			if ok {
				sum += pv * w
				wsum += w
			}
		}
	}
	if wsum == 0 {
		return v, tile, nil
	}
	return sum / wsum, tile, nil
}

// keys is the cubic convolution kernel with a = -0.5.
func keys(t float64) float64 {
	const a = -0.5
	t = math.Abs(t)
	switch {
	case t <= 1:
		return ((a+2)*t-(a+3))*t*t + 1
	case t < 2:
		return ((a*t-5*a)*t+8*a)*t - 4*a
	}
	return 0
}

// pixel reads the pixel centred at X, Y: from tile when it holds it,
// else from the first other tile of the layer that does. ok is false for
// NoData and for a point outside the layer.
func (l *Layer) pixel(ctx context.Context, tile, level int, X, Y float64) (float64, bool, error) {
	b := &l.tiles[tile].BBox
	if X > b[0] && X < b[2] && Y > b[1] && Y < b[3] {
		return l.readLevel(ctx, tile, level, X, Y)
	}
	for _, i := range l.route.lookup(X, Y) {
		b := &l.tiles[i].BBox
		if int(i) == tile || !(X > b[0] && X < b[2] && Y > b[1] && Y < b[3]) {
			continue
		}
		v, ok, err := l.readLevel(ctx, int(i), level, X, Y)
		if err != nil || ok {
			return v, ok, err
		}
	}
	return 0, false, nil
}

// readLevel samples tile i on level (or its coarsest) at X, Y without the
// edge rule.
func (l *Layer) readLevel(ctx context.Context, i, level int, X, Y float64) (float64, bool, error) {
	c, err := l.open(ctx, i)
	if err != nil {
		return 0, false, &TileError{TileID: l.TileID(i), Err: err}
	}
	v, ok, err := c.SampleLevel(ctx, min(level, c.Levels()-1), X, Y)
	if err != nil {
		return 0, false, &TileError{TileID: l.TileID(i), Err: err}
	}
	return v, ok, nil
}
