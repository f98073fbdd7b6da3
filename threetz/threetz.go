// Package threetz writes 3D Tiles archives (3TZ): a ZIP file whose last
// entry, @3dtilesIndex1@, indexes every other entry by the MD5 of its path
// so a reader finds a file with one lookup instead of reading the central
// directory (3D Tiles Archive Format, github.com/erikdahlstrom/3tz-specification;
// read by CesiumGS 3d-tiles-tools and the 3D Tiles validator).
package threetz

import (
	"archive/zip"
	"bytes"
	"cmp"
	"compress/flate"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
)

// IndexName is the name of the index entry.
const IndexName = "@3dtilesIndex1@"

// ErrPath is returned for a path a 3TZ may not hold (empty, absolute, with
// backslashes or dot segments, or repeated).
var ErrPath = errors.New("threetz: invalid path")

type indexEntry struct {
	hash   [16]byte
	offset uint64
}

// Writer writes an archive. Entries are stored with their sizes in the
// local headers (readers of 3TZ need them there); JSON is deflated, other
// content (glb, b3dm: already compact) stored.
type Writer struct {
	cw    *countWriter
	zw    *zip.Writer
	index []indexEntry
	seen  map[string]bool
}

type countWriter struct {
	w io.Writer
	n uint64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

// NewWriter starts an archive on w.
func NewWriter(w io.Writer) *Writer {
	cw := &countWriter{w: w}
	return &Writer{cw: cw, zw: zip.NewWriter(cw), seen: map[string]bool{}}
}

// dosDate is the MS-DOS date of every entry, 2026-01-01 (CreateRaw takes
// the raw fields): the same input gives the same bytes.
const dosDate = (2026-1980)<<9 | 1<<5 | 1

// Add writes the file path (slash separated, relative) with data.
func (w *Writer) Add(path string, data []byte) error {
	if path == "" || path == IndexName || strings.HasPrefix(path, "/") || strings.Contains(path, "\\") || w.seen[path] ||
		slices.ContainsFunc(strings.Split(path, "/"), func(s string) bool { return s == "" || s == "." || s == ".." }) {
		return fmt.Errorf("%w: %q", ErrPath, path)
	}
	w.seen[path] = true
	method, body := zip.Store, data
	if strings.HasSuffix(path, ".json") {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, flate.BestCompression)
		_, _ = fw.Write(data)
		_ = fw.Close()
		if b.Len() < len(data) {
			method, body = zip.Deflate, b.Bytes()
		}
	}
	return w.raw(path, data, method, body, true)
}

func (w *Writer) raw(path string, data []byte, method uint16, body []byte, indexed bool) error {
	if err := w.zw.Flush(); err != nil {
		return fmt.Errorf("threetz: %w", err)
	}
	if indexed {
		w.index = append(w.index, indexEntry{md5.Sum([]byte(path)), w.cw.n})
	}
	fh := &zip.FileHeader{Name: path, Method: method, CRC32: crc32.ChecksumIEEE(data),
		CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(data)), ModifiedDate: dosDate}
	fw, err := w.zw.CreateRaw(fh)
	if err != nil {
		return fmt.Errorf("threetz: %s: %w", path, err)
	}
	if _, err := fw.Write(body); err != nil {
		return fmt.Errorf("threetz: %s: %w", path, err)
	}
	return nil
}

// Close writes the index as the last entry and the central directory. It
// does not close the underlying writer.
func (w *Writer) Close() error {
	// Sorted as readers search it: the hash as two little-endian uint64,
	// the first 8 bytes first.
	slices.SortFunc(w.index, func(a, b indexEntry) int {
		if c := cmp.Compare(binary.LittleEndian.Uint64(a.hash[:8]), binary.LittleEndian.Uint64(b.hash[:8])); c != 0 {
			return c
		}
		return cmp.Compare(binary.LittleEndian.Uint64(a.hash[8:]), binary.LittleEndian.Uint64(b.hash[8:]))
	})
	idx := make([]byte, 0, 24*len(w.index))
	for _, e := range w.index {
		idx = append(idx, e.hash[:]...)
		idx = binary.LittleEndian.AppendUint64(idx, e.offset)
	}
	if len(idx) == 0 {
		return errors.New("threetz: no files")
	}
	if err := w.raw(IndexName, idx, zip.Store, idx, false); err != nil {
		return err
	}
	if err := w.zw.Close(); err != nil {
		return fmt.Errorf("threetz: %w", err)
	}
	return nil
}
