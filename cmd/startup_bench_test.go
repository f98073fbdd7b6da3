package cmd

import (
	"context"
	"fmt"
	"github.com/svc-geodata/svc/internal/fixture"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/store"
)

// BenchmarkStartup16BL measures what `svc serve` does before it answers:
// scanning the data directory and opening one LoD2 pack per federal state,
// 16 packs with 1M surfaces in all (10,500 box buildings of 6 surfaces each).
func BenchmarkStartup16BL(b *testing.B) {
	data := b.TempDir()
	for i, st := range bl.All() {
		writeBoxPack(b, data, st, 10500, uint64(i))
	}
	b.ResetTimer()
	for b.Loop() {
		cat := catalog.New(catalog.Options{Dir: data, Openers: openers()})
		v, err := cat.Reload(context.Background())
		if err != nil || v.BLCount(pack.LoD2) != 16 {
			b.Fatalf("published %d: %v %v", v.BLCount(pack.LoD2), err, v.Problems)
		}
		cat.Close()
	}
}

func writeBoxPack(b *testing.B, data string, st bl.State, n int, seed uint64) {
	b.Helper()
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: st.Code, Snapshot: "2026-07-20"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	lw, err := store.CreateLoD2(context.Background(), filepath.Join(w.Dir(), "lod2.sqlite"), st.EPSG)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		x, y := 400000+rng.Float64()*4000, 5600000+rng.Float64()*4000
		if err := lw.Add(context.Background(), store.BuildingInput{GMLID: fmt.Sprintf("%s%08d", st.IDPrefix, i), Valid: true,
			Surfaces: fixture.Box(x, y, 10, 8, 50, 9)}); err != nil {
			b.Fatal(err)
		}
	}
	stats, err := lw.Finish(context.Background(), map[string]string{"bl": st.Code})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Commit(context.Background(), pack.Manifest{LicenseID: "cc-by-4.0", LoD2: &pack.LoD2Info{File: "lod2.sqlite",
		BuildingCount: stats.Buildings, SurfaceCount: stats.Surfaces}}); err != nil {
		b.Fatal(err)
	}
}
