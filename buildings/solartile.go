package buildings

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/image/vector"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/solarstore"
)

// The solar potential map tiles (docs/solar.md, "Map tiles").
const (
	// SolarMinZoom is the first zoom of the solar map tiles: at z14 a
	// pixel is some 6 m at 52° N, a roof facet one or two pixels; below
	// it the map shows nothing a person could read per roof.
	SolarMinZoom = 14
	// SolarMaxZoom is the last zoom rendered (a pixel some 18 cm at
	// 52° N, finer than the centimetre data need not be: clients overzoom).
	SolarMaxZoom = 19
	// SolarTileSize is the side of a solar map tile in pixels.
	SolarTileSize = 256
)

// SolarStop is a stop of the solar colour ramp: the colour of an annual
// irradiation on the facet's plane of KWhM2 kWh/m².
type SolarStop struct {
	KWhM2  float64
	Colour color.NRGBA
}

// SolarRamp is the colour ramp of the solar map tiles: viridis (a
// perceptually uniform sequential ramp that people with the common colour
// vision deficiencies read in the same order, and in greyscale) sampled at
// six stops from 300 kWh/m² (a steep north face) to 1,300 kWh/m² (a south
// face at the best tilt in southern Germany). Colours are interpolated
// linearly in sRGB between stops and held beyond the ends.
var SolarRamp = []SolarStop{
	{300, color.NRGBA{0x44, 0x01, 0x54, 0xff}},
	{500, color.NRGBA{0x41, 0x44, 0x87, 0xff}},
	{700, color.NRGBA{0x2a, 0x78, 0x8e, 0xff}},
	{900, color.NRGBA{0x22, 0xa8, 0x84, 0xff}},
	{1100, color.NRGBA{0x7a, 0xd1, 0x51, 0xff}},
	{1300, color.NRGBA{0xfd, 0xe7, 0x25, 0xff}},
}

// SolarColour is the ramp's colour of kwhM2 kWh/m² (opaque).
func SolarColour(kwhM2 float64) color.NRGBA {
	if math.IsNaN(kwhM2) || kwhM2 <= SolarRamp[0].KWhM2 {
		return SolarRamp[0].Colour
	}
	for i := 1; i < len(SolarRamp); i++ {
		a, b := SolarRamp[i-1], SolarRamp[i]
		if kwhM2 <= b.KWhM2 {
			t := (kwhM2 - a.KWhM2) / (b.KWhM2 - a.KWhM2)
			mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + t*(float64(q)-float64(p)))) }
			return color.NRGBA{mix(a.Colour.R, b.Colour.R), mix(a.Colour.G, b.Colour.G), mix(a.Colour.B, b.Colour.B), 0xff}
		}
	}
	return SolarRamp[len(SolarRamp)-1].Colour
}

// SolarSource is the LoD2 pack of one BL with the solar store computed
// for it.
type SolarSource struct {
	LoD2  lod2store.Source
	Solar *solarstore.Store
}

// SolarSources pairs the published LoD2 packs with their published solar
// stores (SolarStores), leaving out the BLs without one.
func SolarSources(srcs []lod2store.Source, stores map[string]*solarstore.Store) []SolarSource {
	var out []SolarSource
	for _, src := range srcs {
		if st := stores[src.BL]; st != nil {
			out = append(out, SolarSource{LoD2: src, Solar: st})
		}
	}
	return out
}

// SolarTile is a rendered solar map tile.
type SolarTile struct {
	PNG    []byte // SolarTileSize pixels a side, RGBA; transparent where no facet is drawn
	Facets int    // facets drawn
	BL     string // the first BL with a facet in the tile ("" none)
}

// solarFacet is one facet to draw: its rings in pixels and its colour.
type solarFacet struct {
	zM     float64 // mean height of the outer ring: higher facets are drawn over lower ones
	sid    int64
	part   int
	colour color.NRGBA
	xy     []float64 // pixel coordinates of all rings
	ends   []int     // end of each ring in xy
}

