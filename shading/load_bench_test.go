package shading

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/scalegen"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// vegPack commits a vegetation pack of one 1 km CDSM tile at 1 m from
// scalegen's relief (seed 0: forest patches with round crowns) with its
// south-west corner at x0, y0, and opens it.
func vegPack(b *testing.B, x0, y0 float64) *terrain.Dataset {
	b.Helper()
	const n = 1000
	nd := terrain.Nodata
	g := raster.Grid{Width: n, Height: n, Data: make([]float32, n*n), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{x0, 1, 0, y0 + n, 0, -1}}
	scalegen.Relief{}.Canopy(g.Data, x0, y0+n, 1, n, n, func(x, y float64) bool { return false })
	dir := b.TempDir()
	w, err := pack.Create(dir, pack.Key{Product: pack.Vegetation, BL: "he", Snapshot: "2026-01-01"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	if err := os.MkdirAll(filepath.Join(w.Dir(), terrain.LayerCDSM), 0o755); err != nil {
		b.Fatal(err)
	}
	path := terrain.LayerCDSM + "/cdsm.tif"
	writeCOG(b, filepath.Join(w.Dir(), path), g)
	ix := terrain.Index{EPSG: 25832, Layers: map[string][]terrain.Tile{terrain.LayerCDSM: {{Name: "cdsm", Path: path, BBox: [4]float64{x0, y0, x0 + n, y0 + n}, PixelM: 1}}}}
	if err := terrain.WriteIndex(filepath.Join(w.Dir(), terrain.IndexName), ix); err != nil {
		b.Fatal(err)
	}
	m, err := w.Commit(context.Background(), pack.Manifest{LicenseID: "dl-de-zero-2.0", CRS: "EPSG:25832", Vegetation: &pack.VegetationInfo{Index: terrain.IndexName}})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := terrain.OpenPack(context.Background(), filepath.Join(dir, string(pack.Vegetation), "he", "2026-01-01"), m, terrain.Options{Cache: raster.NewCache(64 << 20)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ds.Close() })
	return ds
}

// BenchmarkLoad: reading what one building's shading needs from warm packs:
// the LoD2 boxes within 200 m (the benchmark block's ~400 houses as boxes
// in a LoD2 pack; LoadScene) and the crowns within 100 m from the CDSM and
// the DGM (LoadCanopy, 200 x 200 cells).
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	_, ds := judgeDEM(b)
	dgm, err := NewLayerHeights(ds.Layer(terrain.LayerDGM))
	if err != nil {
		b.Fatal(err)
	}
	const x, y = 605012.5, 5605012.5
	veg := vegPack(b, 604500, 5604500)
	cdsm, err := NewLayerHeights(veg.Layer(terrain.LayerCDSM))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	w, err := pack.Create(dir, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(ctx, filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for gx := -200.0; gx <= 200; gx += 18 {
		for gy := -200.0; gy <= 200; gy += 18 {
			if math.Hypot(gx, gy) > 200 {
				continue
			}
			n++
			in := lod2store.BuildingInput{GMLID: "DEHE" + string(rune('a'+n%26)) + string(rune('0'+n/26%10)) + string(rune('0'+n/260)), Valid: true,
				Surfaces: fixture.Box(x+gx, y+gy, 10, 8, 200, 8)}
			if err := lw.Add(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	st, err := lw.Finish(ctx, map[string]string{"bl": "he"})
	if err != nil {
		b.Fatal(err)
	}
	m, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0", CRS: "EPSG:25832", BBoxWGS84: st.BBoxWGS84[:],
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}})
	if err != nil {
		b.Fatal(err)
	}
	lod, err := lod2store.OpenPack(ctx, filepath.Join(dir, string(pack.LoD2), "he", "2026-07-20"), m)
	if err != nil {
		b.Fatal(err)
	}
	defer lod.Close()
	b.Run("scene", func(b *testing.B) {
		b.ReportAllocs()
		var tris int
		for b.Loop() {
			s, err := LoadScene(b.Context(), lod, x, y, 200)
			if err != nil {
				b.Fatal(err)
			}
			tris = s.Triangles()
		}
		b.ReportMetric(float64(tris), "triangles")
		b.ReportMetric(float64(n), "buildings")
	})
	b.Run("canopy", func(b *testing.B) {
		b.ReportAllocs()
		crowns := 0
		for b.Loop() {
			c, err := LoadCanopy(b.Context(), cdsm, dgm, nil, x, y, 100, 1)
			if err != nil {
				b.Fatal(err)
			}
			crowns = 0
			for _, v := range c.top {
				if !math.IsNaN(float64(v)) {
					crowns++
				}
			}
		}
		b.ReportMetric(float64(crowns), "crown-cells")
	})
}
