package citygml

import (
	"archive/zip"
	"compress/flate"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Input is one CityGML document to read.
type Input struct {
	// Name identifies the document in errors: the file path, or
	// "archive.zip!entry/path.gml" for a zip entry.
	Name string
	// Size is the document's size in bytes (uncompressed for zip entries),
	// the total that Reader.Offset counts towards.
	Size int64
	// Open opens the document for reading; the caller closes it. Zip
	// entries are decompressed as they are read, never extracted whole.
	Open func() (io.ReadCloser, error)
	// Rel names the document independently of where its input path lies,
	// for comparing one snapshot's inputs with the next one's: the path
	// relative to the directory given (slash-separated), the base name of
	// a file given by itself, "archive.zip!entry/path.gml" (the archive's
	// base name) for a zip entry.
	Rel string
	// ModTime is the file's modification time, a zip entry's recorded one
	// (to the second at best; zero when the archive has none).
	ModTime time.Time
}

// isCityGMLName reports whether a file name has a .gml or .xml extension.
func isCityGMLName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".gml" || ext == ".xml"
}

// Inputs expands paths into documents, in order: a directory yields its
// .gml and .xml files (recursively, sorted by path), a .zip file its .gml
// and .xml entries (sorted by name), and any other file itself. It fails,
// naming the path, on a missing path, an unreadable or truncated zip, or a
// directory or zip without CityGML; an empty result is ErrNoInput.
func Inputs(paths []string) ([]Input, error) {
	var out []Input
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("citygml: input: %w", err)
		}
		var got []Input
		switch {
		case st.IsDir():
			got, err = dirInputs(p)
		case strings.EqualFold(filepath.Ext(p), ".zip"):
			got, err = zipInputs(p)
		default:
			got = []Input{fileInput(p, filepath.Base(p), st)}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no paths given", ErrNoInput)
	}
	return out, nil
}

func fileInput(path, rel string, st fs.FileInfo) Input {
	return Input{Name: path, Size: st.Size(), Rel: rel, ModTime: st.ModTime(), Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// dirInputs lists the CityGML files under dir; WalkDir visits in lexical
// order, so the result is deterministic.
func dirInputs(dir string) ([]Input, error) {
	var out []Input
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && isCityGMLName(d.Name()) {
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			out = append(out, fileInput(path, filepath.ToSlash(rel), info))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("citygml: input %s: %w", dir, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: directory %s holds no .gml or .xml file", ErrNoInput, dir)
	}
	return out, nil
}

// zipInputs lists the CityGML entries of a zip archive. The archive is
// reopened for each entry and the entry read at its recorded offset, so no
// file stays open between documents and the central directory is read once.
func zipInputs(path string) ([]Input, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrZip, path, err)
	}
	defer zr.Close()
	var out []Input
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !isCityGMLName(f.Name) {
			continue
		}
		if f.Method != zip.Store && f.Method != zip.Deflate {
			return nil, fmt.Errorf("%w: %s: entry %s: compression method %d not supported", ErrZip, path, f.Name, f.Method)
		}
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: entry %s: %w", ErrZip, path, f.Name, err)
		}
		e := zipEntry{path: path, name: f.Name, off: off, csize: int64(f.CompressedSize64),
			usize: int64(f.UncompressedSize64), method: f.Method, crc: f.CRC32}
		out = append(out, Input{Name: path + "!" + f.Name, Size: e.usize, Open: e.open,
			Rel: filepath.Base(path) + "!" + f.Name, ModTime: f.Modified})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: zip %s holds no .gml or .xml entry", ErrNoInput, path)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// zipEntry locates one entry's data in an archive.
type zipEntry struct {
	path, name   string
	off          int64
	csize, usize int64
	method       uint16
	crc          uint32
}

// open returns a reader of the entry's uncompressed bytes that checks the
// size and CRC-32 at the end.
func (e zipEntry) open() (io.ReadCloser, error) {
	f, err := os.Open(e.path)
	if err != nil {
		return nil, err
	}
	var rd io.Reader = io.NewSectionReader(f, e.off, e.csize)
	var fl io.ReadCloser
	if e.method == zip.Deflate {
		fl = flate.NewReader(rd)
		rd = fl
	}
	return &zipReader{e: e, f: f, fl: fl, r: rd, h: crc32.NewIEEE()}, nil
}

// zipReader checks an entry as it is read.
type zipReader struct {
	e  zipEntry
	f  *os.File
	fl io.ReadCloser
	r  io.Reader
	h  hash.Hash32
	n  int64
}

func (z *zipReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	z.n += int64(n)
	z.h.Write(p[:n])
	if z.n > z.e.usize {
		return n, fmt.Errorf("%w: %s: entry %s longer than recorded", ErrZip, z.e.path, z.e.name)
	}
	if errors.Is(err, io.EOF) {
		if z.n != z.e.usize || z.h.Sum32() != z.e.crc {
			return n, fmt.Errorf("%w: %s: entry %s: checksum or size mismatch", ErrZip, z.e.path, z.e.name)
		}
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		return n, fmt.Errorf("%w: %s: entry %s truncated", ErrZip, z.e.path, z.e.name)
	} else if err != nil {
		return n, fmt.Errorf("%w: %s: entry %s: %w", ErrZip, z.e.path, z.e.name, err)
	}
	return n, err
}

func (z *zipReader) Close() error {
	if z.fl != nil {
		z.fl.Close()
	}
	return z.f.Close()
}
