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

// Format names how tiles are drawn; it changes with any change of their
// bytes for the same data (2: pixels without data carry a filled height),
// so a cache key holding it never serves an older drawing.
const Format = "2"

// ErrTile is a tile address outside the pyramid.
var ErrTile = errors.New("demtile: no such tile")

// NoData is how a tile marks its pixels without a height. Either way such
// a pixel's colour is a filled height (FillNearest): a browser drops the
// colour of a transparent pixel (its canvas stores colours premultiplied
// by alpha) and MapLibre, which never reads alpha, then takes the
// encoding's lowest height, a pit of 10 km; only the opaque mark gives
// MapLibre the filled height.
type NoData int

const (
	// Transparent gives a pixel without a height alpha 0: the mark for
	// clients that decode the PNG themselves (GDAL, numpy).
	Transparent NoData = iota
	// Opaque draws it like any other: for MapLibre's raster-dem sources.
	Opaque
)

// String is the name of the mark in the API (the nodata parameter).
func (m NoData) String() string {
	if m == Opaque {
		return "fill"
	}
	return "transparent"
}

// Tiler renders the tiles of one encoding from a terrain model. It is safe
// for concurrent use.
type Tiler struct {
	row  hillshade.Row
	enc  Encoding
	mark NoData
}

// New returns a Tiler sampling row (DGM for the published terrain;
// hillshade.Heights.Row for any height function) that marks pixels
// without a height as mark says.
func New(row hillshade.Row, enc Encoding, mark NoData) *Tiler {
	return &Tiler{row: row, enc: enc, mark: mark}
}

// Tile renders tile z/x/y (XYZ, y from the north) as a 256 px PNG. Pixels
// without a height (outside the data, NoData) carry a filled height in
// their colour (FillNearest within the tile and its border; from the
// nearest ancestor tile with data when the tile has none, NoDataHeightM
// when no ancestor down to MinZoom has any) and, with the Transparent
// mark, alpha 0; a tile with every pixel opaque is an RGB PNG without
// alpha channel.
// Errors: ErrTile for an address outside zoom MinZoom..MaxZoom or 2^z, a
// context error, or what the heights returned (a *terrain.TileError for
// an unreadable DGM tile).
func (t *Tiler) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	if z < MinZoom || z > MaxZoom || x < 0 || y < 0 || x >= 1<<z || y >= 1<<z {
		return nil, fmt.Errorf("%w: %d/%d/%d (zoom %d to %d)", ErrTile, z, x, y, MinZoom, MaxZoom)
	}
	g, err := hillshade.SampleRows(ctx, t.row, z, x, y, TileSize)
	if err != nil {
		return nil, fmt.Errorf("demtile: tile %d/%d/%d: %w", z, x, y, err)
	}
	noData, ok := FillNearest(g)
	if !ok {
		if noData, err = t.fillFromAncestor(ctx, g, z, x, y); err != nil {
			return nil, fmt.Errorf("demtile: tile %d/%d/%d: %w", z, x, y, err)
		}
	}
	if t.mark == Opaque {
		noData = nil
	}
	return EncodePNG(Encode(g, noData, t.enc))
}

// NoDataHeightM is the height of a tile without data whose ancestors down
// to MinZoom have none either (open sea, far abroad): sea level.
const NoDataHeightM = 0.0

