package raster

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
)

// Info describes an opened GeoTIFF.
type Info struct {
	Width, Height int  // full-resolution size in pixels
	TileWidth     int  // block width in pixels; equals Width for strips
	TileHeight    int  // block height in pixels; RowsPerStrip for strips
	Tiled         bool // false for a stripped layout
	BigTIFF       bool
	SampleFormat  SampleFormat
	BitsPerSample int
	Compression   Compression
	Predictor     Predictor
	// EPSG is ProjectedCSTypeGeoKey (or GeographicTypeGeoKey for a
	// geographic model); 0 when absent or user-defined.
	EPSG int
	// GeoTransform maps pixel corners to raster CRS coordinates in GDAL's
	// convention: X = gt[0] + col*gt[1] + row*gt[2], Y = gt[3] + col*gt[4] +
	// row*gt[5]. PixelIsPoint files are shifted by half a pixel like GDAL
	// does. Without georeferencing it is (0, 1, 0, 0, 0, 1).
	GeoTransform [6]float64
	PixelIsPoint bool
	Nodata       *float64 // GDAL_NODATA; nil when absent
	Overviews    int      // internal overview levels
}

// Bounds returns the extent of the raster in its CRS (minimum and maximum
// X and Y over the four corners).
func (i Info) Bounds() (minX, minY, maxX, maxY float64) {
	gt := i.GeoTransform
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{0, 0}, {float64(i.Width), 0}, {0, float64(i.Height)}, {float64(i.Width), float64(i.Height)}} {
		x := gt[0] + c[0]*gt[1] + c[1]*gt[2]
		y := gt[3] + c[0]*gt[4] + c[1]*gt[5]
		minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
	}
	return minX, minY, maxX, maxY
}

// COG is an opened GeoTIFF (cloud optimized or not) whose tiles are read on
// demand through its Source and kept in its Cache. It is safe for
// concurrent use.
type COG struct {
	src       *prefixSource
	cache     *Cache
	id        uint64
	levels    []*level // 0 is full resolution, then overviews, largest first
	info      Info
	hasNodata bool
	nodata    float64
	nodata32  float32
}

// Open parses the header and IFDs of the GeoTIFF in src, reading its first
// 32 KiB once (one request for a remote COG whose IFDs come first) plus any
// tag arrays stored beyond. Decoded tiles go to cache; nil gives the COG a
// private cache of DefaultCacheBytes. The caller keeps ownership of src.
// Errors wrap ErrCorrupt, ErrUnsupported or the source's error
// (ErrUnavailable for an unreachable HTTP source).
func Open(ctx context.Context, src Source, cache *Cache) (*COG, error) {
	if cache == nil {
		cache = NewCache(0)
	}
	ps, err := newPrefixSource(ctx, src, 32<<10)
	if err != nil {
		return nil, err
	}
	t, first, err := parseHeader(ps)
	if err != nil {
		return nil, err
	}
	ifds, err := t.readIFDs(ctx, first)
	if err != nil {
		return nil, err
	}
	main, err := parseLevel(ctx, t, ifds[0])
	if err != nil {
		return nil, fmt.Errorf("raster: main image: %w", err)
	}
	c := &COG{src: ps, cache: cache, id: cache.newID(), levels: []*level{main}}
	if err := c.readOverviews(ctx, t, ifds[1:]); err != nil {
		return nil, err
	}
	g, err := readGeoref(ctx, t, ifds[0])
	if err != nil {
		return nil, err
	}
	if err := c.finish(t, g); err != nil {
		return nil, err
	}
	ps.release()
	return c, nil
}

