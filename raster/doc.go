// Package raster reads and writes single-band GeoTIFF rasters, in particular
// Cloud Optimized GeoTIFFs (COG), without GDAL or cgo.
//
// The reader handles classic TIFF and BigTIFF, tiled and stripped layouts,
// integer and floating-point samples, DEFLATE, LZW, ZSTD and PackBits, the
// horizontal (2) and floating-point (3) predictors, GeoKeys, GDAL_NODATA,
// internal overviews and sparse tiles. It reads only the bytes it needs
// through a [Source], so the same code samples a local file or a COG served
// by HTTP range requests (the pass-through source of spec section 2.7).
// Decoded tiles live in a [Cache] bounded in bytes and shared by all COGs.
//
// The writer ([WriteCOG]) produces float32 COGs with 512 px tiles, DEFLATE
// or ZSTD with predictor 3, averaged overviews and GDAL_NODATA, in the layout
// GDAL's validate_cloud_optimized_geotiff.py accepts.
//
// References: TIFF 6.0, BigTIFF, OGC GeoTIFF 1.1 (19-008r4), OGC COG 1.0
// (21-026), and libtiff's predictor conventions.
package raster

import "errors"

var (
	// ErrCorrupt reports a file or tile whose bytes do not form a valid
	// GeoTIFF (bad header, out-of-range offsets, undecodable tile data).
	ErrCorrupt = errors.New("raster: corrupt file")
	// ErrUnsupported reports a valid TIFF using a feature this package does
	// not read (JPEG compression, several bands, 1-bit samples, ...).
	ErrUnsupported = errors.New("raster: unsupported file")
	// ErrUnavailable reports a source that cannot be read right now: a
	// network failure, an HTTP 5xx or other non-range answer, or a server
	// ignoring the Range header. The API maps it to 502.
	ErrUnavailable = errors.New("raster: source unavailable")
	// ErrTooLarge reports a request that would exceed a size limit of this
	// package (for example reading a whole huge raster into memory).
	ErrTooLarge = errors.New("raster: too large")
)