// fillFromAncestor fills g, tile z/x/y without a valid pixel, from the
// nearest ancestor tile with data (filled by FillNearest, bilinear at g's
// pixel centres), or with NoDataHeightM. It returns the mask of g: all
// no data.
func (t *Tiler) fillFromAncestor(ctx context.Context, g hillshade.Grid, z, x, y int) ([]bool, error) {
	n := g.Size + 2
	noData := make([]bool, n*n)
	for i := range noData {
		noData[i], g.H[i] = true, NoDataHeightM
	}
	for k := 1; z-k >= MinZoom; k++ {
		pz, px, py := z-k, x>>k, y>>k
		p, err := hillshade.SampleRows(ctx, t.row, pz, px, py, TileSize)
		if err != nil {
			return nil, fmt.Errorf("ancestor %d/%d/%d: %w", pz, px, py, err)
		}
		if _, ok := FillNearest(p); !ok {
			continue
		}
		// Pixel column c of g (border at 0) has its centre at tile
		// fraction (c-0.5)/size; in p that is a fraction of the ancestor
		// offset by the tile's place among its 2^k x 2^k descendants.
		scale := float64(int(1) << k)
		ox, oy := float64(x-px<<k), float64(y-py<<k)
		at := func(c int, off float64) float64 { // grid coordinate in p
			return ((off+(float64(c)-0.5)/float64(g.Size))/scale)*float64(g.Size) + 0.5
		}
		for r := range n {
			pr := at(r, oy)
			for c := range n {
				g.H[r*n+c] = bilinear(p, at(c, ox), pr)
			}
		}
		return noData, nil
	}
	return noData, nil
}

// bilinear interpolates grid g (no NaN) at grid coordinates (col, row),
// pixel centres at integers, clamped to the grid.
func bilinear(g hillshade.Grid, col, row float64) float64 {
	n := g.Size + 2
	col, row = min(max(col, 0), float64(n-1)), min(max(row, 0), float64(n-1))
	c0, r0 := min(int(col), n-2), min(int(row), n-2)
	fc, fr := col-float64(c0), row-float64(r0)
	h := g.H[r0*n+c0 : r0*n+c0+n+2]
	return (h[0]*(1-fc)+h[1]*fc)*(1-fr) + (h[n]*(1-fc)+h[n+1]*fc)*fr
}

// Encode packs the inner size x size heights of g (its one-pixel border is
// not drawn) into an image: the encoded height in every pixel, alpha 255
// where noData is false or nil, 0 where it is true. Heights beyond the
// encoding's range take its nearest end; a NaN left in g is drawn as all
// zero (transparent, the encoding's lowest height).
func Encode(g hillshade.Grid, noData []bool, enc Encoding) *image.NRGBA {
	n, size := g.Size+2, g.Size
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for r := range size {
		i0 := (r+1)*n + 1
		row := g.H[i0 : i0+size]
		pix := img.Pix[r*img.Stride : r*img.Stride+4*size]
		for c, h := range row {
			if math.IsNaN(h) {
				continue
			}
			p := pix[4*c : 4*c+4 : 4*c+4]
			p[0], p[1], p[2] = pack(h, enc)
			if noData == nil || !noData[i0+c] {
				p[3] = 255
			}
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

// OpaquePNG turns a tile Tile drew with the Transparent mark into the tile
// it draws with Opaque: the filled heights are in the colour of every
// pixel either way, so only alpha changes. An offline bundle stores the
// transparent tiles (the route's default) and answers nodata=fill with
// this, byte for byte what the live route answers.
func OpaquePNG(tile []byte) ([]byte, error) {
	m, err := png.Decode(bytes.NewReader(tile))
	if err != nil {
		return nil, fmt.Errorf("demtile: opaque: %w", err)
	}
	b := m.Bounds()
	img := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src := m.(type) {
	case *image.NRGBA: // alpha 0 keeps its colour here (not premultiplied)
		for y := range b.Dy() {
			copy(img.Pix[y*img.Stride:y*img.Stride+4*b.Dx()], src.Pix[y*src.Stride:y*src.Stride+4*b.Dx()])
		}
	case *image.RGBA: // every pixel opaque already (an RGB PNG)
		for y := range b.Dy() {
			copy(img.Pix[y*img.Stride:y*img.Stride+4*b.Dx()], src.Pix[y*src.Stride:y*src.Stride+4*b.Dx()])
		}
	default:
		return nil, fmt.Errorf("demtile: opaque: a %T is no tile of Tile", m)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return EncodePNG(img)
}
