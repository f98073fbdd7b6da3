package terrain

import "context"

// SampleCoarse returns the value at x, y (metres in the layer's CRS) read
// from overview level of the covering tile (0 full resolution; a level
// beyond a tile's overviews takes its coarsest, whose pixels average the
// valid pixels below them), the pixel containing the point, without the
// edge rule and without touching the full-resolution blocks. Tiles covering
// the point are tried by name; ok is false when none covers it or all hold
// NoData there. A read failure is a *TileError. It serves scans that take
// many samples far apart and accept a coarser grid: a terrain horizon
// samples every ~d/200 metres at distance d.
func (l *Layer) SampleCoarse(ctx context.Context, x, y float64, level int) (v float64, ok bool, err error) {
	for _, i := range l.route.lookup(x, y) {
		b := &l.tiles[i].BBox
		if x < b[0] || x >= b[2] || y <= b[1] || y > b[3] {
			continue
		}
		v, ok, err := l.readLevel(ctx, int(i), level, x, y)
		if err != nil || ok {
			return v, ok, err
		}
	}
	return 0, false, nil
}
