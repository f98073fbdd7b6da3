package shading

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/terrain"
)

// benchBlock is a suburban block around the site: gable-roofed houses
// (10 x 8 m, eaves 6-9 m) every 18 m within 200 m, 40 round tree crowns
// within 100 m, and the house at the centre with 10 roof facets (a row of
// five gable sections, 35°). Fixed seed.
type benchBlock struct {
	tris   []float64
	facets []Facet
	canopy *Canopy
}

func newBenchBlock(ground float64) benchBlock {
	rng := rand.New(rand.NewPCG(1, 2))
	var b benchBlock
	house := func(x0, y0, w, d, eave, ridge float64) {
		p := func(x, y, z float64) [3]float64 { return [3]float64{x0 + x, y0 + y, ground + z} }
		b.tris = quad(b.tris, p(0, 0, 0), p(w, 0, 0), p(w, 0, eave), p(0, 0, eave))
		b.tris = quad(b.tris, p(0, d, 0), p(w, d, 0), p(w, d, eave), p(0, d, eave))
		b.tris = quad(b.tris, p(0, 0, 0), p(0, d, 0), p(0, d, eave), p(0, 0, eave))
		b.tris = quad(b.tris, p(w, 0, 0), p(w, d, 0), p(w, d, eave), p(w, 0, eave))
		b.tris = quad(b.tris, p(0, 0, eave), p(w, 0, eave), p(w, d/2, ridge), p(0, d/2, ridge))
		b.tris = quad(b.tris, p(0, d, eave), p(w, d, eave), p(w, d/2, ridge), p(0, d/2, ridge))
		b.tris = append(b.tris, p(0, 0, eave)[0], p(0, 0, eave)[1], p(0, 0, eave)[2], p(0, d, eave)[0], p(0, d, eave)[1], p(0, d, eave)[2], p(0, d/2, ridge)[0], p(0, d/2, ridge)[1], p(0, d/2, ridge)[2])
	}
	for gx := -200.0; gx <= 200; gx += 18 {
		for gy := -200.0; gy <= 200; gy += 18 {
			if math.Hypot(gx, gy) > 200 || math.Abs(gx) < 30 && math.Abs(gy) < 10 {
				continue
			}
			eave := 6 + 3*rng.Float64()
			house(siteX+gx, siteY+gy, 10, 8, eave, eave+2.8)
		}
	}
	// The house at the centre: five 5 m gable sections along x, roofs 35°.
	const eave, d = 7.0, 8.0
	ridge := eave + d/2*math.Tan(35*math.Pi/180)
	for s := range 5 {
		x0 := siteX - 12.5 + float64(s)*5
		y0 := siteY - d/2
		z := func(v float64) float64 { return ground + v }
		b.facets = append(b.facets,
			Facet{Ring: []float64{x0, y0, z(eave), x0 + 5, y0, z(eave), x0 + 5, y0 + d/2, z(ridge), x0, y0 + d/2, z(ridge)}, TiltDeg: 35, AzimuthDeg: 180},
			Facet{Ring: []float64{x0, y0 + d, z(eave), x0, y0 + d/2, z(ridge), x0 + 5, y0 + d/2, z(ridge), x0 + 5, y0 + d, z(eave)}, TiltDeg: 35, AzimuthDeg: 0})
		for _, f := range b.facets[len(b.facets)-2:] {
			r := f.Ring
			b.tris = append(b.tris, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[0], r[1], r[2], r[6], r[7], r[8], r[9], r[10], r[11])
		}
	}
	g := CanopyGrid{MinX: siteX - 100, MaxY: siteY + 100, CellM: 1, W: 200, H: 200}
	g.Top, g.Base = make([]float32, g.W*g.H), make([]float32, g.W*g.H)
	for k := range g.Top {
		g.Top[k], g.Base[k] = float32(math.NaN()), float32(math.NaN())
	}
	for range 40 {
		cx, cy := siteX-95+190*rng.Float64(), siteY-95+190*rng.Float64()
		if math.Abs(cx-siteX) < 25 && math.Abs(cy-siteY) < 15 {
			continue
		}
		r, h := 3+2*rng.Float64(), 10+10*rng.Float64()
		for row := range g.H {
			for col := range g.W {
				x, y := g.MinX+float64(col)+0.5, g.MaxY-float64(row)-0.5
				if math.Hypot(x-cx, y-cy) <= r {
					k := row*g.W + col
					g.Top[k], g.Base[k] = float32(ground+h), float32(ground+0.25*h)
				}
			}
		}
	}
	b.canopy, _ = NewCanopy(g)
	b.setAzimuths(GridConvergenceDeg(32, siteX, siteY))
	return b
}

