package raster

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// DefaultCacheBytes is the budget of the private cache Open creates when it
// is given none: 64 MiB, 64 decoded 512x512 float32 tiles.
const DefaultCacheBytes = 64 << 20

// Cache holds decoded tiles of any number of COGs, bounded in bytes and
// evicting the least recently used tiles first. It is safe for concurrent
// use; when several goroutines want the same missing tile it is read and
// decoded once. It also owns the ZSTD decoders its COGs share.
type Cache struct {
	maxBytes int64
	ids      atomic.Uint64 // COG identities
	clock    atomic.Int64  // advances on every insert; stamps recency

	mu      sync.RWMutex
	entries map[cacheKey]*cacheEntry
	bytes   int64
	peak    int64 // the most bytes held at once (before an eviction)
	loads   int64
	evicts  int64

	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
	zstdErr  error
}

// cacheKey names one tile: COG identity, overview level, tile index.
type cacheKey struct {
	cog   uint64
	level int32
	tile  int32
}

// cacheEntry is a cached tile or a load in flight (done not yet closed).
type cacheEntry struct {
	blk  atomic.Pointer[block]
	used atomic.Int64
	done chan struct{}
	err  error // set before done is closed when the load failed
	// slot is the COG's pointer to this entry (see level.slots), cleared
	// when the entry leaves the cache.
	slot *atomic.Pointer[cacheEntry]
}

// touch marks e as used now (for the LRU order), writing only when the
// clock moved, so warm reads of one tile do not write shared memory.
func (c *Cache) touch(e *cacheEntry) {
	if now := c.clock.Load(); e.used.Load() != now {
		e.used.Store(now)
	}
}

// forget clears e's slot; the caller holds c.mu and removes e.
func (e *cacheEntry) forget() {
	if e.slot != nil {
		e.slot.CompareAndSwap(e, nil)
	}
}

// CacheStats is a snapshot of a cache's counters, for metrics.
type CacheStats struct {
	Bytes int64 // decoded bytes held
	// PeakBytes is the most decoded bytes held at once since creation,
	// counting a new tile before the eviction it causes: what the cache
	// added to the heap at its fullest, after its COGs closed (which
	// drops their tiles) too.
	PeakBytes int64
	Tiles     int   // tiles held or loading
	Loads     int64 // tiles read and decoded since creation
	Evictions int64 // tiles dropped to stay within the budget
}

// NewCache returns a cache holding at most maxBytes bytes of decoded tiles
// (values <= 0 mean DefaultCacheBytes). A single tile larger than the budget
// is decoded for its caller but not kept.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &Cache{maxBytes: maxBytes, entries: map[cacheKey]*cacheEntry{}}
}

// Stats returns the current counters.
func (c *Cache) Stats() CacheStats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return CacheStats{Bytes: c.bytes, PeakBytes: c.peak, Tiles: len(c.entries), Loads: c.loads, Evictions: c.evicts}
}

// newID returns a fresh COG identity for cache keys.
func (c *Cache) newID() uint64 { return c.ids.Add(1) }

// decoder returns the shared ZSTD decoder, created on first use.
func (c *Cache) decoder() (*zstd.Decoder, error) {
	c.zstdOnce.Do(func() {
		c.zstdDec, c.zstdErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
			zstd.WithDecoderMaxMemory(maxBlockBytes),
			zstd.WithDecodeAllCapLimit(true))
	})
	return c.zstdDec, c.zstdErr
}

// get returns the tile for k, calling load at most once across concurrent
// callers when it is missing. The warm path takes a read lock and does not
// allocate.
func (c *Cache) get(ctx context.Context, k cacheKey, slot *atomic.Pointer[cacheEntry], load func() (*block, error)) (*block, error) {
	for {
		c.mu.RLock()
		e := c.entries[k]
		c.mu.RUnlock()
		if e != nil {
			if b := e.blk.Load(); b != nil {
				c.touch(e)
				return b, nil
			}
			b, retry, err := c.wait(ctx, e)
			if !retry {
				return b, err
			}
			continue
		}
		c.mu.Lock()
		if c.entries[k] != nil {
			c.mu.Unlock()
			continue
		}
		e = &cacheEntry{done: make(chan struct{}), slot: slot}
		c.entries[k] = e
		c.mu.Unlock()
		return c.fill(k, e, load)
	}
}

// wait blocks until another goroutine's load of e ends. retry is true when
// that load was cancelled by its own context while ours is still live.
func (c *Cache) wait(ctx context.Context, e *cacheEntry) (*block, bool, error) {
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	if b := e.blk.Load(); b != nil {
		return b, false, nil
	}
	if isCtxErr(e.err) && ctx.Err() == nil {
		return nil, true, nil
	}
	return nil, false, e.err
}

// fill runs load for entry e, publishes the result and evicts old tiles.
func (c *Cache) fill(k cacheKey, e *cacheEntry, load func() (*block, error)) (*block, error) {
	b, err := load()
	c.mu.Lock()
	c.loads++
	if err == nil {
		e.blk.Store(b)
	}
	if err != nil || b.size() > c.maxBytes {
		delete(c.entries, k)
	} else {
		e.used.Store(c.clock.Add(1))
		c.bytes += b.size()
		c.peak = max(c.peak, c.bytes)
		c.evictLocked(k)
		if e.slot != nil {
			e.slot.Store(e)
		}
	}
	c.mu.Unlock()
	e.err = err
	close(e.done)
	return b, err
}

// evictLocked drops least recently used tiles, never keep, until the cache
// fits its budget. It scans all entries per eviction: eviction follows a
// tile decode, which costs far more than the scan.
func (c *Cache) evictLocked(keep cacheKey) {
	for c.bytes > c.maxBytes {
		var (
			victim cacheKey
			oldest *cacheEntry
		)
		for k, e := range c.entries {
			if k == keep || e.blk.Load() == nil {
				continue
			}
			if oldest == nil || e.used.Load() < oldest.used.Load() {
				victim, oldest = k, e
			}
		}
		if oldest == nil {
			return
		}
		c.bytes -= oldest.blk.Load().size()
		c.evicts++
		oldest.forget()
		delete(c.entries, victim)
	}
}

// drop removes every finished tile of COG id, for example when a dataset is
// replaced.
func (c *Cache) drop(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if k.cog == id {
			if b := e.blk.Load(); b != nil {
				c.bytes -= b.size()
				e.forget()
				delete(c.entries, k)
			}
		}
	}
}

// isCtxErr reports whether err comes from a cancelled or expired context.
func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
