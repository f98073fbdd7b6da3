package qmesh

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/svc-geodata/svc/geoid"
)

// Tiler builds tiles on demand and keeps the most recently used ones, gzip
// compressed, in a cache bounded in bytes. Concurrent requests for the same
// missing tile build it once. It is safe for concurrent use.
type Tiler struct {
	geoid *geoid.Model
	max   int64

	mu    sync.Mutex
	lru   *list.List // of *entry, most recent first
	items map[string]*list.Element
	size  int64

	flight         singleflight.Group
	hits, builds   atomic.Int64
	builtTriangles atomic.Int64
}

type entry struct {
	key  string
	tile Result
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
	if cacheBytes <= 0 {
		cacheBytes = 64 << 20
	}
	return &Tiler{geoid: g, max: cacheBytes, lru: list.New(), items: map[string]*list.Element{}}
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
	tl.mu.Lock()
	if el, ok := tl.items[key]; ok {
		tl.lru.MoveToFront(el)
		r := el.Value.(*entry).tile
		tl.mu.Unlock()
		tl.hits.Add(1)
		return r, nil
	}
	tl.mu.Unlock()
	v, err, _ := tl.flight.Do(key, func() (any, error) {
		// The build runs for every waiter: it must not end with the first
		// caller's cancelled request.
		m, st, err := build(context.WithoutCancel(ctx), t, sample, tl.geoid)
		if err != nil {
			return Result{}, err
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(encode(m, normals))
		zw.Close()
		sum := sha256.Sum256([]byte(key))
		r := Result{Gzip: buf.Bytes(), ETag: `"` + hex.EncodeToString(sum[:12]) + `"`, Stats: st}
		tl.builds.Add(1)
		tl.builtTriangles.Add(int64(st.Triangles))
		tl.put(key, r)
		return r, nil
	})
	if err != nil {
		return Result{}, err
	}
	return v.(Result), nil
}

func (tl *Tiler) put(key string, r Result) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if _, ok := tl.items[key]; ok {
		return
	}
	tl.items[key] = tl.lru.PushFront(&entry{key: key, tile: r})
	tl.size += int64(len(r.Gzip))
	for tl.size > tl.max && tl.lru.Len() > 1 {
		el := tl.lru.Back()
		e := el.Value.(*entry)
		tl.lru.Remove(el)
		delete(tl.items, e.key)
		tl.size -= int64(len(e.tile.Gzip))
	}
}

// CacheStats reports cache hits, tiles built and the cached bytes.
func (tl *Tiler) CacheStats() (hits, builds, bytes int64) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.hits.Load(), tl.builds.Load(), tl.size
}
