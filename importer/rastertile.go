package importer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// tile imports one source into the file dst (rel is its path in the pack)
// and returns its index entry; role receives pixel samples. Errors writing
// dst are ioErrors (the import stops); any other error is the source's.
func (ri *rasterImport) tile(ctx context.Context, dst, rel string, in rasterInput, role *roleStats) (terrain.Tile, error) {
	t := terrain.Tile{Name: in.stem, Path: rel}
	switch in.kind {
	case kindURL:
		src := raster.NewHTTPSource(ri.client, in.url)
		c, err := raster.Open(ctx, src, nil)
		if err != nil {
			return t, err
		}
		defer c.Close()
		t.Path, t.URL = "", in.url
		return t, ri.describe(&t, c.Info())
	case kindXYZ:
		rc, err := in.openText()
		if err != nil {
			return t, err
		}
		defer rc.Close()
		g, err := terrain.ReadXYZ(rc, path.Base(in.name), terrain.XYZOptions{EPSG: ri.epsg})
		if err != nil {
			return t, err
		}
		if err := ri.describe(&t, raster.Info{Width: g.Width, Height: g.Height, GeoTransform: g.GeoTransform}); err != nil {
			return t, err
		}
		role.addGrid(g)
		if ri.mask != nil {
			ri.mask.apply(&g)
		}
		return t, ioErr(writeCOGFile(dst, g))
	}
	src, closer, err := in.openTIFF()
	if err != nil {
		return t, err
	}
	defer closer.Close()
	c, err := raster.Open(ctx, src, nil)
	if err != nil {
		return t, err
	}
	defer c.Close()
	info := c.Info()
	if info.EPSG != 0 && info.EPSG != ri.epsg {
		return t, fmt.Errorf("%w: the file is in EPSG:%d but the import is in EPSG:%d (--crs)", ErrOptions, info.EPSG, ri.epsg)
	}
	if err := ri.describe(&t, info); err != nil {
		return t, err
	}
	if ri.mode == ModeMirror {
		if !info.Tiled {
			return t, fmt.Errorf("%w: not a COG (stripped layout); import it with --mode convert", ErrOptions)
		}
		if err := role.addCOG(ctx, c); err != nil {
			return t, err
		}
		return t, copySource(ctx, dst, src)
	}
	g, err := c.ReadGrid(ctx)
	if err != nil {
		return t, err
	}
	g.EPSG = ri.epsg
	g.ReplaceNodata(terrain.Nodata)
	role.addGrid(g)
	if ri.mask != nil {
		ri.mask.apply(&g)
	}
	return t, ioErr(writeCOGFile(dst, g))
}

// describe fills the tile's extent from the raster's georeferencing and
// rejects rasters the point router cannot place.
func (ri *rasterImport) describe(t *terrain.Tile, info raster.Info) error {
	gt := info.GeoTransform
	if gt[2] != 0 || gt[4] != 0 {
		return fmt.Errorf("%w: rotated rasters are not supported", raster.ErrUnsupported)
	}
	if gt == [6]float64{0, 1, 0, 0, 0, 1} {
		return fmt.Errorf("%w: the raster has no georeferencing", ErrOptions)
	}
	minX, minY, maxX, maxY := info.Bounds()
	t.BBox = [4]float64{minX, minY, maxX, maxY}
	t.PixelM = gt[1]
	return nil
}

// writeCOGFile writes g as a COG (DEFLATE, predictor 3) to path.
func writeCOGFile(path string, g raster.Grid) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = raster.WriteCOG(bw, g, raster.WriteOptions{Compression: raster.CompressionDeflate})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copySource copies the bytes of src to a new file at path (fsynced).
// Read errors are the source's; write errors are ioErrors.
func copySource(ctx context.Context, path string, src raster.Source) error {
	f, err := os.Create(path)
	if err != nil {
		return ioError{err}
	}
	buf := make([]byte, 1<<20)
	var off int64
	for {
		n, rerr := src.ReadAt(ctx, buf, off)
		if _, err := f.Write(buf[:n]); err != nil {
			f.Close()
			return ioError{err}
		}
		off += int64(n)
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			f.Close()
			return rerr
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return ioError{err}
	}
	return ioErr(f.Close())
}

// ioError is a failure writing the pack (disk full, permissions): it
// stops the import whatever --strict says, where a bad source only skips
// its tile.
type ioError struct{ err error }

func (e ioError) Error() string { return e.err.Error() }
func (e ioError) Unwrap() error { return e.err }

// ioErr wraps a non-nil err as an ioError.
func ioErr(err error) error {
	if err == nil {
		return nil
	}
	return ioError{err}
}
