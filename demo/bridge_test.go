package demo

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// TestBridgeMask imports the he demo rasters: the pack records the bridge
// mask and has all four themes, canopy on the deck gives NoData (404) where
// the crowns would stand, and 1.5 m beside the deck the crown is kept.
func TestBridgeMask(t *testing.T) {
	data := t.TempDir()
	var site Site
	for _, s := range Sites {
		if s.BL == BridgeBL {
			site = s
		}
	}
	if err := importRasters(context.Background(), Options{DataDir: data, Log: func(string, ...any) {}}, site); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, string(pack.Vegetation), site.BL, site.Snapshot)
	m, err := pack.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Vegetation.BridgeMask || len(m.Vegetation.Themes) != 4 {
		t.Fatalf("manifest %+v", m.Vegetation)
	}
	ds, err := terrain.OpenPack(context.Background(), dir, m, terrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	z, e0, _ := site.Origin()
	deck, canopy := site.BridgeDeck(), site.CanopyFunc()
	n := site.WaterN() + 75.5 // a pixel centre beside a row of crown centres over the bank
	for _, tc := range []struct {
		name string
		e    float64
		err  error
	}{{"on the deck", e0 + 505.5, terrain.ErrNoData}, {"1.5 m beside", deck[2] + 1.5, nil}} {
		t.Run(tc.name, func(t *testing.T) {
			if math.IsNaN(canopy(tc.e, n)) {
				t.Fatalf("no synthetic crown at %.1f, %.1f", tc.e, n)
			}
			lon, lat := geo.FromUTM(z, tc.e, n)
			h, err := terrain.Canopy(context.Background(), []*terrain.Dataset{ds}, lon, lat, false)
			if !errors.Is(err, tc.err) || (err == nil && math.Abs(h.Value-canopy(tc.e, n)) > 0.01) {
				t.Errorf("canopy %v, %v; want error %v (crown %.2f m)", h.Value, err, tc.err, canopy(tc.e, n))
			}
		})
	}
}
