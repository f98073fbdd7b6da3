// Package pmtiles writes and reads PMTiles version 3 archives: one file
// holding a pyramid of XYZ map tiles, addressed by Hilbert tile ids through
// gzip'd root and leaf directories, with identical tiles stored once
// (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md).
//
// The package knows no HTTP and no map data: the writer takes tiles in
// ascending tile id order and the reader answers tiles from an io.ReaderAt.
// Every length read from an archive is checked against the file before it
// is used, so a damaged or hostile file is an error, never a panic or a
// huge allocation.
package pmtiles

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// HeaderLen is the size of the fixed header at the start of an archive.
const HeaderLen = 127

// rootMax is the header plus root directory size a client reads in one
// request (spec 4: the root directory ends within the first 16 KiB).
const rootMax = 16384

// ErrFormat is returned for bytes that are not a valid PMTiles v3 archive.
var ErrFormat = errors.New("pmtiles: invalid archive")

// TileType is the format of the tiles (header field TT).
type TileType uint8

// The tile types of spec 3.2.
const (
	UnknownType TileType = iota
	MVT
	PNG
	JPEG
	WebP
	AVIF
	MLT
)

// String is the type's file extension as the pmtiles CLI prints it
// (mvt, png, jpg, webp, avif, mlt).
func (t TileType) String() string {
	if int(t) < len(tileTypeNames) {
		return tileTypeNames[t]
	}
	return fmt.Sprintf("type %d", uint8(t))
}

var tileTypeNames = []string{"unknown", "mvt", "png", "jpg", "webp", "avif", "mlt"}

// Compression is how tiles or directories are compressed (spec 3.3).
type Compression uint8

// The compressions of spec 3.3.
const (
	UnknownCompression Compression = iota
	NoCompression
	Gzip
	Brotli
	Zstd
)

// Header is the fixed 127-byte header. Positions are WGS84 degrees.
type Header struct {
	RootOffset, RootLength         uint64
	MetadataOffset, MetadataLength uint64
	LeafOffset, LeafLength         uint64
	DataOffset, DataLength         uint64
	// AddressedTiles counts tiles before run-length encoding, TileEntries
	// the tile entries of all directories, TileContents the distinct blobs.
	AddressedTiles, TileEntries, TileContents uint64
	Clustered                                 bool
	InternalCompression, TileCompression      Compression
	TileType                                  TileType
	MinZoom, MaxZoom, CenterZoom              uint8
	MinLon, MinLat, MaxLon, MaxLat            float64
	CenterLon, CenterLat                      float64
}

func putE7(b []byte, deg float64) {
	binary.LittleEndian.PutUint32(b, uint32(int32(math.Round(deg*1e7))))
}

func e7(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) / 1e7 }

// encode returns the header's 127 bytes.
func (h Header) encode() []byte {
	b := make([]byte, HeaderLen)
	copy(b, "PMTiles")
	b[7] = 3
	le := binary.LittleEndian
	for i, v := range []uint64{h.RootOffset, h.RootLength, h.MetadataOffset, h.MetadataLength, h.LeafOffset, h.LeafLength,
		h.DataOffset, h.DataLength, h.AddressedTiles, h.TileEntries, h.TileContents} {
		le.PutUint64(b[8+8*i:], v)
	}
	if h.Clustered {
		b[96] = 1
	}
	b[97], b[98], b[99] = byte(h.InternalCompression), byte(h.TileCompression), byte(h.TileType)
	b[100], b[101] = h.MinZoom, h.MaxZoom
	putE7(b[102:], h.MinLon)
	putE7(b[106:], h.MinLat)
	putE7(b[110:], h.MaxLon)
	putE7(b[114:], h.MaxLat)
	b[118] = h.CenterZoom
	putE7(b[119:], h.CenterLon)
	putE7(b[123:], h.CenterLat)
	return b
}

// decodeHeader parses and checks a header against the archive size: the
// magic, version 3, sections inside the file, the root directory within
// the first 16 KiB, zooms at most 31.
func decodeHeader(b []byte, size int64) (Header, error) {
	if len(b) < HeaderLen || string(b[:7]) != "PMTiles" {
		return Header{}, fmt.Errorf("%w: no PMTiles magic", ErrFormat)
	}
	if b[7] != 3 {
		return Header{}, fmt.Errorf("%w: version %d, only 3 is read", ErrFormat, b[7])
	}
	le := binary.LittleEndian
	var v [11]uint64
	for i := range v {
		v[i] = le.Uint64(b[8+8*i:])
	}
	h := Header{RootOffset: v[0], RootLength: v[1], MetadataOffset: v[2], MetadataLength: v[3], LeafOffset: v[4], LeafLength: v[5],
		DataOffset: v[6], DataLength: v[7], AddressedTiles: v[8], TileEntries: v[9], TileContents: v[10],
		Clustered: b[96] == 1, InternalCompression: Compression(b[97]), TileCompression: Compression(b[98]), TileType: TileType(b[99]),
		MinZoom: b[100], MaxZoom: b[101], CenterZoom: b[118],
		MinLon: e7(b[102:]), MinLat: e7(b[106:]), MaxLon: e7(b[110:]), MaxLat: e7(b[114:]), CenterLon: e7(b[119:]), CenterLat: e7(b[123:])}
	for _, s := range []struct {
		name        string
		off, length uint64
	}{{"root directory", h.RootOffset, h.RootLength}, {"metadata", h.MetadataOffset, h.MetadataLength},
		{"leaf directories", h.LeafOffset, h.LeafLength}, {"tile data", h.DataOffset, h.DataLength}} {
		if s.off > uint64(size) || s.length > uint64(size)-s.off {
			return Header{}, fmt.Errorf("%w: %s at %d+%d beyond the file's %d bytes", ErrFormat, s.name, s.off, s.length, size)
		}
	}
	if h.RootLength == 0 || h.RootOffset+h.RootLength > rootMax {
		return Header{}, fmt.Errorf("%w: root directory at %d+%d is not within the first %d bytes", ErrFormat, h.RootOffset, h.RootLength, rootMax)
	}
	if h.MinZoom > h.MaxZoom || h.MaxZoom > maxZoom {
		return Header{}, fmt.Errorf("%w: zooms %d to %d", ErrFormat, h.MinZoom, h.MaxZoom)
	}
	return h, nil
}
