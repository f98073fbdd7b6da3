// Package demtile renders terrain heights as Web Mercator PNG tiles for
// MapLibre GL JS's raster-dem sources (3D terrain, hillshade layers): the
// Mapbox terrain-RGB encoding (height = -10000 + (R*65536 + G*256 + B) *
// 0.1 m) and Terrarium (height = R*256 + G + B/256 - 32768 m).
//
// The heights are sampled with the machinery of the hillshade tiles
// (hillshade.SampleRows over terrain.ElevationRow: bilinear at the tile's
// pixel centres, from a COG overview when a tile pixel covers several DGM
// pixels, every published BL in both UTM zones); the package does not
// depend on HTTP, so the API, the PMTiles exporter and the tests call the
// same Tiler.Tile:
//
//	png, err := demtile.New(demtile.DGM(datasets), demtile.TerrainRGB).Tile(ctx, z, x, y)
package demtile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"sync"

	"github.com/svc-geodata/svc/hillshade"
	"github.com/svc-geodata/svc/terrain"
)

// Encoding is how a height is packed into a pixel's red, green and blue.
type Encoding int

const (
	// TerrainRGB is Mapbox terrain-RGB: steps of 0.1 m from -10000 m
	// (MapLibre's encoding "mapbox").
	TerrainRGB Encoding = iota
	// Terrarium is Mapzen's Terrarium: steps of 1/256 m from -32768 m
	// (MapLibre's encoding "terrarium").
	Terrarium
)

// String is the name MapLibre and TileJSON give the encoding.
func (e Encoding) String() string {
	if e == Terrarium {
		return "terrarium"
	}
	return "mapbox"
}

// Tile limits: the zoom levels tiles exist for and the edge in pixels.
// z 17 pixels (about 0.77 m on the ground in Germany) already resolve the
// 1 m DGM; MapLibre overzooms beyond the source's maxzoom.
const (
	MinZoom  = 8
	MaxZoom  = 17
	TileSize = 256
)

// ErrTile is a tile address outside the pyramid.
var ErrTile = errors.New("demtile: no such tile")

// Tiler renders the tiles of one encoding from a terrain model. It is safe
// for concurrent use.
type Tiler struct {
	row hillshade.Row
	enc Encoding
}

// New returns a Tiler sampling row (DGM for the published terrain;
// hillshade.Heights.Row for any height function).
func New(row hillshade.Row, enc Encoding) *Tiler { return &Tiler{row: row, enc: enc} }

// Tile renders tile z/x/y (XYZ, y from the north) as a 256 px PNG. Pixels
// without a height (outside the data, NoData) are transparent (alpha 0);
// a tile without any is a fully transparent PNG; a tile with a height in
// every pixel is an RGB PNG without alpha channel. Errors: ErrTile for an
// address outside zoom MinZoom..MaxZoom or 2^z, a context error, or what
// the heights returned (a *terrain.TileError for an unreadable DGM tile).
func (t *Tiler) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	if z < MinZoom || z > MaxZoom || x < 0 || y < 0 || x >= 1<<z || y >= 1<<z {
		return nil, fmt.Errorf("%w: %d/%d/%d (zoom %d to %d)", ErrTile, z, x, y, MinZoom, MaxZoom)
	}
	g, err := hillshade.SampleRows(ctx, t.row, z, x, y, TileSize)
	if err != nil {
		return nil, fmt.Errorf("demtile: tile %d/%d/%d: %w", z, x, y, err)
	}
	return EncodePNG(Encode(g, t.enc))
}

// Encode packs the inner size x size heights of g (its one-pixel border is
// not drawn) into an image: alpha 255 and the encoded height where g has
// a value, all zero where it is NaN. Heights beyond the encoding's range
// take its nearest end.
func Encode(g hillshade.Grid, enc Encoding) *image.NRGBA {
	n, size := g.Size+2, g.Size
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for r := range size {
		row := g.H[(r+1)*n+1 : (r+1)*n+1+size]
		pix := img.Pix[r*img.Stride : r*img.Stride+4*size]
		for c, h := range row {
			if math.IsNaN(h) {
				continue
			}
			p := pix[4*c : 4*c+4 : 4*c+4]
			p[0], p[1], p[2] = pack(h, enc)
			p[3] = 255
		}
	}
	return img
}

// pack encodes one height, rounded to the nearest step.
func pack(h float64, enc Encoding) (r, g, b uint8) {
	var v float64
	if enc == Terrarium {
		v = math.Round((h + 32768) * 256)
	} else {
		v = math.Round((h + 10000) * 10)
	}
	n := uint32(min(max(v, 0), 1<<24-1))
	return uint8(n >> 16), uint8(n >> 8), uint8(n)
}

// Decode is the height of an encoded pixel, as MapLibre unpacks it
// (metres, DHHN2016 for the DGM).
func Decode(r, g, b uint8, enc Encoding) float64 {
	if enc == Terrarium {
		return float64(r)*256 + float64(g) + float64(b)/256 - 32768
	}
	return -10000 + float64(uint32(r)<<16|uint32(g)<<8|uint32(b))*0.1
}

// Step is the height resolution of an encoding in metres: half of it is
// the largest rounding error of Encode.
func (e Encoding) Step() float64 {
	if e == Terrarium {
		return 1.0 / 256
	}
	return 0.1
}

// pngEncoder is the fastest zlib level with pooled compressor state: tiles
// are cached after the first request, so encoding time matters more than
// the last few per cent of size.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &bufferPool{}}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() *png.EncoderBuffer {
	if v, ok := b.p.Get().(*png.EncoderBuffer); ok {
		return v
	}
	return nil
}

func (b *bufferPool) Put(v *png.EncoderBuffer) { b.p.Put(v) }

// EncodePNG writes img as PNG: RGB when every pixel is opaque (image/png
// drops the alpha channel of an opaque image), RGBA otherwise.
func EncodePNG(img *image.NRGBA) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(64 << 10)
	if err := pngEncoder.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("demtile: png: %w", err)
	}
	return b.Bytes(), nil
}

// DGM samples the DGM layer of datasets a tile row at a time (in BL
// order, bilinear: terrain.ElevationRow, the rules of
// terrain.ElevationLevel): no coverage and NoData are NaN, an unreadable
// tile is an error.
func DGM(datasets []*terrain.Dataset) hillshade.Row {
	return func(ctx context.Context, lon0, dLonDeg, lat float64, level int, out []float64) error {
		return terrain.ElevationRow(ctx, datasets, lon0, dLonDeg, lat, terrain.Bilinear, level, out)
	}
}
