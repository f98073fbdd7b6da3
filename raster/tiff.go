package raster

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
)

// TIFF tag numbers read or written by this package (TIFF 6.0, GeoTIFF 1.1,
// GDAL).
const (
	tagNewSubfileType   = 254
	tagImageWidth       = 256
	tagImageLength      = 257
	tagBitsPerSample    = 258
	tagCompression      = 259
	tagPhotometric      = 262
	tagStripOffsets     = 273
	tagSamplesPerPixel  = 277
	tagRowsPerStrip     = 278
	tagStripByteCounts  = 279
	tagPlanarConfig     = 284
	tagPredictor        = 317
	tagTileWidth        = 322
	tagTileLength       = 323
	tagTileOffsets      = 324
	tagTileByteCounts   = 325
	tagSampleFormat     = 339
	tagModelPixelScale  = 33550
	tagModelTiepoint    = 33922
	tagModelTransform   = 34264
	tagGeoKeyDirectory  = 34735
	tagGeoDoubleParams  = 34736
	tagGeoASCIIParams   = 34737
	tagGDALNodata       = 42113
	tagGDALMetadata     = 42112
	subfileReducedImage = 1
	subfileMask         = 4
)

// TIFF field types.
const (
	typeByte      = 1
	typeASCII     = 2
	typeShort     = 3
	typeLong      = 4
	typeRational  = 5
	typeSByte     = 6
	typeUndefined = 7
	typeSShort    = 8
	typeSLong     = 9
	typeSRational = 10
	typeFloat     = 11
	typeDouble    = 12
	typeIFD       = 13
	typeLong8     = 16
	typeSLong8    = 17
	typeIFD8      = 18
)

// Limits that keep hostile files from causing large allocations or loops.
const (
	headerBytes    = 64 << 10  // first read of a file; covers a COG's IFDs
	maxIFDs        = 64        // IFDs followed in one file
	maxIFDEntries  = 4096      // tags in one IFD
	maxTagBytes    = 256 << 20 // bytes of one tag's value
	maxBlockBytes  = 256 << 20 // decoded bytes of one tile or strip
	maxImageSide   = 1 << 24   // pixels along one side of an image
	geoKeyMaxCount = 1024      // keys in a GeoKeyDirectory
)

// typeSize returns the byte size of one value of TIFF field type t, or 0.
func typeSize(t uint16) int {
	switch t {
	case typeByte, typeASCII, typeSByte, typeUndefined:
		return 1
	case typeShort, typeSShort:
		return 2
	case typeLong, typeSLong, typeFloat, typeIFD:
		return 4
	case typeRational, typeSRational, typeDouble, typeLong8, typeSLong8, typeIFD8:
		return 8
	}
	return 0
}

// tiffFile is an open TIFF: byte order, flavour and a reader for its bytes.
type tiffFile struct {
	src *prefixSource
	bo  binary.ByteOrder
	big bool
}

// entry is one IFD entry whose value bytes are not fetched yet.
type entry struct {
	typ   uint16
	count uint64
	raw   []byte // inline value bytes (4 or 8), or the offset of the value
}

// ifd maps tag numbers to entries of one image file directory.
type ifd struct {
	offset  int64
	entries map[uint16]entry
}

