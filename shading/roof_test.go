package shading

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// TestRoofThroughStores: Roof reads everything through the stores (the DGM
// terrain pack, a LoD2 pack) and its answer for the flat roof of a low box
// with a tall box 5 m south equals Evaluate on the same boxes' triangles
// given by hand, step by step; the loss split adds up to the total loss.
func TestRoofThroughStores(t *testing.T) {
	ctx := context.Background()
	sky, _, _ := testSky(t) // the sky of the analytic site: 46 km away, the sun's direction differs by < 0.5°, both sides use it
	_, ds := judgeDEM(t)
	dgm, err := NewLayerHeights(ds.Layer(terrain.LayerDGM))
	if err != nil {
		t.Fatal(err)
	}
	const x, y = 605012.5, 5605012.5 // a judged point: flat lot of 50 m
	ground, _, err := dgm.HeightAt(ctx, x, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	low := fixture.Box(x-6, y-5, 12, 10, ground, 4)
	tall := fixture.Box(x-10, y-5-5-6, 20, 6, ground, 14)
	dir := t.TempDir()
	w, err := pack.Create(dir, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(ctx, filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range [][]lod2store.SurfaceInput{low, tall} {
		if err := lw.Add(ctx, lod2store.BuildingInput{GMLID: []string{"DEHElow", "DEHEtall"}[i], Valid: true, Surfaces: s}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := lw.Finish(ctx, map[string]string{"bl": "he"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0", CRS: "EPSG:25832", BBoxWGS84: st.BBoxWGS84[:],
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}})
	if err != nil {
		t.Fatal(err)
	}
	lod, err := lod2store.OpenPack(ctx, filepath.Join(dir, string(pack.LoD2), "he", "2026-07-20"), m)
	if err != nil {
		t.Fatal(err)
	}
	defer lod.Close()

	roof := low[len(low)-1].Polygons[0][0]
	var ring []float64
	for _, p := range roof {
		ring = append(ring, p[0], p[1], p[2])
	}
	f := Facet{Ring: ring}
	got, err := Roof(ctx, sky, nil, Sources{Zone: 32, DGM: dgm, LoD2: lod, Season: DefaultSeason(), TerrainOptions: TerrainOptions{MaxDistM: 4000}}, []Facet{f})
	if err != nil {
		t.Fatal(err)
	}

	// The same boxes by hand: each surface ring a fan of triangles (boxes
	// are convex).
	var tris []float64
	for _, b := range [][]lod2store.SurfaceInput{low, tall} {
		for _, s := range b {
			r := s.Polygons[0][0]
			for k := 1; k+1 < len(r); k++ {
				for _, p := range [][3]float64{r[0], r[k], r[k+1]} {
					tris = append(tris, p[0], p[1], p[2])
				}
			}
		}
	}
	scene, err := NewScene(x, y, tris)
	if err != nil {
		t.Fatal(err)
	}
	conv := GridConvergenceDeg(32, x, y)
	hs, err := TerrainHorizon(ctx, dgm, x, y, []float64{ground + 4 + normalOffsetM}, conv, TerrainOptions{MaxDistM: 4000})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Evaluate(ctx, sky, NewSun(sky, conv), f, Obstacles{Terrain: &TerrainView{Z: []float64{ground + 4 + normalOffsetM}, H: hs}, Buildings: scene, ConvDeg: conv, Season: DefaultSeason()}, FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := got[0]
	for i := range g.Vis {
		if g.VisTerrain[i] != want.VisTerrain[i] || g.VisBuildings[i] != want.VisBuildings[i] {
			t.Fatalf("step %d: visibility terrain %g buildings %g through the stores, %g %g by hand", i, g.VisTerrain[i], g.VisBuildings[i], want.VisTerrain[i], want.VisBuildings[i])
		}
	}
	if math.Abs(g.SkyView-want.SkyView) > 1e-9 || g.SkyView >= 1 {
		t.Errorf("sky view %.6f through the stores, %.6f by hand (want < 1: the tall box stands in the sky)", g.SkyView, want.SkyView)
	}
	lt, lb, lr := g.Loss()
	a := g.Shaded.Annual()
	if total := a.GlobalUnshaded() - a.Global(); math.Abs(lt+lb+lr-total) > 1e-6*total || lb <= 0 || lt <= 0 {
		t.Errorf("loss terrain %.0f + buildings %.0f + trees %.0f Wh/m², total %.0f", lt, lb, lr, total)
	}
	t.Logf("flat roof 4 m high, a 14 m box 5 m south: loss terrain %.1f, buildings %.1f, trees %.1f kWh/m² of %.1f; sky view %.3f",
		lt/1000, lb/1000, lr/1000, a.GlobalUnshaded()/1000, g.SkyView)
}
