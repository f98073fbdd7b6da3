package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/solar"
)

// BenchmarkBuildSolar: `svc build solar` of the real NRW tile (109
// buildings, 217 roof facets) with its synthetic 1 m DGM and a constructed
// hourly TMY, in process, with 1 and 2 workers. cpu-ms/building is the
// process's CPU per building (getrusage), the figure to compare on the
// shared machine: its ratio between the worker counts is the CPU side of
// the parallel efficiency; buildings/s is wall time (meaningful on an
// idle machine only). docs/performance.md, "svc build solar".
func BenchmarkBuildSolar(b *testing.B) {
	data := b.TempDir()
	gml := testtool.Shared(b, "samples/real/LoD2_32_280_5659_1_NW.gml")
	if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-07-20",
		LicenseID: "dl-de-zero-2.0"}, []string{gml}); err != nil {
		b.Fatal(err)
	}
	sampleDGM(b, data)
	tmy := b.TempDir() + "/tmy.csv"
	if err := os.WriteFile(tmy, []byte(tmyDoc(solar.Site{LatDeg: 51.06, LonDeg: 6.91, ElevationM: 60})), 0o644); err != nil {
		b.Fatal(err)
	}
	const buildings = 109
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			before, start := cpuTime(), time.Now()
			for b.Loop() {
				root := newRoot()
				root.SetOut(io.Discard)
				root.SetErr(io.Discard)
				root.SetArgs([]string{"build", "solar", "--data", data, "--bl", "nrw", "--irradiance", tmy, "--workers", fmt.Sprint(workers)})
				if err := root.Execute(); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(b.N * buildings)
			b.ReportMetric(float64(cpuTime()-before)/float64(time.Millisecond)/n, "cpu-ms/building")
			b.ReportMetric(n/time.Since(start).Seconds(), "buildings/s")
		})
	}
}
