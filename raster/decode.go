package raster

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/image/tiff/lzw"
)

// Compression is a TIFF compression scheme (tag 259).
type Compression int

// Compression schemes read by this package; WriteCOG writes Deflate or ZSTD.
const (
	CompressionNone     Compression = 1
	CompressionLZW      Compression = 5
	CompressionDeflate  Compression = 8 // also read for Adobe's code 32946
	CompressionPackBits Compression = 32773
	CompressionZSTD     Compression = 50000
)

// String returns the GDAL name of the compression (NONE, LZW, DEFLATE, ...).
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "NONE"
	case CompressionLZW:
		return "LZW"
	case CompressionDeflate:
		return "DEFLATE"
	case CompressionPackBits:
		return "PACKBITS"
	case CompressionZSTD:
		return "ZSTD"
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// Predictor is a TIFF predictor (tag 317).
type Predictor int

// Predictors: none, horizontal differencing of integers (2), and the
// floating-point predictor (3) of Adobe's TIFF Technical Note 3.
const (
	PredictorNone       Predictor = 1
	PredictorHorizontal Predictor = 2
	PredictorFloat      Predictor = 3
)

// SampleFormat is a TIFF sample format (tag 339).
type SampleFormat int

// Sample formats: unsigned integer, signed integer, IEEE floating point.
const (
	SampleUint  SampleFormat = 1
	SampleInt   SampleFormat = 2
	SampleFloat SampleFormat = 3
)

// maxRatio bounds how many decoded bytes one compressed byte can yield, per
// scheme, so a hostile tile is rejected before any large allocation.
func maxRatio(c Compression) int {
	switch c {
	case CompressionNone:
		return 1
	case CompressionPackBits:
		return 64 // 2 bytes repeat one byte up to 128 times
	case CompressionDeflate:
		return 1032
	case CompressionLZW:
		return 4096 // one 9..12-bit code yields at most 4096 bytes
	}
	return 32768 // ZSTD: a 4-byte RLE block yields 128 KiB
}

// codec holds what is needed to decode the blocks of one image level.
type codec struct {
	compression Compression
	predictor   Predictor
	format      SampleFormat
	bits        int
	bo          binary.ByteOrder
	zstd        func() (*zstd.Decoder, error)
}

// block is one decoded tile or strip. Exactly one of f32 and f64 is set,
// or neither for a sparse block whose every pixel is fill.
type block struct {
	f32  []float32
	f64  []float64
	fill float64
}

// at returns pixel i of the block as float64.
func (b *block) at(i int) float64 {
	if b.f32 != nil {
		return float64(b.f32[i])
	}
	if b.f64 != nil {
		return b.f64[i]
	}
	return b.fill
}

// size returns the memory the block holds, in bytes, for cache accounting.
func (b *block) size() int64 {
	return int64(len(b.f32))*4 + int64(len(b.f64))*8 + 64
}

// decode turns the stored bytes of one block into samples. w is the number
// of samples per row and h the number of rows stored. Errors wrap ErrCorrupt.
func (c *codec) decode(comp []byte, w, h int) (*block, error) {
	bps := c.bits / 8
	n := w * h * bps
	if w <= 0 || h <= 0 || n > maxBlockBytes {
		return nil, fmt.Errorf("raster: block of %dx%d: %w", w, h, ErrCorrupt)
	}
	if n/maxRatio(c.compression) > len(comp)+64 {
		return nil, fmt.Errorf("raster: %d compressed bytes cannot hold %d bytes: %w", len(comp), n, ErrCorrupt)
	}
	raw, err := c.decompress(comp, n)
	if err != nil {
		return nil, err
	}
	switch c.predictor {
	case PredictorHorizontal:
		undoHorizontal(raw[:n], w, bps, c.bo)
	case PredictorFloat:
		undoFloat(raw[:n], w, bps)
		return convert(raw[:n], c.format, c.bits, binary.LittleEndian), nil
	}
	return convert(raw[:n], c.format, c.bits, c.bo), nil
}

