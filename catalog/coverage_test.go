package catalog

import (
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
)

func TestCoverage(t *testing.T) {
	mk := func(bbox []float64, attr string) *Pack {
		return &Pack{Manifest: pack.Manifest{BBoxWGS84: bbox, Attribution: attr}}
	}
	v := &View{packs: map[pack.Product][]*Pack{pack.Terrain: {
		mk([]float64{8, 50, 9, 51}, "© HVBG"),
		mk([]float64{13, 52, 14, 53}, "© Berlin"),
		mk([]float64{8.5, 50.5, 9.5, 51.5}, "© HVBG"),
	}}}
	for _, tc := range []struct {
		name   string
		p      pack.Product
		within geo.BBox
		bounds [4]float64
		attr   string
	}{
		{"all, each attribution once", pack.Terrain, World, [4]float64{8, 50, 14, 53}, "© HVBG; © Berlin"},
		{"only the packs meeting within", pack.Terrain, geo.BBox{MinLon: 12, MinLat: 51, MaxLon: 15, MaxLat: 54}, [4]float64{13, 52, 14, 53}, "© Berlin"},
		{"nothing published: the Web Mercator square", pack.LoD2, World, [4]float64{-180, -85.0511, 180, 85.0511}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, a := v.Coverage(tc.p, tc.within)
			if b != tc.bounds || a != tc.attr {
				t.Errorf("Coverage = %v %q, want %v %q", b, a, tc.bounds, tc.attr)
			}
		})
	}
}
