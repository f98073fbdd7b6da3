// Package hillshade renders Web Mercator map tiles of a terrain model: a
// multidirectional hillshade (the algorithm of `gdaldem hillshade
// -multidirectional`, USGS Open-File Report 92-422) or the same shading
// over an elevation colour ramp.
package hillshade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"runtime"
	"sync"
)

// Heights returns the terrain height at lon, lat (WGS84 degrees), read at
// COG overview level (0: full resolution); ok is false outside the data or
// on NoData.
type Heights func(ctx context.Context, lon, lat float64, level int) (h float64, ok bool, err error)

// Row fills out with the terrain heights at the points (lon0 + i*dLonDeg,
// lat), WGS84 degrees, read at COG overview level: one row of a tile's
// pixel centres. A point without data (outside, NoData) is NaN.
type Row func(ctx context.Context, lon0, dLonDeg, lat float64, level int, out []float64) error

// Row samples h point by point.
func (h Heights) Row() Row {
	return func(ctx context.Context, lon0, dLonDeg, lat float64, level int, out []float64) error {
		for i := range out {
			v, ok, err := h(ctx, lon0+float64(i)*dLonDeg, lat, level)
			if err != nil {
				return err
			}
			if !ok {
				v = math.NaN()
			}
			out[i] = v
		}
		return nil
	}
}

// Style is the look of a tile.
type Style int

const (
	// Shade is grey shading, transparent outside the data.
	Shade Style = iota
	// Hypsometric tints the shading with an elevation colour ramp.
	Hypsometric
)

// Tile limits: the zoom levels tiles are rendered for and the edge sizes.
const (
	MinZoom = 8
	MaxZoom = 20
)

// ErrTile is a tile address outside the pyramid.
var ErrTile = errors.New("hillshade: no such tile")

// Altitude of the light in degrees (gdaldem's default).
const altitudeDeg = 45

const earthHalf = math.Pi * 6378137 // half the Web Mercator extent, metres

// Grid is the heights of a tile's pixel centres with a one-pixel border
// (size+2 square, row 0 at the north), NaN without data, and the pixel size
// in Web Mercator metres.
type Grid struct {
	Size int
	H    []float64
	ResM float64
}

// Sample reads the grid of tile z/x/y with size pixels per edge.
func Sample(ctx context.Context, h Heights, z, x, y, size int) (Grid, error) {
	return SampleRows(ctx, h.Row(), z, x, y, size)
}

