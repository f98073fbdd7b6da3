package pmtiles

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
)

// Entry is one directory entry (spec 4.1): RunLength tiles from TileID
// on share the blob at Offset (from the tile data section) of Length
// bytes; RunLength 0 points to a leaf directory (Offset from the leaf
// section).
type Entry struct {
	TileID    uint64
	Offset    uint64
	Length    uint32
	RunLength uint32
}

// maxEntries caps the entries of one directory a reader accepts, so a
// forged count cannot allocate without bound (a writer here puts at most
// a few tens of thousands in one).
const maxEntries = 1 << 21

// maxDirBytes caps a decompressed directory (a gzip bomb is an error).
const maxDirBytes = 64 << 20

// encodeDirectory serialises entries (spec 4.2) and gzips them.
func encodeDirectory(entries []Entry) []byte {
	raw := make([]byte, 0, 4+len(entries)*8)
	raw = binary.AppendUvarint(raw, uint64(len(entries)))
	last := uint64(0)
	for _, e := range entries {
		raw = binary.AppendUvarint(raw, e.TileID-last)
		last = e.TileID
	}
	for _, e := range entries {
		raw = binary.AppendUvarint(raw, uint64(e.RunLength))
	}
	for _, e := range entries {
		raw = binary.AppendUvarint(raw, uint64(e.Length))
	}
	for i, e := range entries {
		if i > 0 && e.Offset == entries[i-1].Offset+uint64(entries[i-1].Length) {
			raw = binary.AppendUvarint(raw, 0)
		} else {
			raw = binary.AppendUvarint(raw, e.Offset+1)
		}
	}
	return gzipBytes(raw)
}

// gzipBytes compresses deterministically (no name, no time stamp).
func gzipBytes(raw []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	return b.Bytes()
}

// decompress undoes the archive's internal compression, reading at most
// maxDirBytes.
func decompress(b []byte, c Compression) ([]byte, error) {
	switch c {
	case NoCompression:
		return b, nil
	case Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		out, err := io.ReadAll(io.LimitReader(zr, maxDirBytes+1))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		if len(out) > maxDirBytes {
			return nil, fmt.Errorf("%w: a directory or the metadata exceeds %d bytes", ErrFormat, maxDirBytes)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: internal compression %d is not supported (none and gzip are)", ErrFormat, c)
}

// decodeDirectory parses a decompressed directory. Entries must ascend by
// tile id and lengths be positive.
func decodeDirectory(raw []byte) ([]Entry, error) {
	r := bytes.NewReader(raw)
	next := func() (uint64, error) {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return 0, fmt.Errorf("%w: directory: %v", ErrFormat, err)
		}
		return v, nil
	}
	n, err := next()
	if err != nil {
		return nil, err
	}
	// Each entry takes at least 4 bytes, which bounds n by the input.
	if n == 0 || n > maxEntries || n > uint64(len(raw))/4 {
		return nil, fmt.Errorf("%w: directory of %d entries in %d bytes", ErrFormat, n, len(raw))
	}
	es := make([]Entry, n)
	id := uint64(0)
	for i := range es {
		d, err := next()
		if err != nil {
			return nil, err
		}
		if i > 0 && d == 0 || id+d < id {
			return nil, fmt.Errorf("%w: directory tile ids do not ascend", ErrFormat)
		}
		id += d
		es[i].TileID = id
	}
	for i := range es {
		v, err := next()
		if err != nil {
			return nil, err
		}
		if v > 1<<32-1 {
			return nil, fmt.Errorf("%w: run length %d", ErrFormat, v)
		}
		es[i].RunLength = uint32(v)
	}
	for i := range es {
		v, err := next()
		if err != nil {
			return nil, err
		}
		if v == 0 || v > 1<<32-1 {
			return nil, fmt.Errorf("%w: entry length %d", ErrFormat, v)
		}
		es[i].Length = uint32(v)
	}
	for i := range es {
		v, err := next()
		if err != nil {
			return nil, err
		}
		switch {
		case v == 0 && i == 0:
			return nil, fmt.Errorf("%w: first entry without an offset", ErrFormat)
		case v == 0:
			es[i].Offset = es[i-1].Offset + uint64(es[i-1].Length)
		default:
			es[i].Offset = v - 1
		}
	}
	return es, nil
}

// find returns the entry holding id: the tile entry whose run covers it,
// or the leaf directory entry (RunLength 0) it would be in.
func find(es []Entry, id uint64) (Entry, bool) {
	i := sort.Search(len(es), func(i int) bool { return es[i].TileID > id }) - 1
	if i < 0 {
		return Entry{}, false
	}
	e := es[i]
	if e.RunLength == 0 || id-e.TileID < uint64(e.RunLength) {
		return e, true
	}
	return Entry{}, false
}

// buildDirectories splits the tile entries into a root directory that
// fits beside the header in the first 16 KiB and, when needed, leaf
// directories (one level, as spec 4 recommends), growing the leaf size by
// 20 % until the root fits (the go-pmtiles strategy).
func buildDirectories(entries []Entry) (root, leaves []byte) {
	if len(entries) < 16384 {
		if root = encodeDirectory(entries); len(root) <= rootMax-HeaderLen {
			return root, nil
		}
	}
	leafSize := max(4096, len(entries)/3500)
	for {
		var rootEntries []Entry
		leaves = leaves[:0]
		for i := 0; i < len(entries); i += leafSize {
			d := encodeDirectory(entries[i:min(i+leafSize, len(entries))])
			rootEntries = append(rootEntries, Entry{TileID: entries[i].TileID, Offset: uint64(len(leaves)), Length: uint32(len(d))})
			leaves = append(leaves, d...)
		}
		if root = encodeDirectory(rootEntries); len(root) <= rootMax-HeaderLen {
			return root, leaves
		}
		leafSize += leafSize / 5
	}
}
