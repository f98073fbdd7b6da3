package buildings_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solarstore"
)

// BenchmarkRenderSolarTile renders the solar map tile over the centre of
// the real NRW sample (109 buildings, 217 roof facets, all stored) at z14
// (the whole sample in one tile), z16 and z18, with a vector tile of the
// same place for scale: CPU time (the process's, so the benchmark's own
// goroutines and the runtime's) and allocations per tile.
func BenchmarkRenderSolarTile(b *testing.B) {
	ctx := context.Background()
	data := b.TempDir()
	if _, err := importer.LoD2(ctx, importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0"},
		[]string{testtool.Shared(b, "samples/real/LoD2_32_280_5659_1_NW.gml")}); err != nil {
		b.Fatal(err)
	}
	c := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack, Solar: solarstore.OpenPack})
	defer c.Close()
	v, err := c.Reload(ctx)
	if err != nil {
		b.Fatal(err)
	}
	lp, _ := v.Pack(pack.LoD2, "nrw")
	if _, err := fixture.SolarPack(ctx, data, "2026-07-21", lp.Manifest, lp.LoD2, 1_150_000, func(f fixture.SolarFacet) int64 {
		return 300_000 + f.SurfaceID*7919%1_000_000
	}); err != nil {
		b.Fatal(err)
	}
	if v, err = c.Reload(ctx); err != nil {
		b.Fatal(err)
	}
	srcs := buildings.SolarSources(buildings.Sources(v), buildings.SolarStores(v))
	if len(srcs) != 1 {
		b.Fatalf("%d solar sources", len(srcs))
	}
	const lon, lat = 5.8739, 51.0424
	for _, z := range []int{14, 16, 18} {
		n := math.Exp2(float64(z))
		x := int((lon + 180) / 360 * n)
		y := int((1 - math.Asinh(math.Tan(lat*math.Pi/180))/math.Pi) / 2 * n)
		b.Run(filepath.Join("png", "z"+string(rune('0'+z/10))+string(rune('0'+z%10))), func(b *testing.B) {
			var facets int
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				t, err := buildings.RenderSolarTile(ctx, srcs, z, x, y)
				if err != nil {
					b.Fatal(err)
				}
				facets = t.Facets
			}
			b.ReportMetric(float64(testtool.CPUTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(facets), "facets/op")
		})
		if z < buildings.RoofMinZoom {
			continue
		}
		b.Run(filepath.Join("mvt", "z"+string(rune('0'+z/10))+string(rune('0'+z%10))), func(b *testing.B) {
			tiler := buildings.NewTiler(buildings.Sources(v)).WithSolar(buildings.SolarStores(v))
			b.ReportAllocs()
			cpu := testtool.CPUTime()
			for b.Loop() {
				if _, err := tiler.Tile(ctx, z, x, y); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(testtool.CPUTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
