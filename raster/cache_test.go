package raster

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blockOf returns a float32 block of n pixels (4n+64 bytes in the cache).
func blockOf(n int) *block { return &block{f32: make([]float32, n)} }

func TestCacheSingleFlight(t *testing.T) {
	t.Parallel()
	c := NewCache(1 << 20)
	var calls atomic.Int64
	release := make(chan struct{})
	load := func() (*block, error) {
		calls.Add(1)
		<-release
		return blockOf(10), nil
	}
	var wg sync.WaitGroup
	results := make([]*block, 50)
	for i := range results {
		wg.Go(func() {
			b, err := c.get(context.Background(), cacheKey{1, 0, 7}, nil, load)
			if err != nil {
				t.Error(err)
			}
			results[i] = b
		})
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("load ran %d times, want 1", calls.Load())
	}
	for _, b := range results {
		if b != results[0] || b == nil {
			t.Fatal("goroutines got different blocks")
		}
	}
}

func TestCacheEvictsLRUByBytes(t *testing.T) {
	t.Parallel()
	one := blockOf(1000).size()
	c := NewCache(3 * one)
	ctx := context.Background()
	var loads int
	get := func(tile int32) {
		t.Helper()
		if _, err := c.get(ctx, cacheKey{1, 0, tile}, nil, func() (*block, error) { loads++; return blockOf(1000), nil }); err != nil {
			t.Fatal(err)
		}
	}
	get(0)
	get(1)
	get(2)
	get(0) // 0 is now more recent than 1
	get(3) // evicts 1
	if s := c.Stats(); s.Bytes > 3*one || s.Tiles != 3 || s.Evictions != 1 {
		t.Errorf("stats = %+v, want 3 tiles within %d bytes and 1 eviction", s, 3*one)
	}
	loads = 0
	get(0)
	get(2)
	get(3)
	if loads != 0 {
		t.Errorf("recent tiles were evicted (%d reloads)", loads)
	}
	get(1)
	if loads != 1 {
		t.Errorf("least recent tile was kept")
	}
}

func TestCacheErrorsAreNotCached(t *testing.T) {
	t.Parallel()
	c := NewCache(1 << 20)
	boom := errors.New("boom")
	k := cacheKey{1, 0, 0}
	if _, err := c.get(context.Background(), k, nil, func() (*block, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	b, err := c.get(context.Background(), k, nil, func() (*block, error) { return blockOf(1), nil })
	if err != nil || b == nil {
		t.Fatalf("retry after error: %v", err)
	}
}

func TestCacheOversizeBlockNotKept(t *testing.T) {
	t.Parallel()
	c := NewCache(100)
	b, err := c.get(context.Background(), cacheKey{1, 0, 0}, nil, func() (*block, error) { return blockOf(1000), nil })
	if err != nil || b == nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Tiles != 0 || s.Bytes != 0 {
		t.Errorf("stats = %+v, want empty", s)
	}
}

func TestCacheWaiterContext(t *testing.T) {
	t.Parallel()
	c := NewCache(1 << 20)
	k := cacheKey{1, 0, 0}
	started, release := make(chan struct{}), make(chan struct{})
	loaderCtx, cancelLoader := context.WithCancel(context.Background())
	go func() {
		_, _ = c.get(loaderCtx, k, nil, func() (*block, error) {
			close(started)
			<-release
			return nil, loaderCtx.Err()
		})
	}()
	<-started
	// A waiter whose own context ends gives up with its context's error.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := c.get(ctx, k, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiter err = %v, want deadline exceeded", err)
	}
	// A live waiter retries when the loader was cancelled.
	done := make(chan error)
	go func() {
		_, err := c.get(context.Background(), k, nil, func() (*block, error) { return blockOf(1), nil })
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	cancelLoader()
	close(release)
	if err := <-done; err != nil {
		t.Errorf("live waiter err = %v, want a retried load", err)
	}
}

func TestCOGCloseDropsTiles(t *testing.T) {
	t.Parallel()
	cache := NewCache(0)
	c, err := Open(context.Background(), BytesSource(cogBytes(t, 600, 600)), cache)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sample(context.Background(), 480500.5, 5599500.5); err != nil {
		t.Fatal(err)
	}
	if cache.Stats().Tiles != 1 {
		t.Fatalf("stats = %+v, want 1 tile", cache.Stats())
	}
	held := cache.Stats().Bytes
	_ = c.Close()
	if s := cache.Stats(); s.Tiles != 0 || s.Bytes != 0 || s.PeakBytes != held || held == 0 {
		t.Errorf("after Close stats = %+v, want empty with PeakBytes %d", s, held)
	}
}

// TestSampleConcurrent samples one COG from many goroutines with a cache
// too small for all tiles, under the race detector when enabled.
func TestSampleConcurrent(t *testing.T) {
	t.Parallel()
	data := cogBytes(t, 1100, 900)
	ref, err := Open(context.Background(), BytesSource(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(context.Background(), BytesSource(data), NewCache(2<<20))
	if err != nil {
		t.Fatal(err)
	}
	minX, minY, maxX, maxY := ref.Info().Bounds()
	pts := randomPoints(8, 100, minX, minY, maxX, maxY)
	want := make([]float64, len(pts))
	for i, p := range pts {
		want[i], _, _ = ref.Sample(context.Background(), p[0], p[1])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range pts {
				j := (i + g*25) % len(pts)
				v, _, err := c.Sample(context.Background(), pts[j][0], pts[j][1])
				if err != nil || v != want[j] {
					t.Errorf("point %d: %v %v, want %v", j, v, err, want[j])
					return
				}
			}
		})
	}
	wg.Wait()
	if s := c.cache.Stats(); s.Bytes > 2<<20 {
		t.Errorf("cache holds %d bytes over its budget", s.Bytes)
	}
}
