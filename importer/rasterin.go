package importer

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/svc-geodata/svc/raster"
)

// maxZipTIFF caps a GeoTIFF read from a zip archive into memory.
const maxZipTIFF = 2 << 30

type rasterKind int

const (
	kindTIFF rasterKind = iota
	kindXYZ
	kindURL
)

// rasterInput is one source raster: a local file, an entry of a zip
// archive, or a remote COG URL (pass-through).
type rasterInput struct {
	name string // for messages: path, or archive.zip!entry
	stem string // tile name
	kind rasterKind
	size int64
	path string    // local file
	zf   *zip.File // zip entry
	gz   bool      // gzip-compressed XYZ
	url  string
}

// rasterInputs expands paths (files, directories searched recursively, zip
// archives, or http(s) URLs) into raster inputs, sorted by name. The
// returned closer closes the zip archives.
func rasterInputs(paths []string) ([]rasterInput, io.Closer, error) {
	var out []rasterInput
	zips := closers{}
	for _, p := range paths {
		if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
			out = append(out, rasterInput{name: p, stem: stemOf(path.Base(strings.SplitN(p, "?", 2)[0])), kind: kindURL, url: p})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			zips.Close()
			return nil, nil, fmt.Errorf("%w: %v", ErrOptions, err)
		}
		if !st.IsDir() {
			ins, err := fileInputs(p, st.Size(), &zips, true)
			if err != nil {
				zips.Close()
				return nil, nil, err
			}
			out = append(out, ins...)
			continue
		}
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			ins, err := fileInputs(q, info.Size(), &zips, false)
			out = append(out, ins...)
			return err
		})
		if err != nil {
			zips.Close()
			return nil, nil, fmt.Errorf("importer: %s: %w", p, err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	if len(out) == 0 {
		zips.Close()
		return nil, nil, fmt.Errorf("%w: no GeoTIFF or XYZ files in %v", ErrOptions, paths)
	}
	return out, zips, nil
}

// kindOf returns the kind of a file name and whether it is gzipped;
// ok is false for names that are no raster.
func kindOf(name string) (kind rasterKind, gz, ok bool) {
	n := strings.ToLower(name)
	if strings.HasSuffix(n, ".gz") {
		gz, n = true, strings.TrimSuffix(n, ".gz")
	}
	switch ext := path.Ext(n); {
	case !gz && (ext == ".tif" || ext == ".tiff"):
		return kindTIFF, false, true
	case ext == ".xyz" || ext == ".txt":
		return kindXYZ, gz, true
	}
	return 0, false, false
}

func fileInputs(p string, size int64, zips *closers, explicit bool) ([]rasterInput, error) {
	if strings.EqualFold(filepath.Ext(p), ".zip") {
		return zipInputs(p, zips)
	}
	kind, gz, ok := kindOf(p)
	if !ok {
		if explicit {
			return nil, fmt.Errorf("%w: %s is not a GeoTIFF (.tif), XYZ (.xyz, .txt, .gz) or .zip file", ErrOptions, p)
		}
		return nil, nil
	}
	return []rasterInput{{name: p, stem: stemOf(filepath.Base(p)), kind: kind, size: size, path: p, gz: gz}}, nil
}

func zipInputs(p string, zips *closers) ([]rasterInput, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("importer: %s: %w", p, err)
	}
	*zips = append(*zips, zr)
	var out []rasterInput
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		kind, gz, ok := kindOf(f.Name)
		if !ok {
			continue
		}
		out = append(out, rasterInput{name: p + "!" + f.Name, stem: stemOf(path.Base(f.Name)), kind: kind,
			size: int64(f.CompressedSize64), zf: f, gz: gz})
	}
	return out, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// stemOf is the tile name of a file: its base name without raster
// extensions, with characters outside [A-Za-z0-9._-] replaced by "_".
func stemOf(base string) string {
	for {
		ext := strings.ToLower(path.Ext(base))
		if ext != ".gz" && ext != ".tif" && ext != ".tiff" && ext != ".xyz" && ext != ".txt" {
			break
		}
		base = base[:len(base)-len(ext)]
	}
	s := unsafeName.ReplaceAllString(base, "_")
	if s == "" || s == "." || s == ".." {
		s = "tile"
	}
	return s
}

// openText returns the (decompressed) text of an XYZ input.
func (in rasterInput) openText() (io.ReadCloser, error) {
	var rc io.ReadCloser
	var err error
	if in.zf != nil {
		rc, err = in.zf.Open()
	} else {
		rc, err = os.Open(in.path)
	}
	if err != nil || !in.gz {
		return rc, err
	}
	zr, err := gzip.NewReader(rc)
	if err != nil {
		rc.Close()
		return nil, err
	}
	return readCloser{zr, closers{zr, rc}}, nil
}

// openTIFF returns a raster source over a GeoTIFF input and its closer.
func (in rasterInput) openTIFF() (raster.Source, io.Closer, error) {
	if in.zf == nil {
		f, err := raster.OpenFile(in.path)
		return f, f, err
	}
	if in.zf.UncompressedSize64 > maxZipTIFF {
		return nil, nil, fmt.Errorf("%d bytes uncompressed exceed %d", in.zf.UncompressedSize64, int64(maxZipTIFF))
	}
	rc, err := in.zf.Open()
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxZipTIFF+1))
	if err != nil {
		return nil, nil, err
	}
	return raster.BytesSource(b), io.NopCloser(nil), nil
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		_ = c.Close()
	}
	return nil
}

type readCloser struct {
	io.Reader
	io.Closer
}
