package terrain

import (
	"context"
	"fmt"
	"math"

	"github.com/svc-geodata/svc/geo"
)

// Window is a north-up block of a raster layer's pixel grid in one UTM
// zone, as ReadWindow reads it for map tiles that compute on the grid
// (contour lines).
type Window struct {
	Zone geo.Zone
	// GeoTransform places pixel corners in the zone's CRS (GDAL
	// convention, metres, north-up: gt[2] = gt[4] = 0, gt[5] < 0).
	GeoTransform  [6]float64
	Width, Height int
	// Data holds Width*Height values row by row from the north; NaN where
	// no tile holds a value (outside coverage, NoData).
	Data []float32
	// Level is the resolution level: the pixel edge is 2^Level times the
	// full-resolution pixel of the layer.
	Level int
}

// WindowRequest says which part of a layer ReadWindow reads.
type WindowRequest struct {
	Layer string   // LayerDGM, LayerCDSM or LayerTDSM
	Zone  geo.Zone // the CRS of BBox and of the window
	// BBox is minE, minN, maxE, maxN in the zone's CRS (metres).
	BBox [4]float64
	// MaxEdge bounds the window's width and height in pixels: the window
	// takes the finest level 2^L times the full-resolution pixel at which
	// BBox fits (at most 2^16 times coarser).
	MaxEdge int
	// Buf, when large enough, holds the window's Data instead of a new
	// slice, so a caller drawing many tiles can reuse it.
	Buf []float32
}

// ReadWindow reads the layer's pixel grid over r.BBox from every dataset
// in r.Zone: the window's grid is the full-resolution grid of the first
// tile meeting the box (datasets in the given order, tiles by name),
// coarsened 2^Level times and grown to whole pixels; each tile meeting the
// box fills the pixels whose centres it holds (the nearest pixel of its
// coarsest level whose pixel is not larger than the window's), the first
// valid value winning, so a
// grid that continues across tile and BL edges reads as one. ErrOutside:
// no tile of the zone meets the box. A read failure is a *TileError.
func ReadWindow(ctx context.Context, datasets []*Dataset, r WindowRequest) (Window, error) {
	type hit struct {
		l *Layer
		i int
	}
	var hits []hit
	b := r.BBox
	for _, d := range datasets {
		l := d.Layer(r.Layer)
		if d.Zone != r.Zone || l == nil {
			continue
		}
		for i := range l.tiles {
			t := &l.tiles[i].BBox
			if t[0] < b[2] && t[2] > b[0] && t[1] < b[3] && t[3] > b[1] {
				hits = append(hits, hit{l, i})
			}
		}
	}
	if len(hits) == 0 {
		return Window{}, ErrOutside
	}
	c0, err := hits[0].l.open(ctx, hits[0].i)
	if err != nil {
		return Window{}, &TileError{TileID: hits[0].l.TileID(hits[0].i), Err: err}
	}
	gt0 := c0.LevelGeoTransform(0)
	if gt0[2] != 0 || gt0[4] != 0 || gt0[1] <= 0 || gt0[5] >= 0 {
		return Window{}, &TileError{TileID: hits[0].l.TileID(hits[0].i), Err: fmt.Errorf("terrain: grid not north-up: %v", gt0)}
	}
	w := Window{Zone: r.Zone}
	px := gt0[1]
	for ; w.Level < 16; w.Level++ {
		if math.Max(b[2]-b[0], b[3]-b[1])/px <= float64(max(r.MaxEdge, 1)) {
			break
		}
		px *= 2
	}
	kx0, kx1 := math.Floor((b[0]-gt0[0])/px), math.Ceil((b[2]-gt0[0])/px)
	ky0, ky1 := math.Floor((gt0[3]-b[3])/px), math.Ceil((gt0[3]-b[1])/px)
	w.Width, w.Height = int(kx1-kx0), int(ky1-ky0)
	w.GeoTransform = [6]float64{gt0[0] + kx0*px, px, 0, gt0[3] - ky0*px, 0, -px}
	if cap(r.Buf) >= w.Width*w.Height {
		w.Data = r.Buf[:w.Width*w.Height]
	} else {
		w.Data = make([]float32, w.Width*w.Height)
	}
	nan := float32(math.NaN())
	for i := range w.Data {
		w.Data[i] = nan
	}
	for _, h := range hits {
		c, err := h.l.open(ctx, h.i)
		if err != nil {
			return Window{}, &TileError{TileID: h.l.TileID(h.i), Err: err}
		}
		level := 0
		for level+1 < c.Levels() && c.LevelGeoTransform(level + 1)[1] <= px*1.001 {
			level++
		}
		if err := c.FillWindow(ctx, level, w.GeoTransform, w.Width, w.Height, w.Data); err != nil {
			return Window{}, &TileError{TileID: h.l.TileID(h.i), Err: err}
		}
	}
	return w, nil
}
