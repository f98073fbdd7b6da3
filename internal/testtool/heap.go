package testtool

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// PeakLiveHeap runs f and returns the largest live Go heap (bytes marked
// reachable by a garbage collection, runtime/metrics /gc/heap/live:bytes)
// seen while it ran, sampled every millisecond with the collector set to
// GOGC=10 so that collections are frequent and the live heap is followed
// closely. It measures what f holds, not what it allocates in passing, and
// not memory outside the Go heap (mmapped files, SQLite's allocator). It is
// meant for tests that compare two input sizes: memory that grows with the
// input shows as a ratio, whatever the machine's load.
func PeakLiveHeap(f func()) uint64 {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	done, res := make(chan struct{}), make(chan uint64, 1)
	go func() {
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				res <- peak
				return
			case <-t.C:
			}
		}
	}()
	f()
	runtime.GC() // the last cycle's mark of what f still held at its end
	close(done)
	peak := <-res
	if peak < base {
		return 0
	}
	return peak - base
}

// HeapPerItem runs a build at n and at 4n items and returns the growth of
// its peak live Go heap (PeakLiveHeap) per added item, in bytes. prepare(m)
// makes the input of m items and returns the build, which returns the
// bytes of a bounded cache it filled (a raster block cache: full at one
// size, not at the other), taken off its peak. A first build of n items,
// not measured, loads what a process loads once (a height model). Each size
// is built three times and its smallest peak taken: the live heap is only
// known at the end of a collection, so a peak catches a build's transient
// garbage (a tile's lattice, a mesh) when a cycle happens to end while it is
// alive, which adds noise of a few tiles' worth but never takes any away.
func HeapPerItem(t testing.TB, what string, n int, prepare func(m int) func() (cached uint64)) float64 {
	t.Helper()
	prepare(n)()
	var peak [2]float64
	for k, m := range []int{n, 4 * n} {
		peak[k] = math.Inf(1)
		for range 3 {
			run := prepare(m) // a fresh input: a second build of the same would reuse the first
			var cached uint64
			p := PeakLiveHeap(func() { cached = run() })
			peak[k] = min(peak[k], float64(p)-float64(cached))
			t.Logf("%s: %d: peak live heap %.2f MiB (%.2f MiB of it cache)", what, m, float64(p)/(1<<20), float64(cached)/(1<<20))
		}
	}
	return (peak[1] - peak[0]) / float64(3*n)
}