// setAzimuths makes the facets' true azimuths agree with their grid
// geometry (south and north in the grid) at convergence conv.
func (b *benchBlock) setAzimuths(conv float64) {
	for i := range b.facets {
		b.facets[i].AzimuthDeg = math.Mod(float64(180*(1-i%2))-conv+360, 360)
	}
}

// BenchmarkEvaluateFacet: one 20 m² roof facet of the block, 9 sample
// points, an hourly year (~4,400 daylight steps), terrain view, buildings
// and trees prepared.
func BenchmarkEvaluateFacet(b *testing.B) {
	sky, _, conv := testSky(b)
	blk := newBenchBlock(100)
	scene, err := NewScene(siteX, siteY, blk.tris)
	if err != nil {
		b.Fatal(err)
	}
	tv := &TerrainView{Z: []float64{0}, H: []Horizon{NewHorizon(72)}}
	for i := range tv.H[0].ElevDeg {
		tv.H[0].ElevDeg[i] = 2 + 3*math.Sin(float64(i)/7)
	}
	o := Obstacles{Terrain: tv, Buildings: scene, Trees: blk.canopy, Season: DefaultSeason(), ConvDeg: conv}
	sun := NewSun(sky, conv)
	b.ReportAllocs()
	cpu0 := testtool.CPUTime()
	for b.Loop() {
		if _, err := Evaluate(b.Context(), sky, sun, blk.facets[0], o, FacetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(testtool.CPUTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(scene.Triangles()), "triangles")
}

// BenchmarkBuilding: everything one building of 10 facets needs on demand
// once the stores are open and warm: the terrain horizon (72 rays, 10 km of
// the 5 m judged DGM pack, two heights), the scene of ~400 houses within
// 200 m, the crowns within 100 m, and the 10 facets.
func BenchmarkBuilding(b *testing.B) {
	sky, _, _ := testSky(b)
	_, ds := judgeDEM(b)
	dgm, err := NewLayerHeights(ds.Layer(terrain.LayerDGM))
	if err != nil {
		b.Fatal(err)
	}
	const x, y = 605012.5, 5605012.5 // the judged DGM's centre (the block moved there)
	ground, _, err := dgm.HeightAt(context.Background(), x, y, 1)
	if err != nil {
		b.Fatal(err)
	}
	blk := newBenchBlock(ground)
	for i := 0; i < len(blk.tris); i += 3 {
		blk.tris[i] += x - siteX
		blk.tris[i+1] += y - siteY
	}
	for _, f := range blk.facets {
		for i := 0; i < len(f.Ring); i += 3 {
			f.Ring[i] += x - siteX
			f.Ring[i+1] += y - siteY
		}
	}
	blk.canopy.minX += x - siteX
	blk.canopy.maxY += y - siteY
	blk.setAzimuths(GridConvergenceDeg(32, x, y))
	run := func() []*Shading {
		conv := GridConvergenceDeg(32, x, y)
		hs, err := TerrainHorizon(b.Context(), dgm, x, y, []float64{ground + 7, ground + 9.8}, conv, TerrainOptions{MaxDistM: 4900})
		if err != nil {
			b.Fatal(err)
		}
		scene, err := NewScene(x, y, blk.tris)
		if err != nil {
			b.Fatal(err)
		}
		o := Obstacles{Terrain: &TerrainView{Z: []float64{ground + 7, ground + 9.8}, H: hs}, Buildings: scene, Trees: blk.canopy, Season: DefaultSeason(), ConvDeg: conv}
		out, err := evaluateAll(b.Context(), sky, NewSun(sky, conv), blk.facets, o, FacetOptions{}, 0)
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	res := run() // warm the tile cache
	var loss [3]float64
	for _, s := range res {
		t, bl, tr := s.Loss()
		loss[0], loss[1], loss[2] = loss[0]+t, loss[1]+bl, loss[2]+tr
	}
	b.ReportAllocs()
	cpu0 := testtool.CPUTime()
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(testtool.CPUTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(loss[0]/1000/float64(len(res)), "terrain-kWh/m2")
	b.ReportMetric(loss[1]/1000/float64(len(res)), "buildings-kWh/m2")
	b.ReportMetric(loss[2]/1000/float64(len(res)), "trees-kWh/m2")
}
