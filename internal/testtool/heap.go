package testtool

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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