// SampleRows is Sample reading a row of pixel centres at a time (a row
// has one latitude, and its longitudes are evenly spaced).
func SampleRows(ctx context.Context, row Row, z, x, y, size int) (Grid, error) {
	if z < MinZoom || z > MaxZoom || x < 0 || y < 0 || x >= 1<<z || y >= 1<<z {
		return Grid{}, fmt.Errorf("%w: %d/%d/%d (zoom %d to %d)", ErrTile, z, x, y, MinZoom, MaxZoom)
	}
	tileM := 2 * earthHalf / float64(int(1)<<z)
	res := tileM / float64(size)
	mx0, my0 := -earthHalf+float64(x)*tileM, earthHalf-float64(y)*tileM
	n := size + 2
	g := Grid{Size: size, H: make([]float64, n*n), ResM: res}
	// The ground size of a pixel picks the overview: the finest level whose
	// pixels (2^level DGM pixels of 1 m) are at most half a tile pixel.
	_, latC := mercToLonLat(mx0+tileM/2, my0-tileM/2)
	ground := res * math.Cos(latC*math.Pi/180)
	level := 0
	for float64(int(1)<<(level+1)) <= ground/2 {
		level++
	}
	rows := make(chan int, n)
	for r := range n {
		rows <- r
	}
	close(rows)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for r := range rows {
				if ctx.Err() != nil {
					once.Do(func() { first = ctx.Err() })
					return
				}
				// One latitude per row: lon is linear in mx, lat depends on my only.
				_, lat := mercToLonLat(0, my0-(float64(r)-0.5)*res)
				if err := row(ctx, (mx0-0.5*res)/earthHalf*180, res/earthHalf*180, lat, level, g.H[r*n:(r+1)*n]); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return g, first
}

func mercToLonLat(mx, my float64) (lon, lat float64) {
	return mx / earthHalf * 180, (2*math.Atan(math.Exp(my/6378137)) - math.Pi/2) * 180 / math.Pi
}

// Shades computes the multidirectional hillshade (1..255, 0 for no data)
// of the grid's inner size x size pixels: Horn's gradient over the 3x3
// window, light at 225, 270, 315 and 360 degrees weighted by the aspect,
// altitude 45, z factor 1. A missing neighbour takes the centre's value.
func (g Grid) Shades() []uint8 {
	n := g.Size + 2
	out := make([]uint8, g.Size*g.Size)
	alt := altitudeDeg * math.Pi / 180
	zf := 1.0 / 8
	sinAlt127, sinAlt254 := 127*math.Sin(alt), 254*math.Sin(alt)
	cosAltZ127 := 127 * math.Cos(alt) * zf
	cos225 := cosAltZ127 * math.Cos(225*math.Pi/180)
	invEW, invNS := 1/g.ResM, -1/g.ResM
	var w [9]float64
	for r := 0; r < g.Size; r++ {
		for c := 0; c < g.Size; c++ {
			centre := g.H[(r+1)*n+c+1]
			if math.IsNaN(centre) {
				continue
			}
			for i := range 9 {
				v := g.H[(r+i/3)*n+c+i%3]
				if math.IsNaN(v) {
					v = centre
				}
				w[i] = v
			}
			x := ((w[0] + 2*w[3] + w[6]) - (w[2] + 2*w[5] + w[8])) * invEW
			y := ((w[6] + 2*w[7] + w[8]) - (w[0] + 2*w[1] + w[2])) * invNS
			xx, yy := x*x, y*y
			s := xx + yy
			var v float64
			if s == 0 {
				v = 1 + sinAlt254
			} else {
				v225 := math.Max(0, sinAlt127+(x-y)*cos225)
				v270 := math.Max(0, sinAlt127-x*cosAltZ127)
				v315 := math.Max(0, sinAlt127+(x+y)*cos225)
				v360 := math.Max(0, sinAlt127-y*cosAltZ127)
				w225 := 0.5*s - x*y
				v = 1 + (w225*v225+xx*v270+(s-w225)*v315+yy*v360)/s/math.Sqrt(1+zf*zf*s)
			}
			out[r*g.Size+c] = uint8(math.Round(math.Min(255, math.Max(1, v))))
		}
	}
	return out
}

// Render draws the grid as an image: grey shading, or shading over the
// elevation ramp; transparent where there is no data.
func (g Grid) Render(style Style) *image.NRGBA {
	shades := g.Shades()
	img := image.NewNRGBA(image.Rect(0, 0, g.Size, g.Size))
	n := g.Size + 2
	for r := 0; r < g.Size; r++ {
		for c := 0; c < g.Size; c++ {
			s := shades[r*g.Size+c]
			if s == 0 {
				continue
			}
			col := color.NRGBA{s, s, s, 255}
			if style == Hypsometric {
				base := ramp(g.H[(r+1)*n+c+1])
				k := 0.35 + 0.65*float64(s)/255
				col = color.NRGBA{uint8(float64(base[0]) * k), uint8(float64(base[1]) * k), uint8(float64(base[2]) * k), 255}
			}
			img.SetNRGBA(c, r, col)
		}
	}
	return img
}

// rampStops is the elevation colour ramp (metres above NHN, sRGB): lowland
// green through yellow and brown to the grey of the Alps.
var rampStops = []struct {
	h   float64
	rgb [3]float64
}{
	{-10, [3]float64{60, 120, 170}}, {0, [3]float64{110, 170, 110}}, {100, [3]float64{150, 195, 120}},
	{300, [3]float64{225, 220, 140}}, {600, [3]float64{205, 165, 100}}, {1200, [3]float64{160, 115, 80}},
	{2000, [3]float64{200, 200, 200}}, {3000, [3]float64{255, 255, 255}},
}

func ramp(h float64) [3]uint8 {
	s := rampStops
	if h <= s[0].h {
		return [3]uint8{uint8(s[0].rgb[0]), uint8(s[0].rgb[1]), uint8(s[0].rgb[2])}
	}
	for i := 1; i < len(s); i++ {
		if h <= s[i].h {
			t := (h - s[i-1].h) / (s[i].h - s[i-1].h)
			var out [3]uint8
			for k := range 3 {
				out[k] = uint8(s[i-1].rgb[k] + t*(s[i].rgb[k]-s[i-1].rgb[k]))
			}
			return out
		}
	}
	l := s[len(s)-1].rgb
	return [3]uint8{uint8(l[0]), uint8(l[1]), uint8(l[2])}
}

// Empty tells a grid without any height (the tile is outside the data).
func (g Grid) Empty() bool {
	for _, v := range g.H {
		if !math.IsNaN(v) {
			return false
		}
	}
	return true
}

// Tile renders tile z/x/y of size pixels per edge in style as the PNG the
// hillshade tile route answers (and `svc export pmtiles` stores): a
// transparent tile where row has no data. Errors are row's and ErrTile.
func Tile(ctx context.Context, row Row, z, x, y, size int, style Style) ([]byte, error) {
	g, err := SampleRows(ctx, row, z, x, y, size)
	if err != nil {
		return nil, err
	}
	return PNG(g.Render(style))
}

// PNG encodes an image for the wire (fast compression: tiles are cached).
func PNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
