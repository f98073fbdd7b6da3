package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// denseTown serves one LoD2 pack with 1,500 gabled buildings in 1 km2 (the
// urban density of the issue), built once per test binary.
var denseTown = sync.OnceValues(func() (*Server, error) {
	data, err := tempDir()
	if err != nil {
		return nil, err
	}
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(context.Background(), filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 1500 {
		x, y := 477000+rng.Float64()*980, 5551000+rng.Float64()*980
		if err := lw.Add(context.Background(), lod2store.BuildingInput{GMLID: fmt.Sprintf("DEHEBENCH%05d", i), Valid: true,
			Surfaces: gabled(x, y, 12, 9, 110, 7, 4)}); err != nil {
			return nil, err
		}
	}
	st, err := lw.Finish(context.Background(), map[string]string{"bl": "he"})
	if err != nil {
		return nil, err
	}
	if _, err := w.Commit(context.Background(), pack.Manifest{LicenseID: "cc-by-4.0", CRS: "EPSG:25832",
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}}); err != nil {
		return nil, err
	}
	cat := catalog.New(catalog.Options{Dir: data, LoD2: lod2store.OpenPack})
	if _, err := cat.Reload(context.Background()); err != nil {
		return nil, err
	}
	return New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
})

// gabled is a box with a gable roof: ground, 4 walls (two pentagons), 2 roof facets.
func gabled(x, y, l, d, z0, h, ridge float64) []lod2store.SurfaceInput {
	zr := z0 + h + ridge
	return []lod2store.SurfaceInput{
		{Class: lod2store.ClassGround, Polygons: [][]lod2store.Ring{{{{x, y + d, z0}, {x + l, y + d, z0}, {x + l, y, z0}, {x, y, z0}}}}},
		{Class: lod2store.ClassWall, Polygons: [][]lod2store.Ring{{{{x, y, z0}, {x + l, y, z0}, {x + l, y, z0 + h}, {x, y, z0 + h}}}}},
		{Class: lod2store.ClassWall, Polygons: [][]lod2store.Ring{{{{x + l, y, z0}, {x + l, y + d, z0}, {x + l, y + d, z0 + h}, {x + l, y + d/2, zr}, {x + l, y, z0 + h}}}}},
		{Class: lod2store.ClassWall, Polygons: [][]lod2store.Ring{{{{x + l, y + d, z0}, {x, y + d, z0}, {x, y + d, z0 + h}, {x + l, y + d, z0 + h}}}}},
		{Class: lod2store.ClassWall, Polygons: [][]lod2store.Ring{{{{x, y + d, z0}, {x, y, z0}, {x, y, z0 + h}, {x, y + d/2, zr}, {x, y + d, z0 + h}}}}},
		{Class: lod2store.ClassRoof, Polygons: [][]lod2store.Ring{{{{x, y, z0 + h}, {x + l, y, z0 + h}, {x + l, y + d/2, zr}, {x, y + d/2, zr}}}}},
		{Class: lod2store.ClassRoof, Polygons: [][]lod2store.Ring{{{{x, y + d/2, zr}, {x + l, y + d/2, zr}, {x + l, y + d, z0 + h}, {x, y + d, z0 + h}}}}},
	}
}

// BenchmarkGLB1km2 exports the 1,500 buildings of a 1 km2 box through the
// whole handler (store, triangulation, GLB), plain and with Draco.
func BenchmarkGLB1km2(b *testing.B) {
	srv, err := denseTown()
	if err != nil {
		b.Fatal(err)
	}
	lon0, lat0 := geo.FromUTM(geo.Zone32, 477000, 5551000)
	lon1, lat1 := geo.FromUTM(geo.Zone32, 477995, 5551995)
	for _, c := range []string{"none", "draco"} {
		b.Run(c, func(b *testing.B) {
			url := fmt.Sprintf("/v1/buildings/3d.glb?bbox=%.6f,%.6f,%.6f,%.6f&compression=%s", lon0, lat0, lon1, lat1, c)
			b.ReportAllocs()
			size, start := 0, testtool.CPUTime()
			defer func() {
				b.ReportMetric(float64(testtool.CPUTime()-start)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(size), "glb-bytes")
			}()
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
				size = rec.Body.Len()
				if rec.Code != 200 || rec.Header().Get("X-Svc-Buildings") != "1500" || rec.Header().Get("X-Svc-Compression") != c {
					b.Fatalf("%d, %s buildings, compression %s: %s", rec.Code, rec.Header().Get("X-Svc-Buildings"),
						rec.Header().Get("X-Svc-Compression"), rec.Header().Get("X-Svc-Compression-Error"))
				}
			}
		})
	}
}