// RenderSolarTile draws the Web Mercator tile z/x/y (XYZ, y from the
// north) of the solar map: every roof facet a store of srcs holds filled
// with SolarColour of its annual irradiation, anti-aliased, higher facets
// over lower ones, transparent elsewhere (also where no store is
// published). Errors wrap lod2store.ErrInput for a tile outside
// SolarMinZoom to SolarMaxZoom or off the grid, ErrTileTooLarge, or are a
// *lod2store.DamagedError naming a damaged pack.
func RenderSolarTile(ctx context.Context, srcs []SolarSource, z, x, y int) (SolarTile, error) {
	id := mvt.TileID{Z: z, X: x, Y: y}
	if !id.Valid() || z < SolarMinZoom || z > SolarMaxZoom {
		return SolarTile{}, fmt.Errorf("buildings: solar tile %d/%d/%d: %w", z, x, y, lod2store.ErrInput)
	}
	// One pixel of margin: a facet just outside still shades the edge
	// pixels through anti-aliasing.
	w, s, e, n := id.BufferedWGS84(SolarTileSize, 1)
	bbox := geo.BBox{MinLon: w, MinLat: s, MaxLon: e, MaxLat: n}
	proj := mvt.NewProjector(id, SolarTileSize)
	var out SolarTile
	var facets []solarFacet
	for _, src := range srcs {
		if !bbox.Intersects(src.LoD2.LoD2.BBox()) {
			continue
		}
		before := len(facets)
		var err error
		if facets, err = appendSolarFacets(ctx, facets, src, bbox, proj); err != nil {
			return SolarTile{}, Damaged(src.LoD2, err)
		}
		if out.BL == "" && len(facets) > before {
			out.BL = src.LoD2.BL
		}
	}
	slices.SortStableFunc(facets, func(a, b solarFacet) int {
		return cmp.Or(cmp.Compare(a.zM, b.zM), cmp.Compare(a.sid, b.sid), cmp.Compare(a.part, b.part))
	})
	img := image.NewRGBA(image.Rect(0, 0, SolarTileSize, SolarTileSize))
	var r vector.Rasterizer
	for i := range facets {
		drawFacet(img, &r, &facets[i])
	}
	out.Facets = len(facets)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: pngBuffers}
	if err := enc.Encode(&buf, img); err != nil {
		return SolarTile{}, fmt.Errorf("buildings: solar tile %d/%d/%d: %w", z, x, y, err)
	}
	out.PNG = buf.Bytes()
	return out, nil
}

// pngBuffers reuses the PNG encoder's row and zlib buffers across tiles:
// without it each tile allocates about 1.2 MB for them (a flate writer),
// most of a small tile's cost (BenchmarkRenderSolarTile).
var pngBuffers = &pngPool{}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}

func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }

// appendSolarFacets appends the facets of src's roof surfaces meeting
// bbox that its store holds, projected by proj.
func appendSolarFacets(ctx context.Context, dst []solarFacet, src SolarSource, bbox geo.BBox, proj mvt.Projector) ([]solarFacet, error) {
	var hits []lod2store.FedHit
	one := []lod2store.Source{src.LoD2}
	var after lod2store.Position
	for {
		var next *lod2store.Position
		var damaged []*lod2store.DamagedError
		var err error
		hits, next, damaged, err = lod2store.AppendSearch(ctx, hits, one, bbox, after, tilePage, lod2store.Filter{Class: lod2store.ClassRoof})
		if err != nil {
			return dst, err
		}
		if len(damaged) > 0 {
			return dst, damaged[0]
		}
		if len(hits) > maxTileSurfaces {
			return dst, fmt.Errorf("%w: more than %d surfaces", ErrTileTooLarge, maxTileSurfaces)
		}
		if next == nil {
			break
		}
		after = *next
	}
	if len(hits) == 0 {
		return dst, nil
	}
	sids := make([]int64, len(hits))
	for i, h := range hits {
		sids[i] = h.SurfaceID
	}
	slices.Sort(sids)
	sun := map[facetKey]int64{}
	err := src.Solar.Surfaces(ctx, sids, func(f solarstore.Facet) error {
		sun[facetKey{f.SurfaceID, f.Part}] = f.AnnualWhM2
		return nil
	})
	if err != nil {
		return dst, err
	}
	for _, h := range hits {
		err := eachPolygon(h.Coords, proj, func(part int, xy []float64, ends []int, zM float64) error {
			wh, ok := sun[facetKey{h.SurfaceID, part}]
			if !ok || len(ends) == 0 {
				return nil
			}
			f := solarFacet{sid: h.SurfaceID, part: part, zM: zM, colour: SolarColour(float64(wh) / 1000),
				xy: append([]float64(nil), xy...), ends: append([]int(nil), ends...)}
			start := 0
			for i, end := range f.ends {
				orient(f.xy[start:end], i == 0)
				start = end
			}
			dst = append(dst, f)
			return nil
		})
		if err != nil {
			return dst, fmt.Errorf("roof surface %d: %w", h.SurfaceID, err)
		}
	}
	return dst, nil
}