// parseHeader reads the TIFF or BigTIFF header and returns the first IFD
// offset.
func parseHeader(src *prefixSource) (*tiffFile, int64, error) {
	h := src.prefix
	if len(h) < 8 {
		return nil, 0, fmt.Errorf("raster: header of %d bytes: %w", len(h), ErrCorrupt)
	}
	t := &tiffFile{src: src}
	switch string(h[:2]) {
	case "II":
		t.bo = binary.LittleEndian
	case "MM":
		t.bo = binary.BigEndian
	default:
		return nil, 0, fmt.Errorf("raster: not a TIFF (byte order mark %q): %w", h[:2], ErrCorrupt)
	}
	switch t.bo.Uint16(h[2:]) {
	case 42:
		return t, int64(t.bo.Uint32(h[4:])), nil
	case 43:
		if len(h) < 16 || t.bo.Uint16(h[4:]) != 8 || t.bo.Uint16(h[6:]) != 0 {
			return nil, 0, fmt.Errorf("raster: bad BigTIFF header: %w", ErrCorrupt)
		}
		t.big = true
		off := t.bo.Uint64(h[8:])
		if off > math.MaxInt64 {
			return nil, 0, fmt.Errorf("raster: IFD offset %d: %w", off, ErrCorrupt)
		}
		return t, int64(off), nil
	}
	return nil, 0, fmt.Errorf("raster: not a TIFF (version %d): %w", t.bo.Uint16(h[2:]), ErrCorrupt)
}

// readIFDs follows the IFD chain from off and returns at most maxIFDs IFDs.
func (t *tiffFile) readIFDs(ctx context.Context, off int64) ([]*ifd, error) {
	var out []*ifd
	seen := map[int64]bool{}
	for off != 0 {
		if len(out) == maxIFDs {
			return nil, fmt.Errorf("raster: more than %d IFDs: %w", maxIFDs, ErrUnsupported)
		}
		if seen[off] {
			return nil, fmt.Errorf("raster: IFD loop at offset %d: %w", off, ErrCorrupt)
		}
		seen[off] = true
		d, next, err := t.readIFD(ctx, off)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		off = next
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("raster: no IFD: %w", ErrCorrupt)
	}
	return out, nil
}

// readIFD parses the IFD at off and returns it with the next IFD's offset.
func (t *tiffFile) readIFD(ctx context.Context, off int64) (*ifd, int64, error) {
	countSize, entrySize, valSize := 2, 12, 4
	if t.big {
		countSize, entrySize, valSize = 8, 20, 8
	}
	head, err := t.src.read(ctx, off, countSize)
	if err != nil {
		return nil, 0, fmt.Errorf("raster: IFD at %d: %w", off, err)
	}
	var n uint64
	if t.big {
		n = t.bo.Uint64(head)
	} else {
		n = uint64(t.bo.Uint16(head))
	}
	if n == 0 || n > maxIFDEntries {
		return nil, 0, fmt.Errorf("raster: IFD at %d has %d entries: %w", off, n, ErrCorrupt)
	}
	body, err := t.src.read(ctx, off+int64(countSize), int(n)*entrySize+valSize)
	if err != nil {
		return nil, 0, fmt.Errorf("raster: IFD at %d: %w", off, err)
	}
	d := &ifd{offset: off, entries: make(map[uint16]entry, n)}
	for i := range int(n) {
		e := body[i*entrySize : (i+1)*entrySize]
		tag := t.bo.Uint16(e)
		en := entry{typ: t.bo.Uint16(e[2:])}
		if t.big {
			en.count, en.raw = t.bo.Uint64(e[4:]), e[12:20]
		} else {
			en.count, en.raw = uint64(t.bo.Uint32(e[4:])), e[8:12]
		}
		d.entries[tag] = en
	}
	tail := body[int(n)*entrySize:]
	var next uint64
	if t.big {
		next = t.bo.Uint64(tail)
	} else {
		next = uint64(t.bo.Uint32(tail))
	}
	if next > math.MaxInt64 {
		return nil, 0, fmt.Errorf("raster: next IFD offset %d: %w", next, ErrCorrupt)
	}
	return d, int64(next), nil
}