// readOverviews adds the reduced-resolution IFDs that match the main image,
// skipping masks and unrelated pages, sorted from largest to smallest.
func (c *COG) readOverviews(ctx context.Context, t *tiffFile, ifds []*ifd) error {
	main := c.levels[0]
	for _, d := range ifds {
		st, err := subfileType(ctx, t, d)
		if err != nil {
			return err
		}
		if st&subfileReducedImage == 0 || st&subfileMask != 0 {
			continue
		}
		lv, err := parseLevel(ctx, t, d)
		if err != nil {
			return fmt.Errorf("raster: overview: %w", err)
		}
		if lv.width > main.width || lv.height > main.height ||
			lv.codec.format != main.codec.format || lv.codec.bits != main.codec.bits {
			continue
		}
		c.levels = append(c.levels, lv)
	}
	slices.SortStableFunc(c.levels[1:], func(a, b *level) int { return cmp.Compare(b.width, a.width) })
	return nil
}

// finish fills Info and the per-level transforms from the georeferencing.
func (c *COG) finish(t *tiffFile, g georef) error {
	main := c.levels[0]
	for _, lv := range c.levels {
		lv.slots = make([]atomic.Pointer[cacheEntry], len(lv.offsets))
		lv.codec.zstd = c.cache.decoder
		lv.gt = levelTransform(g.gt, main.width, main.height, lv.width, lv.height)
		inv, ok := invGeoTransform(lv.gt)
		if !ok {
			return fmt.Errorf("raster: geotransform %v is not invertible: %w", g.gt, ErrCorrupt)
		}
		lv.inv = inv
	}
	c.info = Info{
		Width: main.width, Height: main.height, TileWidth: main.blockW, TileHeight: main.blockH,
		Tiled: main.tiled, BigTIFF: t.big, SampleFormat: main.codec.format,
		BitsPerSample: main.codec.bits, Compression: main.codec.compression,
		Predictor: main.codec.predictor, EPSG: g.epsg, GeoTransform: g.gt,
		PixelIsPoint: g.pixelIsPoint, Overviews: len(c.levels) - 1,
	}
	if g.nodata != nil {
		c.hasNodata, c.nodata, c.nodata32 = true, *g.nodata, float32(*g.nodata)
	}
	return nil
}

// Info returns the description of the raster. The Nodata pointer is a copy.
func (c *COG) Info() Info {
	i := c.info
	if c.hasNodata {
		v := c.nodata
		i.Nodata = &v
	}
	return i
}

// Close drops the COG's tiles from the shared cache. It does not close the
// Source, which the caller owns. The COG must not be used afterwards.
func (c *COG) Close() error {
	c.cache.drop(c.id)
	return nil
}

// block returns decoded block idx of level li, from the cache or the source.
func (c *COG) block(ctx context.Context, li, idx int) (*block, error) {
	slot := &c.levels[li].slots[idx]
	if e := slot.Load(); e != nil {
		if b := e.blk.Load(); b != nil {
			c.cache.touch(e)
			return b, nil
		}
	}
	k := cacheKey{cog: c.id, level: int32(li), tile: int32(idx)}
	return c.cache.get(ctx, k, slot, func() (*block, error) { return c.loadBlock(ctx, li, idx) })
}

// loadBlock reads and decodes block idx of level li. Sparse blocks (byte
// count 0) read as nodata, or 0 without nodata, as in GDAL.
func (c *COG) loadBlock(ctx context.Context, li, idx int) (*block, error) {
	lv := c.levels[li]
	bx, by := idx%lv.across, idx/lv.across
	rows := lv.blockH
	if !lv.tiled {
		rows = min(lv.blockH, lv.height-by*lv.blockH)
	}
	off, n := lv.offsets[idx], lv.counts[idx]
	if n == 0 || off == 0 {
		if c.hasNodata {
			return &block{fill: c.nodata}, nil
		}
		return &block{}, nil
	}
	wrap := func(err error) error {
		return fmt.Errorf("raster: level %d tile %d (col %d, row %d): %w", li, idx, bx, by, err)
	}
	if n > maxBlockBytes || off > math.MaxInt64-n {
		return nil, wrap(fmt.Errorf("%d bytes at %d: %w", n, off, ErrCorrupt))
	}
	data, err := c.src.read(ctx, int64(off), int(n))
	if err != nil {
		return nil, wrap(err)
	}
	b, err := lv.codec.decode(data, lv.blockW, rows)
	if err != nil {
		return nil, wrap(err)
	}
	return b, nil
}
