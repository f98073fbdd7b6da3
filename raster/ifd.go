package raster

import (
	"context"
	"fmt"
	"sync/atomic"
)

// level is one image of a COG: the full resolution or an overview.
type level struct {
	width, height  int
	blockW, blockH int // tile size, or width x RowsPerStrip for strips
	across, down   int // blocks per row and column
	tiled          bool
	offsets        []uint64
	counts         []uint64
	codec          codec
	gt, inv        [6]float64 // geotransform of this level and its inverse
	// slots point at the cache entries of this level's blocks, so a warm
	// read is one atomic load on the COG's own memory instead of the
	// shared cache's lock (which two cores contend for).
	slots []atomic.Pointer[cacheEntry]
}

// subfileType returns NewSubfileType of d (0 when absent).
func subfileType(ctx context.Context, t *tiffFile, d *ifd) (uint64, error) {
	return t.uint1(ctx, d, tagNewSubfileType, 0)
}

// parseLevel reads the layout and encoding tags of one IFD and checks them
// against the limits of this package.
func parseLevel(ctx context.Context, t *tiffFile, d *ifd) (*level, error) {
	lv := &level{}
	w, err := t.uint1(ctx, d, tagImageWidth, 0)
	if err != nil {
		return nil, err
	}
	h, err := t.uint1(ctx, d, tagImageLength, 0)
	if err != nil {
		return nil, err
	}
	if w == 0 || h == 0 || w > maxImageSide || h > maxImageSide {
		return nil, fmt.Errorf("raster: image of %dx%d pixels: %w", w, h, ErrCorrupt)
	}
	lv.width, lv.height = int(w), int(h)
	if err := parseCodec(ctx, t, d, &lv.codec); err != nil {
		return nil, err
	}
	if err := parseLayout(ctx, t, d, lv); err != nil {
		return nil, err
	}
	return lv, nil
}

// parseCodec reads sample type, compression and predictor.
func parseCodec(ctx context.Context, t *tiffFile, d *ifd, c *codec) error {
	spp, err := t.uint1(ctx, d, tagSamplesPerPixel, 1)
	if err != nil {
		return err
	}
	if spp != 1 {
		return fmt.Errorf("raster: %d samples per pixel: %w", spp, ErrUnsupported)
	}
	vals := [4]uint64{}
	for i, tag := range []uint16{tagBitsPerSample, tagSampleFormat, tagCompression, tagPredictor} {
		if vals[i], err = t.uint1(ctx, d, tag, 1); err != nil {
			return err
		}
	}
	bits, format, comp, pred := vals[0], SampleFormat(vals[1]), Compression(vals[2]), Predictor(vals[3])
	if comp == 32946 {
		comp = CompressionDeflate
	}
	c.bits, c.format, c.compression, c.predictor, c.bo = int(bits), format, comp, pred, t.bo
	switch {
	case format == SampleFloat && (bits == 32 || bits == 64):
	case (format == SampleUint || format == SampleInt) && (bits == 8 || bits == 16 || bits == 32 || bits == 64):
	default:
		return fmt.Errorf("raster: %d-bit samples of format %d: %w", bits, format, ErrUnsupported)
	}
	switch comp {
	case CompressionNone, CompressionLZW, CompressionDeflate, CompressionPackBits, CompressionZSTD:
	default:
		return fmt.Errorf("raster: compression %d: %w", comp, ErrUnsupported)
	}
	if pred < PredictorNone || pred > PredictorFloat {
		return fmt.Errorf("raster: predictor %d: %w", pred, ErrUnsupported)
	}
	return nil
}

// parseLayout reads the tile or strip grid and the block offsets.
func parseLayout(ctx context.Context, t *tiffFile, d *ifd, lv *level) error {
	offTag, cntTag := uint16(tagStripOffsets), uint16(tagStripByteCounts)
	if _, ok := d.entries[tagTileWidth]; ok {
		lv.tiled = true
		offTag, cntTag = tagTileOffsets, tagTileByteCounts
		tw, err := t.uint1(ctx, d, tagTileWidth, 0)
		if err != nil {
			return err
		}
		th, err := t.uint1(ctx, d, tagTileLength, 0)
		if err != nil {
			return err
		}
		if tw == 0 || th == 0 || tw > 1<<16 || th > 1<<16 {
			return fmt.Errorf("raster: tile of %dx%d: %w", tw, th, ErrCorrupt)
		}
		lv.blockW, lv.blockH = int(tw), int(th)
	} else {
		rps, err := t.uint1(ctx, d, tagRowsPerStrip, uint64(lv.height))
		if err != nil {
			return err
		}
		if rps == 0 {
			return fmt.Errorf("raster: RowsPerStrip 0: %w", ErrCorrupt)
		}
		lv.blockW, lv.blockH = lv.width, int(min(rps, uint64(lv.height)))
	}
	if lv.blockW*lv.blockH*(lv.codec.bits/8) > maxBlockBytes {
		return fmt.Errorf("raster: block of %dx%d: %w", lv.blockW, lv.blockH, ErrTooLarge)
	}
	lv.across = (lv.width + lv.blockW - 1) / lv.blockW
	lv.down = (lv.height + lv.blockH - 1) / lv.blockH
	var err error
	var ok1, ok2 bool
	if lv.offsets, ok1, err = t.uints(ctx, d, offTag); err != nil {
		return err
	}
	if lv.counts, ok2, err = t.uints(ctx, d, cntTag); err != nil {
		return err
	}
	n := lv.across * lv.down
	if !ok1 || !ok2 || len(lv.offsets) < n || len(lv.counts) < n {
		return fmt.Errorf("raster: %d block offsets and %d byte counts for %d blocks: %w",
			len(lv.offsets), len(lv.counts), n, ErrCorrupt)
	}
	lv.offsets, lv.counts = lv.offsets[:n], lv.counts[:n]
	return nil
}

// levelTransform scales the full-resolution geotransform to a level of
// width x height pixels, the way GDAL does for overviews.
func levelTransform(gt [6]float64, fullW, fullH, w, h int) [6]float64 {
	sx := float64(fullW) / float64(w)
	sy := float64(fullH) / float64(h)
	return [6]float64{gt[0], gt[1] * sx, gt[2] * sy, gt[3], gt[4] * sx, gt[5] * sy}
}
