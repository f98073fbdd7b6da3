package raster

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// cogTile is the tile size WriteCOG uses, in pixels.
const cogTile = 512

// ghostArea is GDAL's hidden structural metadata, written between the header
// and the first IFD; it promises the layout GDAL's COG driver produces.
const ghostArea = "LAYOUT=IFDS_BEFORE_DATA\nBLOCK_ORDER=ROW_MAJOR\nBLOCK_LEADER=SIZE_AS_UINT4\n" +
	"BLOCK_TRAILER=LAST_4_BYTES_REPEATED\nKNOWN_INCOMPATIBLE_EDITION=NO\n"

// WriteOptions tunes WriteCOG. The zero value writes DEFLATE, level 6.
type WriteOptions struct {
	// Compression is CompressionDeflate (also for the zero value) or
	// CompressionZSTD; both use the floating-point predictor 3.
	Compression Compression
	// Level is the DEFLATE level 1-9 or the ZSTD level 1-22; 0 is the
	// default (6 for DEFLATE, 3 for ZSTD).
	Level int
	// BigTIFF forces BigTIFF; it is chosen anyway when the file would not
	// fit classic TIFF's 4 GiB.
	BigTIFF bool
	// Sparse omits tiles whose pixels are all nodata (GDAL's SPARSE_OK);
	// readers return nodata for them.
	Sparse bool
}

// wlevel is one level being written: its pixels and compressed tiles.
type wlevel struct {
	width, height  int
	across, down   int
	data           []float32
	tiles          [][]byte // nil for an omitted sparse tile
	offsets, sizes []uint64
}

