package terrain

import (
	"context"
	"errors"
	"math"

	"github.com/svc-geodata/svc/geo"
)

// rowAnchor is the spacing, in points, of the exact projections
// ElevationRow interpolates between. A parallel is nearly straight in UTM
// (its sagitta over a chord L is about L² tan(lat) / 8R): over 8 pixels of
// a zoom 8 map tile (3 km in Germany) the linear interpolation is off by
// 0.2 m, 1/2000 of such a pixel; at zoom 13 (100 m) by 0.2 mm, at zoom 17
// (6 m) by a micrometre.
const rowAnchor = 8

// ElevationRow samples the DGM layer of datasets with the rules of
// ElevationLevel at the points (lon0 + i*dLonDeg, lat), i < len(out), one
// row of a map tile: out[i] is the height, or NaN outside coverage and on
// NoData. The UTM position of a point is interpolated between exact
// projections (geo.ToUTM) every rowAnchor points, which saves most of the
// projection work of a point-by-point loop. The first unreadable tile ends
// the row with its error (a *TileError); the context is checked per
// dataset.
func ElevationRow(ctx context.Context, datasets []*Dataset, lon0, dLonDeg, lat float64, m Interpolation, level int, out []float64) error {
	for i := range out {
		out[i] = math.NaN()
	}
	n := len(out)
	if n == 0 {
		return nil
	}
	lon1 := lon0 + float64(n-1)*dLonDeg
	row := geo.BBox{MinLon: math.Min(lon0, lon1), MinLat: lat, MaxLon: math.Max(lon0, lon1), MaxLat: lat}
	// The anchors of a 256 px tile row fit on the stack.
	k := (n-1)/rowAnchor + 2
	var stack [2 * 40]float64
	buf := stack[:]
	if 2*k > len(buf) {
		buf = make([]float64, 2*k)
	}
	ax, ay := buf[:k], buf[k:2*k]
	for _, d := range datasets {
		l := d.layers[LayerDGM]
		if l == nil || !d.bboxWGS84.Intersects(row) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		anchors(d.Zone, lon0, dLonDeg, lat, ax, ay)
		for i := range out {
			if !math.IsNaN(out[i]) || !d.mayCover(lon0+float64(i)*dLonDeg, lat) {
				continue
			}
			k, f := i/rowAnchor, float64(i%rowAnchor)/rowAnchor
			x := ax[k] + f*(ax[k+1]-ax[k])
			y := ay[k] + f*(ay[k+1]-ay[k])
			v, _, err := l.SampleLevel(ctx, x, y, m, level)
			switch {
			case err == nil:
				out[i] = v
			case errors.Is(err, ErrNoData), errors.Is(err, ErrOutside):
			default:
				return err
			}
		}
	}
	return nil
}

// anchors projects the points 0, rowAnchor, 2*rowAnchor ... of a row into
// zone z, filling ax and ay (one anchor past the row's last point, so that
// every point lies between two).
func anchors(z geo.Zone, lon0, dLonDeg, lat float64, ax, ay []float64) {
	for k := range ax {
		ax[k], ay[k] = geo.ToUTM(z, lon0+float64(k*rowAnchor)*dLonDeg, lat)
	}
}