// decompress returns at least n decoded bytes in a buffer owned by the caller.
func (c *codec) decompress(comp []byte, n int) ([]byte, error) {
	var (
		out []byte
		err error
	)
	switch c.compression {
	case CompressionNone:
		if len(comp) < n {
			return nil, fmt.Errorf("raster: uncompressed block has %d of %d bytes: %w", len(comp), n, ErrCorrupt)
		}
		return bytes.Clone(comp[:n]), nil
	case CompressionDeflate:
		var zr io.ReadCloser
		zr, err = zlib.NewReader(bytes.NewReader(comp))
		if err == nil {
			out, err = readCapped(zr, n)
		}
	case CompressionLZW:
		lr := lzw.NewReader(bytes.NewReader(comp), lzw.MSB, 8)
		out, err = readCapped(lr, n)
	case CompressionPackBits:
		out, err = unpackBits(comp, n)
	case CompressionZSTD:
		out, err = c.unzstd(comp, n)
	default:
		return nil, fmt.Errorf("raster: compression %v: %w", c.compression, ErrUnsupported)
	}
	if err != nil {
		return nil, fmt.Errorf("raster: %v: %w: %w", c.compression, ErrCorrupt, err)
	}
	if len(out) < n {
		return nil, fmt.Errorf("raster: %v block has %d of %d bytes: %w", c.compression, len(out), n, ErrCorrupt)
	}
	return out, nil
}

// unzstd decodes ZSTD frames into a buffer of capacity n.
func (c *codec) unzstd(comp []byte, n int) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(comp); err != nil {
		return nil, err
	}
	if h.HasFCS && h.FrameContentSize > uint64(n) {
		return nil, fmt.Errorf("frame of %d bytes, want %d", h.FrameContentSize, n)
	}
	dec, err := c.zstd()
	if err != nil {
		return nil, err
	}
	return dec.DecodeAll(comp, make([]byte, 0, n))
}

// readCapped reads exactly n bytes from r, growing its buffer only as data
// arrives so that a lying header cannot make it allocate up front.
func readCapped(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, 4<<20))
	for stalls := 0; len(buf) < n; {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, min(n-len(buf), cap(buf)))...)[:len(buf)]
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if stalls++; m > 0 {
			stalls = 0
		} else if stalls > 100 {
			return nil, io.ErrNoProgress
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// unpackBits decodes Apple PackBits (TIFF 6.0 section 9) up to n bytes.
func unpackBits(src []byte, n int) ([]byte, error) {
	out := make([]byte, 0, min(n, 64*len(src)))
	for i := 0; i < len(src) && len(out) < n; {
		c := int(int8(src[i]))
		i++
		switch {
		case c >= 0:
			if i+c+1 > len(src) {
				return nil, io.ErrUnexpectedEOF
			}
			out = append(out, src[i:i+c+1]...)
			i += c + 1
		case c != -128:
			if i >= len(src) {
				return nil, io.ErrUnexpectedEOF
			}
			for range 1 - c {
				out = append(out, src[i])
			}
			i++
		}
	}
	return out, nil
}

// convert turns decoded bytes in byte order bo into samples: float32 for
// types it holds exactly (8/16-bit integers, float32), float64 otherwise.
func convert(raw []byte, f SampleFormat, bits int, bo binary.ByteOrder) *block {
	switch {
	case f == SampleFloat && bits == 32:
		out := make([]float32, len(raw)/4)
		for i := range out {
			out[i] = math.Float32frombits(bo.Uint32(raw[4*i:]))
		}
		return &block{f32: out}
	case f == SampleFloat && bits == 64:
		out := make([]float64, len(raw)/8)
		for i := range out {
			out[i] = math.Float64frombits(bo.Uint64(raw[8*i:]))
		}
		return &block{f64: out}
	case bits == 8 || bits == 16:
		out := make([]float32, len(raw)/(bits/8))
		for i := range out {
			out[i] = float32(intSample(raw, i, f, bits, bo))
		}
		return &block{f32: out}
	}
	out := make([]float64, len(raw)/(bits/8))
	for i := range out {
		out[i] = intSample(raw, i, f, bits, bo)
	}
	return &block{f64: out}
}

// intSample returns integer sample i of raw as float64.
func intSample(raw []byte, i int, f SampleFormat, bits int, bo binary.ByteOrder) float64 {
	signed := f == SampleInt
	switch bits {
	case 8:
		if signed {
			return float64(int8(raw[i]))
		}
		return float64(raw[i])
	case 16:
		v := bo.Uint16(raw[2*i:])
		if signed {
			return float64(int16(v))
		}
		return float64(v)
	case 32:
		v := bo.Uint32(raw[4*i:])
		if signed {
			return float64(int32(v))
		}
		return float64(v)
	}
	v := bo.Uint64(raw[8*i:])
	if signed {
		return float64(int64(v))
	}
	return float64(v)
}
