package state_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/svc-geodata/svc/state"
)

// benchBackends runs f as a sub-benchmark against every backend
// (PostgreSQL skipped without the postgresql package, as in the tests).
func benchBackends(b *testing.B, f func(b *testing.B, s state.Store)) {
	b.Run("sqlite", func(b *testing.B) {
		s, _ := openTest(b)
		f(b, s)
	})
	b.Run("postgres", func(b *testing.B) {
		f(b, openPG(b))
	})
}

// BenchmarkKeyByHash is the lookup of a key the access layer's cache
// misses: one indexed read among 1,000 keys.
func BenchmarkKeyByHash(b *testing.B) {
	benchBackends(b, func(b *testing.B, s state.Store) {
		ctx := context.Background()
		for i := range 1000 {
			k := testKey(fmt.Sprint("k", i), 0)
			k.Hash[0], k.Hash[1] = byte(i), byte(i>>8)
			if err := s.CreateKey(ctx, k); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if _, err := s.KeyByHash(ctx, [32]byte{byte(n % 1000), byte(n % 1000 >> 8)}); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	})
}

// BenchmarkFlush is one background flush of a busy second: 500 keyless
// clients, 200 usage rows over 20 keys and 20 last-used times.
func BenchmarkFlush(b *testing.B) {
	benchBackends(b, func(b *testing.B, s state.Store) {
		ctx := context.Background()
		var batch state.Batch
		for i := range 20 {
			id := fmt.Sprint("k", i)
			if err := s.CreateKey(ctx, testKey(id, byte(i+1))); err != nil {
				b.Fatal(err)
			}
			batch.LastUsed = append(batch.LastUsed, state.KeyUse{ID: id, At: t0})
			for j := range 10 {
				batch.Usage = append(batch.Usage, state.UsageDelta{Subject: id, Day: "2026-05-14",
					Pattern: fmt.Sprint("GET /v1/p", j), BL: "be", Calls: 3, Errors: 1})
			}
		}
		for c := range 500 {
			batch.Keyless = append(batch.Keyless, state.ClientCount{Day: "2026-05-14", Client: uint64(c) * 0x9e3779b97f4a7c15, Calls: 2})
		}
		batch.Sketches = []state.Sketch{{Month: "2026-05", Registers: make([]byte, 1<<12)}}
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Flush(ctx, batch); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "flushes/s")
	})
}
