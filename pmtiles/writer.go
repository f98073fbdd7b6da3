package pmtiles

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
)

// ErrOrder is returned by Writer.Add for a tile id not above the last one.
var ErrOrder = errors.New("pmtiles: tiles must be added in ascending tile id order")

// Options describe the archive a Writer makes. Bounds and centre are WGS84
// degrees; Metadata is the JSON object of spec 5 (for MVT it must hold
// vector_layers).
type Options struct {
	TileType        TileType
	TileCompression Compression
	MinLon, MinLat  float64
	MaxLon, MaxLat  float64
	CenterZoom      uint8
	Metadata        []byte
}

// Writer writes a clustered archive in one pass: tile data from byte 16384
// on as tiles come, then the metadata and leaf directories, and at Close
// the header and root directory into the reserved first 16 KiB. Identical
// tiles are stored once (by SHA-256) and runs of identical tiles with
// consecutive ids take one entry. The same tiles give the same bytes.
type Writer struct {
	ws       io.WriteSeeker
	bw       *bufio.Writer
	opts     Options
	entries  []Entry
	blobs    map[[32]byte]Entry
	lastHash [32]byte // of the last entry
	dataLen  uint64
	tiles    uint64
	minZ     uint8
	maxZ     uint8
	closed   bool
}

// NewWriter starts an archive at the start of ws (a new, empty file).
func NewWriter(ws io.WriteSeeker, o Options) (*Writer, error) {
	if _, err := ws.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("pmtiles: %w", err)
	}
	w := &Writer{ws: ws, bw: bufio.NewWriterSize(ws, 1<<20), opts: o, blobs: map[[32]byte]Entry{}, minZ: 255}
	if _, err := w.bw.Write(make([]byte, rootMax)); err != nil {
		return nil, fmt.Errorf("pmtiles: %w", err)
	}
	return w, nil
}

// Add appends the tile z/x/y. Tiles must come in ascending TileID order;
// an empty tile is an error (spec 4.1: lengths are positive), leave it out.
func (w *Writer) Add(z uint8, x, y uint32, data []byte) error {
	id := TileID(z, x, y)
	if n := len(w.entries); n > 0 && id < w.entries[n-1].TileID+uint64(w.entries[n-1].RunLength) {
		return fmt.Errorf("%w: %d/%d/%d after tile id %d", ErrOrder, z, x, y, w.entries[n-1].TileID)
	}
	if len(data) == 0 || len(data) > 1<<32-1 {
		return fmt.Errorf("pmtiles: tile %d/%d/%d of %d bytes", z, x, y, len(data))
	}
	w.tiles++
	w.minZ, w.maxZ = min(w.minZ, z), max(w.maxZ, z)
	h := sha256.Sum256(data)
	if n := len(w.entries); n > 0 && h == w.lastHash && w.entries[n-1].TileID+uint64(w.entries[n-1].RunLength) == id {
		w.entries[n-1].RunLength++
		return nil
	}
	w.lastHash = h
	e, ok := w.blobs[h]
	if !ok {
		e = Entry{Offset: w.dataLen, Length: uint32(len(data))}
		if _, err := w.bw.Write(data); err != nil {
			return fmt.Errorf("pmtiles: %w", err)
		}
		w.dataLen += uint64(len(data))
		w.blobs[h] = e
	}
	w.entries = append(w.entries, Entry{TileID: id, Offset: e.Offset, Length: e.Length, RunLength: 1})
	return nil
}

// Tiles is the number of tiles added so far.
func (w *Writer) Tiles() uint64 { return w.tiles }

// Close writes the directories, metadata and header and returns the
// header. An archive without tiles is an error. It does not close ws.
func (w *Writer) Close() (Header, error) {
	if w.closed {
		return Header{}, errors.New("pmtiles: writer closed twice")
	}
	w.closed = true
	if len(w.entries) == 0 {
		return Header{}, errors.New("pmtiles: no tiles to write")
	}
	o := w.opts
	root, leaves := buildDirectories(w.entries)
	meta := gzipBytes(o.Metadata)
	if len(o.Metadata) == 0 {
		meta = gzipBytes([]byte("{}"))
	}
	h := Header{RootOffset: HeaderLen, RootLength: uint64(len(root)),
		DataOffset: rootMax, DataLength: w.dataLen,
		MetadataOffset: rootMax + w.dataLen, MetadataLength: uint64(len(meta)),
		LeafOffset: rootMax + w.dataLen + uint64(len(meta)), LeafLength: uint64(len(leaves)),
		AddressedTiles: w.tiles, TileEntries: uint64(len(w.entries)), TileContents: uint64(len(w.blobs)),
		Clustered: true, InternalCompression: Gzip, TileCompression: o.TileCompression, TileType: o.TileType,
		MinZoom: w.minZ, MaxZoom: w.maxZ, CenterZoom: min(max(o.CenterZoom, w.minZ), w.maxZ),
		MinLon: o.MinLon, MinLat: o.MinLat, MaxLon: o.MaxLon, MaxLat: o.MaxLat,
		CenterLon: (o.MinLon + o.MaxLon) / 2, CenterLat: (o.MinLat + o.MaxLat) / 2}
	if _, err := w.bw.Write(meta); err != nil {
		return Header{}, fmt.Errorf("pmtiles: %w", err)
	}
	if _, err := w.bw.Write(leaves); err != nil {
		return Header{}, fmt.Errorf("pmtiles: %w", err)
	}
	if err := w.bw.Flush(); err != nil {
		return Header{}, fmt.Errorf("pmtiles: %w", err)
	}
	if _, err := w.ws.Seek(0, io.SeekStart); err != nil {
		return Header{}, fmt.Errorf("pmtiles: %w", err)
	}
	if _, err := w.ws.Write(append(h.encode(), root...)); err != nil {
		return Header{}, fmt.Errorf("pmtiles: %w", err)
	}
	return h, nil
}
