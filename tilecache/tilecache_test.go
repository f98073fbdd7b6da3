package tilecache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCache(t *testing.T) {
	c := New(250)
	ctx := context.Background()
	var builds atomic.Int64
	build := func(n int) func(context.Context) (Entry, error) {
		return func(context.Context) (Entry, error) {
			builds.Add(1)
			time.Sleep(10 * time.Millisecond)
			return Entry{Data: make([]byte, n)}, nil
		}
	}
	// Concurrent requests for one missing tile build it once.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if e, err := c.Get(ctx, "a", build(100)); err != nil || len(e.Data) != 100 || e.ETag != ETag("a") {
				t.Errorf("%v %d %q", err, len(e.Data), e.ETag)
			}
		})
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("%d builds for one tile", builds.Load())
	}
	c.Get(ctx, "b", build(100))
	c.Get(ctx, "a", build(100)) // a is now the most recent
	c.Get(ctx, "c", build(100)) // over 250 bytes: b, the least recent, goes
	hits, n, size := c.Stats()
	if n != 3 || size != 200 || hits != 1 { // waiters of a build share it, they are not hits
		t.Fatalf("hits %d builds %d size %d", hits, n, size)
	}
	c.Get(ctx, "b", build(100))
	if builds.Load() != 4 {
		t.Fatalf("evicted tile not rebuilt: %d builds", builds.Load())
	}
	// Errors are not cached.
	boom := errors.New("boom")
	if _, err := c.Get(ctx, "x", func(context.Context) (Entry, error) { return Entry{}, boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if e, err := c.Get(ctx, "x", build(10)); err != nil || len(e.Data) != 10 {
		t.Fatalf("after an error: %v", err)
	}
}

func TestReset(t *testing.T) {
	c := New(0)
	ctx := context.Background()
	n := 0
	build := func(context.Context) (Entry, error) { n++; return Entry{Data: make([]byte, 10)}, nil }
	c.Get(ctx, "a", build)
	c.Reset()
	if _, _, size := c.Stats(); size != 0 {
		t.Fatalf("size %d after Reset", size)
	}
	c.Get(ctx, "a", build)
	c.Get(ctx, "a", build)
	if _, _, size := c.Stats(); n != 2 || size != 10 {
		t.Fatalf("%d builds, size %d", n, size)
	}
}

// TestOff: a cache of negative size keeps nothing, so every Get builds
// its tile, concurrent Gets of one key included (make bench-peers measures
// cold tiles through the server with it), and still hands out the ETag.
func TestOff(t *testing.T) {
	c := New(-1)
	var builds atomic.Int64
	build := func(context.Context) (Entry, error) {
		builds.Add(1)
		time.Sleep(5 * time.Millisecond)
		return Entry{Data: []byte("tile")}, nil
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			e, err := c.Get(t.Context(), "k", build)
			if err != nil || string(e.Data) != "tile" || e.ETag != ETag("k") {
				t.Errorf("Get = %+v, %v", e, err)
			}
		})
	}
	wg.Wait()
	if _, err := c.Get(t.Context(), "k", build); err != nil {
		t.Fatal(err)
	}
	if n := builds.Load(); n != 5 {
		t.Errorf("5 Gets built %d tiles, want 5 (nothing cached)", n)
	}
	if _, _, size := c.Stats(); size != 0 {
		t.Errorf("cached %d bytes, want 0", size)
	}
}
