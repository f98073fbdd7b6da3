package lod2store

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// The search file sits beside the SpatiaLite file (<file>.search) and holds
// the packed R-tree followed by one record per surface in leaf order, so
// that a page of search results is read from consecutive, memory-mapped
// bytes without a database round trip.
//
//	"SVCSRCH1", u64 index length, index bytes,
//	(n+1) x u64 record offsets (relative to the first record), records.
const searchMagic = "SVCSRCH1"

// SearchFileSuffix is appended to the SpatiaLite file's name.
const SearchFileSuffix = ".search"

// recordSpool collects records in insertion order in a temporary file
// until the leaf order is known.
type recordSpool struct {
	f    *os.File
	w    *bufio.Writer
	offs []int64 // start of each record; one more at the end
}

func newRecordSpool(path string) (*recordSpool, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &recordSpool{f: f, w: bufio.NewWriterSize(f, 1<<20), offs: []int64{0}}, nil
}

func (s *recordSpool) add(rec []byte) error {
	if _, err := s.w.Write(rec); err != nil {
		return err
	}
	s.offs = append(s.offs, s.offs[len(s.offs)-1]+int64(len(rec)))
	return nil
}

// writeSearchFile writes the index and the spooled records, reordered to
// the index's leaf order, to path and syncs it.
func (s *recordSpool) writeSearchFile(path string, index []byte, leafIDs []uint32) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	w.WriteString(searchMagic)
	binary.Write(w, binary.LittleEndian, uint64(len(index)))
	w.Write(index)
	var off uint64
	for _, id := range leafIDs {
		binary.Write(w, binary.LittleEndian, off)
		off += uint64(s.offs[id] - s.offs[id-1])
	}
	binary.Write(w, binary.LittleEndian, off)
	// The spool is read through a mapping: one pread per record was a
	// third of the time of this function.
	spool, unmap, err := mapFile(s.f.Name())
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer unmap()
	if int64(len(spool)) < s.offs[len(s.offs)-1] {
		return fmt.Errorf("spool: %d bytes, %d written", len(spool), s.offs[len(s.offs)-1])
	}
	for _, id := range leafIDs {
		if _, err := w.Write(spool[s.offs[id-1]:s.offs[id]]); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return out.Sync()
}

func (s *recordSpool) close() {
	name := s.f.Name()
	s.f.Close()
	os.Remove(name)
}

// searchFile is an open search file.
type searchFile struct {
	data    []byte // the whole file, memory-mapped where the OS allows
	unmap   func() error
	idx     *packedIndex
	offs    []byte // (n+1) u64
	records []byte
}

func openSearchFile(path string) (*searchFile, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	sf := &searchFile{data: data, unmap: unmap}
	if err := sf.parse(); err != nil {
		unmap()
		return nil, err
	}
	return sf, nil
}

func (sf *searchFile) parse() error {
	d := sf.data
	if len(d) < 16 || string(d[:8]) != searchMagic {
		return fmt.Errorf("%w: search file header", ErrCorrupt)
	}
	il := binary.LittleEndian.Uint64(d[8:])
	if il > uint64(len(d)-16) {
		return fmt.Errorf("%w: search file index length", ErrCorrupt)
	}
	idx, err := loadIndex(d[16 : 16+il])
	if err != nil {
		return err
	}
	sf.idx = idx
	rest := d[16+il:]
	ol := 8 * (uint64(idx.n) + 1)
	if ol > uint64(len(rest)) {
		return fmt.Errorf("%w: search file offsets", ErrCorrupt)
	}
	sf.offs, sf.records = rest[:ol], rest[ol:]
	if binary.LittleEndian.Uint64(sf.offs[ol-8:]) != uint64(len(sf.records)) {
		return fmt.Errorf("%w: search file records length", ErrCorrupt)
	}
	return nil
}

// record returns the record at a leaf position.
func (sf *searchFile) record(pos int) (record, error) {
	a := binary.LittleEndian.Uint64(sf.offs[8*pos:])
	b := binary.LittleEndian.Uint64(sf.offs[8*pos+8:])
	if a > b || b > uint64(len(sf.records)) {
		return nil, fmt.Errorf("%w: record %d offsets", ErrCorrupt, pos)
	}
	return sf.records[a:b], nil
}

func (sf *searchFile) close() error { return sf.unmap() }

// readAll is the fallback where files cannot be mapped.
func readAll(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return b, func() error { return nil }, err
}