// WriteCOG writes g to w as a Cloud Optimized GeoTIFF: float32, 512x512
// tiles, predictor 3 with DEFLATE or ZSTD, overviews averaging the valid
// pixels down to a single tile, GeoKeys for g.EPSG, GDAL_NODATA, and GDAL's
// COG layout (ghost area, IFDs first, then tile data from the smallest
// overview to full resolution, each tile with a size leader and a repeated
// trailer). Compressed tiles are held in memory until written. Errors: an
// invalid grid or options, or the error of w.
func WriteCOG(w io.Writer, g Grid, opts WriteOptions) error {
	if err := g.validate(); err != nil {
		return err
	}
	if opts.Compression == 0 {
		opts.Compression = CompressionDeflate
	}
	if opts.Compression != CompressionDeflate && opts.Compression != CompressionZSTD {
		return fmt.Errorf("raster: write compression %v: %w", opts.Compression, ErrUnsupported)
	}
	levels := buildLevels(g)
	if err := compressLevels(levels, g, opts); err != nil {
		return err
	}
	big := opts.BigTIFF
	total := layout(levels, g, big)
	if !big && total > math.MaxUint32 {
		big = true
		layout(levels, g, big)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := writeFile(bw, levels, g, big, opts.Compression); err != nil {
		return err
	}
	return bw.Flush()
}

// buildLevels returns the full-resolution level and its overviews, halving
// until a level fits in one tile.
func buildLevels(g Grid) []*wlevel {
	fill, valid := writeFill(g)
	levels := []*wlevel{{width: g.Width, height: g.Height, data: g.Data}}
	for last := levels[0]; last.width > cogTile || last.height > cogTile; last = levels[len(levels)-1] {
		d, w, h := downsample(last.data, last.width, last.height, valid, fill)
		levels = append(levels, &wlevel{width: w, height: h, data: d})
	}
	for _, lv := range levels {
		lv.across = (lv.width + cogTile - 1) / cogTile
		lv.down = (lv.height + cogTile - 1) / cogTile
		lv.tiles = make([][]byte, lv.across*lv.down)
	}
	return levels
}

// writeFill returns the value padding tiles and empty overview pixels
// (nodata, or NaN without nodata) and the validity test for a pixel.
func writeFill(g Grid) (float32, func(float32) bool) {
	if g.Nodata == nil {
		return float32(math.NaN()), func(v float32) bool { return v == v }
	}
	nd := float32(*g.Nodata)
	return nd, func(v float32) bool { return v == v && v != nd }
}

// compressLevels fills every level's tiles, compressing on all cores.
func compressLevels(levels []*wlevel, g Grid, opts WriteOptions) error {
	type job struct{ lv, tile int }
	var jobs []job
	for li, lv := range levels {
		for t := range lv.tiles {
			jobs = append(jobs, job{li, t})
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		failure error
	)
	for range workers {
		comp, err := newCompressor(opts)
		if err != nil {
			return err
		}
		wg.Go(func() {
			tw := newTileWriter(g)
			for i := int(next.Add(1)) - 1; i < len(jobs); i = int(next.Add(1)) - 1 {
				j := jobs[i]
				lv := levels[j.lv]
				raw, empty := tw.tile(lv, j.tile)
				if empty && opts.Sparse {
					continue
				}
				out, err := comp(raw)
				if err != nil {
					errOnce.Do(func() { failure = fmt.Errorf("raster: compress tile %d: %w", j.tile, err) })
					return
				}
				lv.tiles[j.tile] = out
			}
		})
	}
	wg.Wait()
	return failure
}

// newCompressor returns a function compressing one tile; it is used by one
// goroutine only.
func newCompressor(opts WriteOptions) (func([]byte) ([]byte, error), error) {
	if opts.Compression == CompressionZSTD {
		lvl := zstd.SpeedDefault
		if opts.Level > 0 {
			lvl = zstd.EncoderLevelFromZstd(opts.Level)
		}
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return func(b []byte) ([]byte, error) { return enc.EncodeAll(b, nil), nil }, nil
	}
	lvl := 6
	if opts.Level > 0 {
		lvl = min(opts.Level, 9)
	}
	zw, err := zlib.NewWriterLevel(io.Discard, lvl)
	if err != nil {
		return nil, err
	}
	var buf bytesBuffer
	return func(b []byte) ([]byte, error) {
		buf = buf[:0]
		zw.Reset(&buf)
		if _, err := zw.Write(b); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return append([]byte(nil), buf...), nil
	}, nil
}

// bytesBuffer is a minimal append-only io.Writer.
type bytesBuffer []byte

// Write appends p.
func (b *bytesBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// tileWriter cuts tiles out of a level and applies predictor 3.
type tileWriter struct {
	fill     float32
	valid    func(float32) bool
	raw, out []byte
}

// newTileWriter returns a tileWriter with buffers for one 512x512 tile.
func newTileWriter(g Grid) *tileWriter {
	fill, valid := writeFill(g)
	return &tileWriter{fill: fill, valid: valid, raw: make([]byte, cogTile*cogTile*4), out: make([]byte, cogTile*cogTile*4)}
}

// tile returns the predicted bytes of tile t of lv (valid until the next
// call) and whether all its in-image pixels are invalid.
func (tw *tileWriter) tile(lv *wlevel, t int) ([]byte, bool) {
	x0, y0 := (t%lv.across)*cogTile, (t/lv.across)*cogTile
	fillBits := math.Float32bits(tw.fill)
	empty := true
	for r := range cogTile {
		row := tw.raw[r*cogTile*4 : (r+1)*cogTile*4]
		y := y0 + r
		for c := range cogTile {
			bits := fillBits
			if x := x0 + c; y < lv.height && x < lv.width {
				v := lv.data[y*lv.width+x]
				bits = math.Float32bits(v)
				if empty && tw.valid(v) {
					empty = false
				}
			}
			binary.LittleEndian.PutUint32(row[4*c:], bits)
		}
	}
	applyFloat(tw.out, tw.raw, cogTile, 4)
	return tw.out, empty
}

// nodataString formats nodata for GDAL_NODATA as GDAL does.
func nodataString(v float64) string {
	if math.IsNaN(v) {
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
