// Package tilecache keeps encoded map and terrain tiles built on demand: the
// most recently used ones, bounded in bytes, each built once however many
// requests ask for it at the same time.
package tilecache

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"
)

// Entry is one cached tile.
type Entry struct {
	Data []byte // the encoded tile
	ETag string // strong validator derived from the cache key
	Meta any    // what the builder wants kept with it (build statistics)
}

// Cache is safe for concurrent use.
type Cache struct {
	max int64

	mu    sync.Mutex
	lru   *list.List // of *item, most recent first
	items map[string]*list.Element
	size  int64

	flight       singleflight.Group
	hits, builds atomic.Int64
}

type item struct {
	key string
	e   Entry
}

// New returns a cache of at most maxBytes of tile data (0: 64 MiB). A
// negative maxBytes keeps nothing: every Get builds its tile, concurrent
// requests for one tile included (cold benchmarks, make bench-peers).
func New(maxBytes int64) *Cache {
	if maxBytes == 0 {
		maxBytes = 64 << 20
	}
	return &Cache{max: maxBytes, lru: list.New(), items: map[string]*list.Element{}}
}

// Keeps reports whether the cache keeps tiles (New with maxBytes >= 0):
// when it does not, a builder need not make what only later requests use.
func (c *Cache) Keeps() bool { return c.max >= 0 }

// ETag is the strong validator of key: the key names everything the tile
// depends on (data generation, parameters), so equal keys mean equal tiles.
func ETag(key string) string {
	sum := sha256.Sum256([]byte(key))
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// Get returns the tile of key, building it with build when it is not
// cached. The build runs for every waiter, so it is not cancelled with the
// first caller's request; errors are not cached.
func (c *Cache) Get(ctx context.Context, key string, build func(ctx context.Context) (Entry, error)) (Entry, error) {
	if c.max < 0 {
		e, err := build(ctx)
		if err != nil {
			return Entry{}, err
		}
		e.ETag = ETag(key)
		c.builds.Add(1)
		return e, nil
	}
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*item).e
		c.mu.Unlock()
		c.hits.Add(1)
		return e, nil
	}
	c.mu.Unlock()
	v, err, _ := c.flight.Do(key, func() (any, error) {
		e, err := build(context.WithoutCancel(ctx))
		if err != nil {
			return Entry{}, err
		}
		e.ETag = ETag(key)
		c.builds.Add(1)
		c.put(key, e)
		return e, nil
	})
	if err != nil {
		return Entry{}, err
	}
	return v.(Entry), nil
}

func (c *Cache) put(key string, e Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	c.items[key] = c.lru.PushFront(&item{key: key, e: e})
	c.size += int64(len(e.Data))
	for c.size > c.max && c.lru.Len() > 1 {
		el := c.lru.Back()
		it := el.Value.(*item)
		c.lru.Remove(el)
		delete(c.items, it.key)
		c.size -= int64(len(it.e.Data))
	}
}

// Stats reports cache hits, tiles built and the cached bytes.
func (c *Cache) Stats() (hits, builds, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits.Load(), c.builds.Load(), c.size
}

// Reset drops every cached tile (the counters stay): for benchmarks of cold
// builds. A data reload needs none, as keys name the data generation.
func (c *Cache) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.items)
	c.size = 0
}
