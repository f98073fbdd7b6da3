package pmtiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrNoTile is returned by Reader.Tile for a tile the archive does not hold.
var ErrNoTile = errors.New("pmtiles: no such tile")

// maxDepth is the most directory levels a lookup follows (root, leaf and
// one more, beyond what spec 4 recommends; a cycle ends here).
const maxDepth = 3

// maxTileBytes caps one tile read from an archive.
const maxTileBytes = 64 << 20

// Reader answers tiles of an archive. It is safe for concurrent use;
// leaf directories are kept once read (an archive has few).
type Reader struct {
	ra     io.ReaderAt
	size   int64
	header Header
	root   []Entry
	meta   []byte

	mu     sync.Mutex
	leaves map[uint64][]Entry // by leaf offset
}

// Open reads and checks the header, root directory and metadata of the
// archive of size bytes behind ra. Bytes that are not a PMTiles v3
// archive are an error wrapping ErrFormat.
func Open(ra io.ReaderAt, size int64) (*Reader, error) {
	hb := make([]byte, HeaderLen)
	if _, err := ra.ReadAt(hb, 0); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %d bytes, shorter than the header", ErrFormat, size)
		}
		return nil, fmt.Errorf("pmtiles: header: %w", err)
	}
	h, err := decodeHeader(hb, size)
	if err != nil {
		return nil, err
	}
	r := &Reader{ra: ra, size: size, header: h, leaves: map[uint64][]Entry{}}
	if r.root, err = r.directory(h.RootOffset, h.RootLength); err != nil {
		return nil, fmt.Errorf("root %w", err)
	}
	mb, err := r.section(h.MetadataOffset, h.MetadataLength)
	if err != nil {
		return nil, err
	}
	if len(mb) > 0 {
		if r.meta, err = decompress(mb, h.InternalCompression); err != nil {
			return nil, err
		}
		if !json.Valid(r.meta) {
			return nil, fmt.Errorf("%w: metadata is not JSON", ErrFormat)
		}
	}
	return r, nil
}

// Header is the archive's header.
func (r *Reader) Header() Header { return r.header }

// Metadata is the archive's JSON metadata object (decompressed), or nil.
func (r *Reader) Metadata() []byte { return r.meta }

// section reads length bytes at off (checked against the file).
func (r *Reader) section(off, length uint64) ([]byte, error) {
	if off > uint64(r.size) || length > uint64(r.size)-off {
		return nil, fmt.Errorf("%w: %d+%d beyond the file's %d bytes", ErrFormat, off, length, r.size)
	}
	b := make([]byte, length)
	if _, err := r.ra.ReadAt(b, int64(off)); err != nil && !(errors.Is(err, io.EOF) && len(b) == 0) {
		return nil, fmt.Errorf("pmtiles: read %d+%d: %w", off, length, err)
	}
	return b, nil
}

func (r *Reader) directory(off, length uint64) ([]Entry, error) {
	if length > maxDirBytes {
		return nil, fmt.Errorf("%w: directory of %d bytes", ErrFormat, length)
	}
	b, err := r.section(off, length)
	if err != nil {
		return nil, err
	}
	raw, err := decompress(b, r.header.InternalCompression)
	if err != nil {
		return nil, err
	}
	return decodeDirectory(raw)
}

// leaf returns the leaf directory at off in the leaf section, cached.
func (r *Reader) leaf(e Entry) ([]Entry, error) {
	r.mu.Lock()
	es, ok := r.leaves[e.Offset]
	r.mu.Unlock()
	if ok {
		return es, nil
	}
	if e.Offset > r.header.LeafLength || uint64(e.Length) > r.header.LeafLength-e.Offset {
		return nil, fmt.Errorf("%w: leaf directory %d+%d outside the leaf section", ErrFormat, e.Offset, e.Length)
	}
	es, err := r.directory(r.header.LeafOffset+e.Offset, uint64(e.Length))
	if err != nil {
		return nil, fmt.Errorf("leaf %w", err)
	}
	r.mu.Lock()
	r.leaves[e.Offset] = es
	r.mu.Unlock()
	return es, nil
}

// Tile returns the bytes of tile z/x/y as stored (compressed as the
// header's TileCompression says), ErrNoTile when the archive does not hold
// it, or an error wrapping ErrFormat for a damaged archive.
func (r *Reader) Tile(ctx context.Context, z uint8, x, y uint32) ([]byte, error) {
	if z > maxZoom || x>>z != 0 || y>>z != 0 {
		return nil, fmt.Errorf("%w: %d/%d/%d", ErrNoTile, z, x, y)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id := TileID(z, x, y)
	dir := r.root
	for range maxDepth {
		e, ok := find(dir, id)
		if !ok {
			return nil, fmt.Errorf("%w: %d/%d/%d", ErrNoTile, z, x, y)
		}
		if e.RunLength > 0 {
			if e.Length > maxTileBytes || e.Offset > r.header.DataLength || uint64(e.Length) > r.header.DataLength-e.Offset {
				return nil, fmt.Errorf("%w: tile %d/%d/%d at %d+%d outside the tile data", ErrFormat, z, x, y, e.Offset, e.Length)
			}
			return r.section(r.header.DataOffset+e.Offset, uint64(e.Length))
		}
		var err error
		if dir, err = r.leaf(e); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: directories nested deeper than %d", ErrFormat, maxDepth)
}

// Entries calls fn with every tile entry in tile id order, following the
// leaf directories; it stops at fn's first error.
func (r *Reader) Entries(fn func(Entry) error) error {
	return r.walk(r.root, 0, fn)
}

func (r *Reader) walk(dir []Entry, depth int, fn func(Entry) error) error {
	if depth >= maxDepth {
		return fmt.Errorf("%w: directories nested deeper than %d", ErrFormat, maxDepth)
	}
	for _, e := range dir {
		if e.RunLength > 0 {
			if err := fn(e); err != nil {
				return err
			}
			continue
		}
		leaf, err := r.leaf(e)
		if err != nil {
			return err
		}
		if err := r.walk(leaf, depth+1, fn); err != nil {
			return err
		}
	}
	return nil
}
