package importer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkImportLoD2Real imports the two real tiles of ../shared/samples
// (NRW, CityGML 1.0, EPSG:25832; Berlin, CityGML 2.0, EPSG:25833), each
// cut into 8 files of growing size and replicated 4 times with unique
// gml:ids (about 21 MB, 64 files), end to end into two packs, once per
// GOMAXPROCS setting with --workers equal to it. MB/s (b.SetBytes) is the
// throughput issue 24 asks to be at least 60 per core; anyone with more
// cores runs -bench 'ImportLoD2Real/procs=16' to see the scaling.
func BenchmarkImportLoD2Real(b *testing.B) {
	requireSample(b, sampleNRW)
	requireSample(b, sampleBE)
	type set struct {
		bl    string
		paths []string
	}
	var sets []set
	var total int64
	for _, s := range []struct{ bl, src string }{{"nrw", sampleNRW}, {"be", sampleBE}} {
		sub := b.TempDir()
		paths, n := splitSample(b, s.src, sub, splitOptions{Parts: 8, Replicas: 4})
		sets = append(sets, set{s.bl, paths})
		total += n
	}
	for _, procs := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			b.SetBytes(total)
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				data := b.TempDir()
				for _, s := range sets {
					c := Common{DataDir: data, BL: s.bl, Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0", Workers: procs}
					if _, err := LoD2(context.Background(), c, s.paths); err != nil {
						b.Fatal(err)
					}
				}
			}
			// The machine may be shared: CPU time per op is the figure
			// that load does not distort, MB/s the one it does.
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkImportLoD2Incremental imports a new snapshot of the real NRW
// tile cut into 40 files (8 parts x 5 replicas, about 12 MB) and into 160
// (x 20 replicas, 47 MB) in which every 20th file (5 %) changed, over a
// data directory holding the previous snapshot ("5pct-changed"), and the
// same files into an empty one ("full"). Issue 24 asks the first to take
// at most 10 % of the second (compare cpu-ms/op; files-parsed/op shows
// what was parsed). The 5pct-changed import must patch the previous pack.
func BenchmarkImportLoD2Incremental(b *testing.B) {
	requireSample(b, sampleNRW)
	for _, size := range []struct {
		name     string
		replicas int
	}{{"files=40", 5}, {"files=160", 20}} {
		b.Run(size.name, func(b *testing.B) {
			src := b.TempDir()
			paths, total := splitSample(b, sampleNRW, src, splitOptions{Parts: 8, Replicas: size.replicas})
			prev := b.TempDir()
			c := Common{DataDir: prev, BL: "nrw", Snapshot: "2026-01-01", LicenseID: "dl-de-zero-2.0"}
			if _, err := LoD2(context.Background(), c, paths); err != nil {
				b.Fatal(err)
			}
			for i := 3; i < len(paths); i += 20 {
				raw, _ := os.ReadFile(paths[i])
				os.WriteFile(paths[i], bytes.Replace(raw, []byte(" 5659"), []byte(" 5658"), 1), 0o644)
			}
			for _, tc := range []struct {
				name string
				data func() string
			}{
				{"full", func() string { return b.TempDir() }},
				{"5pct-changed", func() string { return prev }},
			} {
				b.Run(tc.name, func(b *testing.B) {
					b.SetBytes(total)
					b.ReportAllocs()
					parsed := 0
					cpu0 := cpuTime()
					for b.Loop() {
						var sum LoD2Summary
						c := Common{DataDir: tc.data(), BL: "nrw", Snapshot: "2027-01-01", LicenseID: "dl-de-zero-2.0", Summary: &sum}
						if _, err := LoD2(context.Background(), c, paths); err != nil {
							b.Fatal(err)
						}
						parsed += sum.ParsedFiles
						if tc.name != "full" && !sum.Patched {
							b.Fatalf("not patched: %s", sum.NoPatch)
						}
					}
					b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
					b.ReportMetric(float64(parsed)/float64(b.N), "files-parsed/op")
				})
			}
		})
	}
}