// eachPolygon calls fn with each polygon of GeoJSON MultiPolygon
// coordinates (WGS84, with or without z) in order (part 0, 1, ...): its
// rings projected by proj (x, y pairs; ends the end of each ring in xy,
// both reused after fn returns) and the mean z of its outer ring's
// positions (0 without z). A byte scanner rather than encoding/json: a z14
// tile decodes thousands of surfaces. Errors wrap lod2store.ErrCorrupt.
func eachPolygon(coords []byte, proj mvt.Projector, fn func(part int, xy []float64, ends []int, zM float64) error) error {
	var xy []float64
	var ends []int
	depth, axis, part, ring, nOuter := 0, 0, 0, 0, 0
	var lon, zSum float64
	for i := 0; i < len(coords); i++ {
		switch coords[i] {
		case '[':
			depth++
			axis = 0
		case ']':
			depth--
			switch depth {
			case 2: // a ring ends
				ends = append(ends, len(xy))
				ring++
			case 1: // a polygon ends
				zM := 0.0
				if nOuter > 0 {
					zM = zSum / float64(nOuter)
				}
				if err := fn(part, xy, ends, zM); err != nil {
					return err
				}
				part++
				xy, ends, ring, nOuter, zSum = xy[:0], ends[:0], 0, 0, 0
			}
		case ',', ' ', '\n', '\r', '\t':
		default:
			if depth != 4 {
				return fmt.Errorf("%w: coordinates at depth %d", lod2store.ErrCorrupt, depth)
			}
			j := i
			for j < len(coords) && coords[j] != ',' && coords[j] != ']' && coords[j] != ' ' {
				j++
			}
			v, err := strconv.ParseFloat(string(coords[i:j]), 64)
			if err != nil {
				return fmt.Errorf("%w: coordinate %q", lod2store.ErrCorrupt, coords[i:j])
			}
			switch axis {
			case 0:
				lon = v
			case 1:
				x, y := proj.Project(lon, v)
				xy = append(xy, x, y)
				if ring == 0 {
					nOuter++
				}
			case 2:
				if ring == 0 {
					zSum += v
				}
			}
			axis++
			i = j - 1
		}
	}
	if depth != 0 {
		return fmt.Errorf("%w: unbalanced coordinates", lod2store.ErrCorrupt)
	}
	return nil
}

// orient turns a ring (x, y pairs) so that outer rings and holes wind in
// opposite directions: the rasterizer adds up the signed coverage of all
// rings of a facet, so a hole must subtract what its outer ring adds,
// whatever order the file wrote them in.
func orient(xy []float64, outer bool) {
	var a float64
	n := len(xy) / 2
	for i := range n {
		j := (i + 1) % n
		a += xy[2*i]*xy[2*j+1] - xy[2*j]*xy[2*i+1]
	}
	if (a > 0) == outer {
		return
	}
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		xy[2*i], xy[2*j] = xy[2*j], xy[2*i]
		xy[2*i+1], xy[2*j+1] = xy[2*j+1], xy[2*i+1]
	}
}

// drawFacet fills f over img: the rasterizer covers only the facet's
// pixel box within the tile, so a tile of many small facets costs their
// area, not the tile's once per facet.
func drawFacet(img *image.RGBA, r *vector.Rasterizer, f *solarFacet) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := 0; i < len(f.xy); i += 2 {
		minX, maxX = math.Min(minX, f.xy[i]), math.Max(maxX, f.xy[i])
		minY, maxY = math.Min(minY, f.xy[i+1]), math.Max(maxY, f.xy[i+1])
	}
	box := image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX)), int(math.Ceil(maxY))).Intersect(img.Rect)
	if box.Empty() {
		return
	}
	r.Reset(box.Dx(), box.Dy())
	ox, oy := float64(box.Min.X), float64(box.Min.Y)
	start := 0
	for _, end := range f.ends {
		ring := f.xy[start:end]
		start = end
		if len(ring) < 6 {
			continue
		}
		r.MoveTo(float32(ring[0]-ox), float32(ring[1]-oy))
		for i := 2; i < len(ring); i += 2 {
			r.LineTo(float32(ring[i]-ox), float32(ring[i+1]-oy))
		}
		r.ClosePath()
	}
	r.Draw(img, box, image.NewUniform(f.colour), image.Point{})
}
