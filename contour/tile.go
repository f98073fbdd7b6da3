// Package contour draws contour lines of the published terrain (DGM1) as
// Mapbox Vector Tiles 2.1 in Web Mercator (docs/terrain-tiles.md,
// "Contours"). The lines are computed as gdal_contour computes them - on
// the DGM's own pixel grid in its UTM zone, marching squares with GDAL's
// level crossing rule and linear interpolation along cell edges - over the
// tile grown by its buffer and a margin, then projected to the tile and
// clipped, so neighbouring tiles meet and the lines agree with gdal_contour
// on the same DGM. It does not depend on HTTP.
package contour

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/terrain"
)

// Tile limits and layout.
const (
	// MinZoom and MaxZoom bound the tiles drawn; clients overzoom beyond
	// MaxZoom (a z18 tile unit is 0.04 m, far below the DGM's pixel).
	MinZoom = 10
	MaxZoom = 18
	// Buffer is the clip buffer in tile units (of mvt.Extent) around the
	// tile, as the building tiles have: a line's stroke at the tile edge
	// is drawn from either tile.
	Buffer = 64
	// Layer is the name of the vector tile layer.
	Layer = "contours"
	// IndexEvery marks every IndexEvery-th level as an index line.
	IndexEvery = 5
	// maxEdge bounds the DGM window read for one tile, in pixels a side:
	// below about zoom 14 the window is read from the COG overviews.
	maxEdge = 2304
)

// ErrTile is a tile address outside MinZoom to MaxZoom or off the grid.
var ErrTile = errors.New("contour: no such tile")

// Interval is the contour interval in metres at zoom z: 50 m at 10 and
// 11, 10 m at 12 and 13, 5 m at 14 and 15, 1 m from 16 (DGM1's vertical
// accuracy is about 0.15 m, so 1 m lines are real relief, not noise).
func Interval(z int) int {
	switch {
	case z <= 11:
		return 50
	case z <= 13:
		return 10
	case z <= 15:
		return 5
	}
	return 1
}

// Tiler draws contour tiles from terrain datasets (every published BL,
// both UTM zones). It holds no state beyond them and is safe for
// concurrent use.
type Tiler struct {
	datasets []*terrain.Dataset
}

// NewTiler returns a tiler over datasets, in the order overlapping
// coverage is read (BL-code order, as the elevation route reads it).
func NewTiler(datasets []*terrain.Dataset) *Tiler { return &Tiler{datasets: datasets} }

// Tile returns vector tile z/x/y (not compressed): layer "contours", one
// LineString (or MultiLineString where the clip cuts it) per contour line
// with elevation_m (metres, DHHN2016, a multiple of Interval(z)) and index
// (every IndexEvery-th level). A tile without lines is empty (no layers).
// Errors: ErrTile, a context error, or a *terrain.TileError for a DGM
// tile that could not be read.
func (t *Tiler) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	id := mvt.TileID{Z: z, X: x, Y: y}
	if !id.Valid() || z < MinZoom || z > MaxZoom {
		return nil, fmt.Errorf("%w: %d/%d/%d (zoom %d to %d)", ErrTile, z, x, y, MinZoom, MaxZoom)
	}
	w, s, e, n := id.BufferedWGS84(mvt.Extent, Buffer)
	box := geo.BBox{MinLon: w, MinLat: s, MaxLon: e, MaxLat: n}
	d := drawing{proj: mvt.NewProjector(id, mvt.Extent), clip: mvt.NewClipper(mvt.Extent, Buffer),
		layer: mvt.NewLayer(Layer, mvt.Extent), interval: Interval(z)}
	var seen []geo.Zone
	for _, ds := range t.datasets {
		if slices.Contains(seen, ds.Zone) {
			continue
		}
		seen = append(seen, ds.Zone)
		if err := t.drawZone(ctx, &d, ds.Zone, box); err != nil {
			return nil, err
		}
	}
	return mvt.AppendTile(nil, d.layer), nil
}

// drawing is one tile being drawn.
type drawing struct {
	proj     mvt.Projector
	clip     *mvt.Clipper
	layer    *mvt.Layer
	interval int
	lines    mvt.Lines
	xy       []float64
}

// drawZone adds the lines of the DGM in zone over box (the buffered tile)
// to the tile; no DGM there adds nothing.
func (t *Tiler) drawZone(ctx context.Context, d *drawing, zone geo.Zone, box geo.BBox) error {
	minE, minN, maxE, maxN := box.ToUTM(zone)
	// A margin beyond the buffer, so the cells a line crosses the clip box
	// in are inside the window: 2 % of the tile (40 window pixels at most
	// resolution) and at least 4 m.
	m := max(4, 0.02*(maxE-minE))
	buf := windows.Get().(*[]float32)
	win, err := terrain.ReadWindow(ctx, t.datasets, terrain.WindowRequest{
		Layer: terrain.LayerDGM, Zone: zone, BBox: [4]float64{minE - m, minN - m, maxE + m, maxN + m}, MaxEdge: maxEdge, Buf: *buf})
	if cap(win.Data) > cap(*buf) {
		*buf = win.Data
	}
	var traced []Line
	if err == nil {
		traced = Trace(win.Data, win.Width, win.Height, float64(d.interval))
	}
	windows.Put(buf)
	if errors.Is(err, terrain.ErrOutside) {
		return nil
	}
	if err != nil {
		return err
	}
	gt := win.GeoTransform
	for _, l := range traced {
		if err := ctx.Err(); err != nil {
			return err
		}
		d.xy = d.xy[:0]
		for k := 0; k < len(l.XY); k += 2 {
			lon, lat := geo.FromUTM(zone, gt[0]+(l.XY[k]+0.5)*gt[1], gt[3]+(l.XY[k+1]+0.5)*gt[5])
			px, py := d.proj.Project(lon, lat)
			d.xy = append(d.xy, px, py)
		}
		d.lines.Reset()
		d.clip.AppendLine(&d.lines, d.xy)
		elev := int64(math.Round(l.Level))
		d.layer.AddLineString(0, d.lines, []mvt.Prop{
			{Key: "elevation_m", Value: mvt.Int(elev)},
			{Key: "index", Value: mvt.Bool(elev%int64(IndexEvery*d.interval) == 0)},
		})
	}
	return nil
}

// windows reuses the DGM windows of finished tiles (11 MB at z14): a
// window is garbage after its lines are traced. A pool, not a field of
// Tiler, because the server makes a Tiler per catalog view and request.
var windows = sync.Pool{New: func() any { return new([]float32) }}
