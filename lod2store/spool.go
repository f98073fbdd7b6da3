package lod2store

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// recordSpool collects the search records in insertion (surface id) order
// in a temporary file until the leaf order is known, and beside it one
// fixed-size leaf entry per surface (box and record position) in a second
// file: nothing per surface stays in memory, so a writer's memory does
// not grow with the size of the pack (issue 24: a whole state's import).
type recordSpool struct {
	f, bf *os.File
	w, bw *bufio.Writer
	size  int64 // bytes of records
	count int64 // records (and leaf entries)
	ext   box   // of every box spooled
	entry [leafEntrySize]byte
}

// spoolBoxesSuffix names the leaf entry file beside the spool.
const spoolBoxesSuffix = ".boxes"

func newRecordSpool(path string) (*recordSpool, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	bf, err := os.Create(path + spoolBoxesSuffix)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return &recordSpool{ext: emptyBox(), f: f, bf: bf, w: bufio.NewWriterSize(f, 1<<20), bw: bufio.NewWriterSize(bf, 1<<16)}, nil
}

// add spools the record of the next surface and its box.
func (s *recordSpool) add(rec []byte, bb box) error {
	if _, err := s.w.Write(rec); err != nil {
		return err
	}
	return s.addEntry(bb, len(rec))
}

func (s *recordSpool) flush() error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	return s.bw.Flush()
}

// close closes and removes the spool's files.
func (s *recordSpool) close() {
	s.closeFiles()
	os.Remove(s.f.Name())
	os.Remove(s.bf.Name())
}

// closeFiles closes the spool's files and keeps them (for a resume).
func (s *recordSpool) closeFiles() {
	_ = s.flush()
	s.f.Close()
	s.bf.Close()
}

// reopenSpool opens the spool of a dead writer, cut to size bytes, checks
// that it holds surfaces records of the ids 1..surfaces in order and
// rewrites the leaf entry file from it (the entries past the checkpoint
// may have been written before the kill). Errors wrap ErrCorrupt.
func reopenSpool(path string, size, surfaces int64) (*recordSpool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || st.Size() < size {
		f.Close()
		return nil, fmt.Errorf("%w: spool shorter than the checkpoint (%v)", ErrCorrupt, err)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, err
	}
	bf, err := os.Create(path + spoolBoxesSuffix)
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &recordSpool{ext: emptyBox(), f: f, bf: bf, bw: bufio.NewWriterSize(bf, 1<<16)}
	if err := s.reindex(size, surfaces); err != nil {
		f.Close()
		bf.Close()
		return nil, err
	}
	if _, err := f.Seek(size, 0); err != nil {
		f.Close()
		bf.Close()
		return nil, err
	}
	s.w = bufio.NewWriterSize(f, 1<<20)
	return s, nil
}

// reindex writes the leaf entries of the first size bytes of records.
func (s *recordSpool) reindex(size, surfaces int64) error {
	data, unmap, err := mapFile(s.f.Name())
	if err != nil {
		return err
	}
	defer unmap()
	data = data[:size]
	for off := int64(0); off < size; {
		n, err := recordLen(data[off:])
		if err != nil {
			return fmt.Errorf("%w: spool record at %d: %v", ErrCorrupt, off, err)
		}
		p, err := parseRecord(record(data[off : off+int64(n)]))
		if err != nil {
			return fmt.Errorf("spool record at %d: %w", off, err)
		}
		if int64(p.surfaceID) != s.count+1 {
			return fmt.Errorf("%w: spool record %d is surface %d", ErrCorrupt, s.count+1, p.surfaceID)
		}
		if err := s.addEntry(recordBox(p), n); err != nil {
			return err
		}
		off += int64(n)
		if s.count%4096 == 0 {
			dropPages(data[:off])
		}
	}
	if s.count != surfaces {
		return fmt.Errorf("%w: spool holds %d records, the checkpoint says %d surfaces", ErrCorrupt, s.count, surfaces)
	}
	return nil
}

// addEntry writes the leaf entry of a record of n bytes already in the
// spool.
func (s *recordSpool) addEntry(bb box, n int) error {
	s.count++
	s.ext.extend(bb)
	e := leafEntry{sid: uint32(s.count), bb: bb, off: uint64(s.size), n: uint32(n)}
	e.put(s.entry[:])
	if _, err := s.bw.Write(s.entry[:]); err != nil {
		return err
	}
	s.size += int64(n)
	return nil
}

// recordLen is the length of the record at the start of b, from its
// header and ring counts.
func recordLen(b []byte) (int, error) {
	if len(b) < recordHeader {
		return 0, fmt.Errorf("short record")
	}
	n := recordHeader + int(binary.LittleEndian.Uint16(b[10:])) + int(binary.LittleEndian.Uint32(b[12:]))
	off := recordHeader
	for range binary.LittleEndian.Uint16(b[16:]) {
		if off+2 > len(b) {
			return 0, fmt.Errorf("record rings")
		}
		k := 2 + 16*int(binary.LittleEndian.Uint16(b[off:]))
		off += k
		n += k
	}
	if n > len(b) || n > math.MaxUint32 {
		return 0, fmt.Errorf("record of %d bytes, %d left", n, len(b))
	}
	return n, nil
}
