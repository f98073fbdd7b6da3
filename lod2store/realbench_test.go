package lod2store_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
)

// BenchmarkSearchRealLoD2 searches the real NRW LoD2 tile (../shared
// samples; 109 buildings in 1 km², real footprints) with 1 km² boxes whose
// edges cut through the town, limit 100, and reports the median time.
func BenchmarkSearchRealLoD2(b *testing.B) {
	b.Run("nrw", func(b *testing.B) {
		benchReal(b, "samples/real/LoD2_32_280_5659_1_NW.gml", "nrw", geo.Zone32, 280000, 5659000)
	})
	b.Run("be", func(b *testing.B) { benchReal(b, "samples/real/3910_5817.gml", "be", geo.Zone33, 391000, 5817000) })
}

func benchReal(b *testing.B, rel, bl string, zone geo.Zone, e0, n0 float64) {
	sample := testtool.Shared(b, rel)
	data := b.TempDir()
	ctx := context.Background()
	m, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: bl, Snapshot: "2026-01-01", LicenseID: "dl-de-zero-2.0"}, []string{sample})
	if err != nil {
		b.Fatal(err)
	}
	st, err := lod2store.OpenLoD2(ctx, filepath.Join(data, "lod2", bl, m.Snapshot, importer.LoD2File))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var boxes []geo.BBox
	for _, off := range [][2]float64{{-300, -300}, {300, -200}, {-200, 300}, {250, 250}, {0, 400}, {-400, 0}} {
		lon0, lat0 := geo.FromUTM(zone, e0+off[0], n0+off[1])
		lon1, lat1 := geo.FromUTM(zone, e0+1000+off[0], n0+1000+off[1])
		boxes = append(boxes, geo.BBox{MinLon: lon0, MinLat: lat0, MaxLon: lon1, MaxLat: lat1})
	}
	times := make([]time.Duration, 0, b.N)
	hits := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		h, err := st.Search(ctx, boxes[i%len(boxes)], 0, 100)
		times = append(times, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		hits += len(h)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(hits)/float64(len(times)), "hits/op")
}

// BenchmarkTileFileBuild writes the tile file of the real NRW tile's pack
// (../shared samples, 109 buildings) again, as an import's last step does,
// and reports its CPU and size per building next to the import's CPU.
func BenchmarkTileFileBuild(b *testing.B) {
	sample := testtool.Shared(b, "samples/real/LoD2_32_280_5659_1_NW.gml")
	data := b.TempDir()
	ctx := context.Background()
	cpu0 := testtool.CPUTime()
	m, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-01-01", LicenseID: "dl-de-zero-2.0"}, []string{sample})
	if err != nil {
		b.Fatal(err)
	}
	importCPU := testtool.CPUTime() - cpu0
	path := filepath.Join(data, "lod2", "nrw", m.Snapshot, importer.LoD2File)
	nb := float64(m.LoD2.BuildingCount)
	b.ReportAllocs()
	cpu0 = testtool.CPUTime()
	for b.Loop() {
		if err := lod2store.BuildTileFile(ctx, path); err != nil {
			b.Fatal(err)
		}
	}
	cpu := float64(testtool.CPUTime()-cpu0) / float64(b.N)
	st, err := os.Stat(path + lod2store.TileFileSuffix)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(cpu/nb, "cpu-ns/building")
	b.ReportMetric(float64(importCPU)/nb, "import-cpu-ns/building")
	b.ReportMetric(float64(st.Size())/nb, "B/building")
}