// valueBytes returns the raw value bytes of entry e, reading them from the
// file when they are not inline.
func (t *tiffFile) valueBytes(ctx context.Context, tag uint16, e entry) ([]byte, error) {
	size := typeSize(e.typ)
	if size == 0 {
		return nil, fmt.Errorf("raster: tag %d has unknown type %d: %w", tag, e.typ, ErrCorrupt)
	}
	if e.count > maxTagBytes/uint64(size) {
		return nil, fmt.Errorf("raster: tag %d has %d values: %w", tag, e.count, ErrCorrupt)
	}
	n := int(e.count) * size
	if n <= len(e.raw) {
		return e.raw[:n], nil
	}
	var off uint64
	if t.big {
		off = t.bo.Uint64(e.raw)
	} else {
		off = uint64(t.bo.Uint32(e.raw))
	}
	if off > math.MaxInt64 {
		return nil, fmt.Errorf("raster: tag %d offset %d: %w", tag, off, ErrCorrupt)
	}
	b, err := t.src.read(ctx, int64(off), n)
	if err != nil {
		return nil, fmt.Errorf("raster: tag %d: %w", tag, err)
	}
	return b, nil
}

// uints returns the values of an integer tag (BYTE, SHORT, LONG, LONG8, IFD),
// or nil, false when the tag is absent.
func (t *tiffFile) uints(ctx context.Context, d *ifd, tag uint16) ([]uint64, bool, error) {
	e, ok := d.entries[tag]
	if !ok {
		return nil, false, nil
	}
	b, err := t.valueBytes(ctx, tag, e)
	if err != nil {
		return nil, true, err
	}
	out := make([]uint64, e.count)
	for i := range out {
		switch e.typ {
		case typeByte, typeUndefined:
			out[i] = uint64(b[i])
		case typeShort:
			out[i] = uint64(t.bo.Uint16(b[2*i:]))
		case typeLong, typeIFD:
			out[i] = uint64(t.bo.Uint32(b[4*i:]))
		case typeLong8, typeIFD8:
			out[i] = t.bo.Uint64(b[8*i:])
		default:
			return nil, true, fmt.Errorf("raster: tag %d has non-integer type %d: %w", tag, e.typ, ErrCorrupt)
		}
	}
	return out, true, nil
}

// uint1 returns the first value of an integer tag, or def when absent.
func (t *tiffFile) uint1(ctx context.Context, d *ifd, tag uint16, def uint64) (uint64, error) {
	e, ok := d.entries[tag]
	if !ok {
		return def, nil
	}
	if e.count == 0 {
		return 0, fmt.Errorf("raster: tag %d is empty: %w", tag, ErrCorrupt)
	}
	e.count = 1 // only the first value is needed; avoids reading long arrays
	d1 := &ifd{entries: map[uint16]entry{tag: e}}
	v, _, err := t.uints(ctx, d1, tag)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// floats returns the values of a DOUBLE or FLOAT tag, or nil when absent.
func (t *tiffFile) floats(ctx context.Context, d *ifd, tag uint16) ([]float64, error) {
	e, ok := d.entries[tag]
	if !ok {
		return nil, nil
	}
	b, err := t.valueBytes(ctx, tag, e)
	if err != nil {
		return nil, err
	}
	out := make([]float64, e.count)
	for i := range out {
		switch e.typ {
		case typeDouble:
			out[i] = math.Float64frombits(t.bo.Uint64(b[8*i:]))
		case typeFloat:
			out[i] = float64(math.Float32frombits(t.bo.Uint32(b[4*i:])))
		default:
			return nil, fmt.Errorf("raster: tag %d has non-float type %d: %w", tag, e.typ, ErrCorrupt)
		}
	}
	return out, nil
}

// ascii returns the value of an ASCII tag without its trailing NULs, or ""
// when absent.
func (t *tiffFile) ascii(ctx context.Context, d *ifd, tag uint16) (string, error) {
	e, ok := d.entries[tag]
	if !ok {
		return "", nil
	}
	if e.typ != typeASCII {
		return "", fmt.Errorf("raster: tag %d has non-ASCII type %d: %w", tag, e.typ, ErrCorrupt)
	}
	b, err := t.valueBytes(ctx, tag, e)
	if err != nil {
		return "", err
	}
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return string(b), nil
}
