package qmesh

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"

	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/tilecache"
)

// Tiler builds tiles on demand and keeps the most recently used ones, gzip
// compressed, in a cache bounded in bytes. Concurrent requests for the same
// missing tile build it once. It is safe for concurrent use.
type Tiler struct {
	geoid *geoid.Model
	cache *tilecache.Cache
}

// Result is one encoded tile.
type Result struct {
	Gzip  []byte // the tile, gzip-compressed (quantized-mesh is served as gzip)
	ETag  string // strong validator: tile, extensions, data generation and height model
	Stats Stats
}

// New returns a Tiler lifting heights with g (nil: the embedded default) and
// caching up to cacheBytes of compressed tiles (default 64 MiB).
func New(g *geoid.Model, cacheBytes int64) *Tiler {
	if g == nil {
		g = geoid.Default()
	}
	return &Tiler{geoid: g, cache: tilecache.New(cacheBytes)}
}

// HeightModel names the model the tiles' heights are lifted with.
func (tl *Tiler) HeightModel() string { return tl.geoid.ID() }

// Tile returns tile t built from sample. generation identifies the data the
// sampler reads (it changes when packs are published), so a reload never
// serves a tile of the old data.
func (tl *Tiler) Tile(ctx context.Context, generation string, sample Sampler, t Tile, normals bool) (Result, error) {
	if err := t.Check(); err != nil {
		return Result{}, err
	}
	key := fmt.Sprintf("%s|%s|%d/%d/%d|%t", generation, tl.geoid.ID(), t.Z, t.X, t.Y, normals)
	e, err := tl.cache.Get(ctx, key, func(ctx context.Context) (tilecache.Entry, error) {
		m, st, err := build(ctx, t, sample, tl.geoid)
		if err != nil {
			return tilecache.Entry{}, err
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(encode(m, normals))
		zw.Close()
		return tilecache.Entry{Data: buf.Bytes(), Meta: st}, nil
	})
	if err != nil {
		return Result{}, err
	}
	st, _ := e.Meta.(Stats)
	return Result{Gzip: e.Data, ETag: e.ETag, Stats: st}, nil
}

// CacheStats reports cache hits, tiles built and the cached bytes.
func (tl *Tiler) CacheStats() (hits, builds, bytes int64) { return tl.cache.Stats() }
