package scalegen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestGenerateDeterministic generates the same small state twice and
// wants the same bytes, ids unique across tiles, every tile inside NRW,
// buildings on the terrain and the OSM copies over the tiles.
func TestGenerateDeterministic(t *testing.T) {
	samples := testtool.Shared(t, "samples")
	gen := func(dir string) *Manifest {
		t.Helper()
		m, err := Generate(context.Background(), Options{BL: "nrw", Scale: 3.0 / 34000, Seed: 7, Dir: dir, Samples: samples, PixelM: 4})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := t.TempDir(), t.TempDir()
	ma, mb := gen(a), gen(b)
	if ma.LoD2.Files != 3 || ma.LoD2.Buildings != 3*109 || ma.DGM.Tiles != 3 || ma.OSM.Copies == 0 {
		t.Fatalf("manifest %+v %+v %+v", ma.LoD2, ma.DGM, ma.OSM.osmCounts)
	}
	for _, rel := range []string{"lod2", "dgm", "cdsm", "osm"} {
		ents, _ := os.ReadDir(filepath.Join(a, rel))
		for _, e := range ents {
			x, _ := os.ReadFile(filepath.Join(a, rel, e.Name()))
			y, err := os.ReadFile(filepath.Join(b, rel, e.Name()))
			if err != nil || !bytes.Equal(x, y) {
				t.Errorf("%s/%s differs between two runs with the same seed", rel, e.Name())
			}
		}
	}
	if ma.LoD2.Bytes != mb.LoD2.Bytes || ma.OSM.Bytes != mb.OSM.Bytes {
		t.Errorf("sizes differ: %d/%d, %d/%d", ma.LoD2.Bytes, mb.LoD2.Bytes, ma.OSM.Bytes, mb.OSM.Bytes)
	}
	nrw, _ := bl.Lookup("nrw")
	ids := map[string]string{}
	re := regexp.MustCompile(`gml:id="([^"]+)"`)
	for _, tile := range ma.Tiles {
		lon, lat := geo.FromUTM(geo.Zone32, float64(tile.EKM)*1000+500, float64(tile.NKM)*1000+500)
		if !nrw.Contains(lon, lat) {
			t.Errorf("tile %v lies outside NRW", tile)
		}
		name := "LoD2_" + tile.Name(geo.Zone32) + "_1_NW.gml"
		x, err := os.ReadFile(filepath.Join(a, "lod2", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(x, -1) {
			if o, dup := ids[string(m[1])]; dup {
				t.Fatalf("gml:id %s in %s and %s", m[1], o, name)
			}
			ids[string(m[1])] = name
		}
	}
	if len(ids) < 3*5000 {
		t.Errorf("%d gml:ids in 3 tiles, want those of the template 3 times", len(ids))
	}
}

// TestAppendMM formats millimetres as the AdV files write metres.
func TestAppendMM(t *testing.T) {
	for _, c := range []struct {
		mm   int64
		want string
	}{{280873299, "280873.299"}, {5659117000, "5659117.0"}, {35150, "35.15"}, {-1200, "-1.2"}, {7, "0.007"}} {
		if got := string(appendMM(nil, c.mm)); got != c.want {
			t.Errorf("appendMM(%d) = %s, want %s", c.mm, got, c.want)
		}
	}
}

// TestCanopyAboveGround wants forest patches with gaps and no negative
// height: the CDSM is a height above the DGM.
func TestCanopyAboveGround(t *testing.T) {
	r := Relief{seed: 1}
	const n = 250
	buf := make([]float32, n*n)
	veg, total := 0, 0
	for k := range 8 {
		r.Canopy(buf, 390000+float64(k)*1000, 5705000, 4, n, n, func(x, y float64) bool { return false })
		for _, v := range buf {
			total++
			if v == v {
				veg++
				if v < 0 || v > 30 {
					t.Fatalf("canopy %g m", v)
				}
			}
		}
	}
	if share := float64(veg) / float64(total); share < 0.05 || share > 0.6 {
		t.Errorf("vegetated share %.2f, want forest patches", share)
	}
}
