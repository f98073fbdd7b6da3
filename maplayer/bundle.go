package maplayer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/svc-geodata/svc/pmtiles"
)

// Bundle is an archive `svc export pmtiles` wrote, opened to answer its
// layer's tile route without the source data.
type Bundle struct {
	Path   string
	Meta   Metadata
	Header pmtiles.Header
	f      *os.File
	r      *pmtiles.Reader
}

// OpenBundle opens the PMTiles archive at path. An archive without
// svc_layer in its metadata (not written by svc) is an error: which route
// it would answer is unknown.
func OpenBundle(path string) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("maplayer: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("maplayer: %w", err)
	}
	r, err := pmtiles.Open(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("maplayer: %s: %w", path, err)
	}
	b := &Bundle{Path: path, Header: r.Header(), f: f, r: r}
	if err := json.Unmarshal(r.Metadata(), &b.Meta); err != nil || b.Meta.Layer == "" {
		f.Close()
		return nil, fmt.Errorf("maplayer: %s: metadata without svc_layer: not an archive of svc export pmtiles", path)
	}
	return b, nil
}

// Close closes the archive file.
func (b *Bundle) Close() error { return b.f.Close() }

// Tile returns tile z/x/y as stored (gzip'd when Header.TileCompression
// is pmtiles.Gzip), or an error wrapping pmtiles.ErrNoTile.
func (b *Bundle) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	if z < 0 || z > 30 || x < 0 || y < 0 {
		return nil, fmt.Errorf("%w: %d/%d/%d", pmtiles.ErrNoTile, z, x, y)
	}
	return b.r.Tile(ctx, uint8(z), uint32(x), uint32(y))
}

// Bounds is the archive's bbox (WGS84 west, south, east, north).
func (b *Bundle) Bounds() [4]float64 {
	h := b.Header
	return [4]float64{h.MinLon, h.MinLat, h.MaxLon, h.MaxLat}
}

// Bundles are the archives a server answers from, by layer name. A nil
// *Bundles holds none.
type Bundles struct {
	byLayer map[string]*Bundle
}

// OpenBundles opens the archives at paths; two for the same layer are an
// error (which would answer is unclear).
func OpenBundles(paths []string) (*Bundles, error) {
	bs := &Bundles{byLayer: map[string]*Bundle{}}
	for _, p := range paths {
		b, err := OpenBundle(p)
		if err != nil {
			bs.Close()
			return nil, err
		}
		if o, ok := bs.byLayer[b.Meta.Layer]; ok {
			b.Close()
			bs.Close()
			return nil, fmt.Errorf("maplayer: %s and %s both hold layer %q", o.Path, p, b.Meta.Layer)
		}
		bs.byLayer[b.Meta.Layer] = b
	}
	return bs, nil
}

// Get returns the archive of layer name.
func (bs *Bundles) Get(name string) (*Bundle, bool) {
	if bs == nil {
		return nil, false
	}
	b, ok := bs.byLayer[name]
	return b, ok
}

// Layers names the layers held, sorted.
func (bs *Bundles) Layers() []string {
	if bs == nil {
		return nil
	}
	var ns []string
	for n := range bs.byLayer {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// Close closes every archive.
func (bs *Bundles) Close() error {
	if bs == nil {
		return nil
	}
	var errs []error
	for _, b := range bs.byLayer {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}
