package shading

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/solar"
)

// site of the analytic scenes: east of the zone's central meridian so the
// grid convergence (~1.9°) is part of what is judged.
const siteX, siteY = 650000.0, 5650000.0

// testSky is a clear-sky hourly year at the scene's site and its records by
// time, so tests can read each step's DNI themselves.
func testSky(t testing.TB) (*solar.Sky, map[int64]solar.Record, float64) {
	t.Helper()
	lon, lat := geo.FromUTM(geo.Zone(32), siteX, siteY)
	site := solar.Site{LatDeg: lat, LonDeg: lon, ElevationM: 50}
	spa := solar.DefaultSPAOptions()
	recs, err := solar.ClearSkyYear{Site: site, SPA: spa, Year: 2025, Step: time.Hour,
		LinkeByMonth: [12]float64{3.0, 3.2, 3.6, 4.0, 4.2, 4.3, 4.5, 4.4, 4.0, 3.6, 3.2, 3.0}}.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sky, err := solar.NewSky(context.Background(), recs, solar.SkyOptions{Site: site, SPA: spa, Model: solar.Perez, StepH: 1, Albedo: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	byTime := map[int64]solar.Record{}
	for _, r := range recs {
		byTime[r.Time.Unix()] = r
	}
	// Convergence found the way lod2store does: project a point 10 m north.
	x2, y2 := geo.ToUTM(geo.Zone(32), lon, lat+10.0/111320)
	return sky, byTime, math.Atan2(x2-siteX, y2-siteY) * 180 / math.Pi
}

// sunAt is step i's true azimuth and elevation in degrees, from the Sky's
// vector with plain trigonometry.
func sunAt(sky *solar.Sky, i int) (tm time.Time, azDeg, elDeg float64) {
	tm, e, n, u := sky.Step(i)
	return tm, math.Mod(math.Atan2(e, n)*180/math.Pi+360, 360), math.Asin(u) * 180 / math.Pi
}

// flatRoof is a 10 x 10 m flat roof at height z centred on the site.
func flatRoof(z float64) Facet {
	return Facet{Ring: []float64{
		siteX - 5, siteY - 5, z, siteX + 5, siteY - 5, z, siteX + 5, siteY + 5, z, siteX - 5, siteY + 5, z, siteX - 5, siteY - 5, z,
	}}
}

// quad appends the two triangles of the quadrilateral a b c d.
func quad(dst []float64, a, b, c, d [3]float64) []float64 {
	dst = append(dst, a[:]...)
	dst = append(dst, b[:]...)
	dst = append(dst, c[:]...)
	dst = append(dst, a[:]...)
	dst = append(dst, c[:]...)
	return append(dst, d[:]...)
}

// TestWallSouthOfFlatRoof: a wall rising H above a flat roof, D south of the
// roof's southern edge, 30 m wide. A sample point is shaded exactly when the
// sun is south of it within the wall's span and below atan(H/distance along
// the sun's azimuth): every hourly visibility and the annual beam loss are
// computed here with plain trigonometry and compared.
func TestWallSouthOfFlatRoof(t *testing.T) {
	sky, recs, conv := testSky(t)
	const roofZ, H, D, halfW = 10.0, 6.0, 4.0, 15.0
	yWall := siteY - 5 - D
	tris := quad(nil, [3]float64{siteX - halfW, yWall, 0}, [3]float64{siteX + halfW, yWall, 0},
		[3]float64{siteX + halfW, yWall, roofZ + H}, [3]float64{siteX - halfW, yWall, roofZ + H})
	scene, err := NewScene(siteX, siteY, tris)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := Evaluate(context.Background(), sky, NewSun(sky, conv), flatRoof(roofZ), Obstacles{Buildings: scene, ConvDeg: conv, Season: DefaultSeason()}, FacetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sh.Points) < 4 {
		t.Fatalf("%d sample points, want several", len(sh.Points))
	}
	var wantLoss, shadedSteps float64
	for i := range sky.Len() {
		tm, az, el := sunAt(sky, i)
		azGrid := (az + conv) * math.Pi / 180
		want := 0.0
		for _, p := range sh.Points {
			visible := 1.0
			if c := math.Cos(azGrid); c < 0 { // the sun is south of the point
				dist := (p[1] - yWall) / -c // horizontal distance to the wall along the sun's azimuth
				xHit := p[0] + dist*math.Sin(azGrid)
				if xHit >= siteX-halfW && xHit <= siteX+halfW && math.Tan(el*math.Pi/180) < (roofZ+H-p[2])/dist {
					visible = 0
				}
			}
			want += visible / float64(len(sh.Points))
		}
		if got := float64(sh.VisBuildings[i]); math.Abs(got-want) > 1e-6 {
			t.Fatalf("%s sun az %.2f° el %.2f°: visibility %.4f, want %.4f", tm.Format(time.RFC3339), az, el, got, want)
		}
		shadedSteps += 1 - want
		wantLoss += recs[tm.Unix()].DNI * math.Sin(el*math.Pi/180) * (1 - want) // flat roof: cos θ = sin(elevation), 1 h
	}
	a := sh.Buildings.Annual()
	gotLoss := a.BeamUnshaded - a.Beam
	if shadedSteps < 100 {
		t.Fatalf("only %.0f shaded steps: the scene judges nothing", shadedSteps)
	}
	if rel := math.Abs(gotLoss-wantLoss) / wantLoss; rel > 1e-4 {
		t.Errorf("annual beam loss %.1f Wh/m², want %.1f (%.4f %%)", gotLoss, wantLoss, 100*rel)
	}
	_, lb, _ := sh.Loss()
	t.Logf("convergence %.3f°, %d points, %.0f shaded step-equivalents, beam loss %.1f kWh/m² of %.1f, building loss (with circumsolar and sky view %.3f) %.1f kWh/m²",
		conv, len(sh.Points), shadedSteps, gotLoss/1000, a.BeamUnshaded/1000, sh.SkyView, lb/1000)
}

// TestTreeSouthOfFlatRoof: one tree, a cylindrical crown of radius R from
// base Zb to top Zt, centred D south of the roof's centre, attenuating by
// exp(−k·path). The path of each ray through the cylinder is computed here
// (chord of the circle clipped to the crown's height band) and the hourly
// visibility and annual beam loss compared, and the beam loss of the
// leaf-on months (k 0.175/m) and of the leaf-off months (0.05/m) each on
// its own; the crown is rasterised at 0.25 m, so a tolerance covers the
// staircase at its rim.
func TestTreeSouthOfFlatRoof(t *testing.T) {
	sky, recs, conv := testSky(t)
	const roofZ, R, Zb, Zt, D, cellM = 6.0, 4.0, 5.0, 18.0, 14.0, 0.25
	cx, cy := siteX, siteY-D
	g := CanopyGrid{MinX: cx - 10, MaxY: cy + 10, CellM: cellM, W: 80, H: 80}
	g.Top, g.Base = make([]float32, g.W*g.H), make([]float32, g.W*g.H)
	for r := range g.H {
		for c := range g.W {
			x, y := g.MinX+(float64(c)+0.5)*cellM, g.MaxY-(float64(r)+0.5)*cellM
			k := r*g.W + c
			g.Top[k], g.Base[k] = float32(math.NaN()), float32(math.NaN())
			if math.Hypot(x-cx, y-cy) <= R {
				g.Top[k], g.Base[k] = Zt, Zb
			}
		}
	}
	trees, err := NewCanopy(g)
	if err != nil {
		t.Fatal(err)
	}
	season := DefaultSeason()
	sh, err := Evaluate(context.Background(), sky, NewSun(sky, conv), flatRoof(roofZ), Obstacles{Trees: trees, ConvDeg: conv, Season: season}, FacetOptions{MaxPoints: 4})
	if err != nil {
		t.Fatal(err)
	}
	if sh.SkyView != 1 || sh.SkyViewTerrain != 1 {
		t.Errorf("sky view %g (terrain %g) without terrain and buildings, want 1 (the crowns do not count)", sh.SkyView, sh.SkyViewTerrain)
	}
	var wantLoss, sumAbs float64
	var worst float64
	var seasonGot, seasonWant [2]float64 // leaf-off, leaf-on
	for i := range sky.Len() {
		tm, az, el := sunAt(sky, i)
		azGrid := (az + conv) * math.Pi / 180
		hx, hy, tanE := math.Sin(azGrid), math.Cos(azGrid), math.Tan(el*math.Pi/180)
		k := season.LeafOffPerM
		if m := tm.Month(); m >= time.May && m <= time.October {
			k = season.LeafOnPerM
		}
		want := 0.0
		for _, p := range sh.Points {
			// Horizontal chord [s0, s1] of the ray's plan line through the circle.
			ox, oy := p[0]-cx, p[1]-cy
			b := ox*hx + oy*hy
			disc := b*b - (ox*ox + oy*oy - R*R)
			path := 0.0
			if disc > 0 {
				s0, s1 := -b-math.Sqrt(disc), -b+math.Sqrt(disc)
				// Clip to the heights: z(s) = p.z + s·tan e within [Zb, Zt].
				s0 = math.Max(s0, math.Max(0, (Zb-p[2])/tanE))
				s1 = math.Min(s1, (Zt-p[2])/tanE)
				if s1 > s0 {
					path = (s1 - s0) / math.Cos(el*math.Pi/180)
				}
			}
			want += math.Exp(-k*path) / float64(len(sh.Points))
		}
		got := float64(sh.Vis[i])
		worst = math.Max(worst, math.Abs(got-want))
		sumAbs += math.Abs(got - want)
		beam := recs[tm.Unix()].DNI * math.Sin(el*math.Pi/180)
		wantLoss += beam * (1 - want)
		s := 0
		if k == season.LeafOnPerM {
			s = 1
		}
		seasonGot[s] += beam * (1 - got)
		seasonWant[s] += beam * (1 - want)
	}
	// The leaf-on (May-October, k 0.175/m) and leaf-off (k 0.05/m) halves
	// of the year each on their own, so neither season's transmissivity
	// hides behind the other's.
	for s, name := range []string{"leaf-off", "leaf-on"} {
		if seasonWant[s] < 5000 {
			t.Fatalf("%s: expected beam loss %.0f Wh/m²: the season judges nothing", name, seasonWant[s])
		}
		if rel := math.Abs(seasonGot[s]-seasonWant[s]) / seasonWant[s]; rel > 0.02 {
			t.Errorf("%s beam loss %.1f Wh/m², want %.1f (%.2f %%)", name, seasonGot[s], seasonWant[s], 100*rel)
		}
	}
	t.Logf("beam loss leaf-off %.1f kWh/m² (hand-computed %.1f), leaf-on %.1f (%.1f)", seasonGot[0]/1000, seasonWant[0]/1000, seasonGot[1]/1000, seasonWant[1]/1000)
	a := sh.Shaded.Annual()
	gotLoss := a.BeamUnshaded - a.Beam
	if wantLoss < 10000 {
		t.Fatalf("expected beam loss %.0f Wh/m²: the tree judges nothing", wantLoss)
	}
	if rel := math.Abs(gotLoss-wantLoss) / wantLoss; rel > 0.02 {
		t.Errorf("annual beam loss %.1f Wh/m², want %.1f (%.2f %%)", gotLoss, wantLoss, 100*rel)
	}
	if mean := sumAbs / float64(sky.Len()); mean > 0.005 || worst > 0.15 {
		t.Errorf("visibility differs by %.4f on average, %.3f at worst (want < 0.005, < 0.15)", mean, worst)
	}
	t.Logf("tree beam loss %.1f kWh/m², hand-computed %.1f; visibility worst difference %.3f", gotLoss/1000, wantLoss/1000, worst)
}

// TestSkyViewFormula: the open plane sees (1+cos β)/2 of the hemisphere
// (relative 1) at any tilt; a uniform horizon of elevation e over a flat
// plane leaves cos²e (the closed form of the isotropic sky above e).
func TestSkyViewFormula(t *testing.T) {
	for _, tilt := range []float64{0, 20, 45, 70} {
		if got := SkyView(NewHorizon(72), tilt, 135); math.Abs(got-1) > 1e-9 {
			t.Errorf("open plane tilt %g: %.6f, want 1", tilt, got)
		}
	}
	for _, e := range []float64{5, 15, 30} {
		h := NewHorizon(360)
		for i := range h.ElevDeg {
			h.ElevDeg[i] = e
		}
		c := math.Cos(e * math.Pi / 180)
		if got := SkyView(h, 0, 0); math.Abs(got-c*c) > 1e-9 {
			t.Errorf("flat under a uniform %g° horizon: %.6f, want cos² = %.6f", e, got, c*c)
		}
	}
}

// TestBoundsSkipNoBlockedRay: the per-point sector bounds that spare the
// rays of a sun above every obstacle of its sector change no visibility of
// any step on the benchmark block (10 facets, ~400 houses, 40 crowns).
func TestBoundsSkipNoBlockedRay(t *testing.T) {
	sky, _, conv := testSky(t)
	blk := newBenchBlock(100)
	scene, err := NewScene(siteX, siteY, blk.tris)
	if err != nil {
		t.Fatal(err)
	}
	o := Obstacles{Buildings: scene, Trees: blk.canopy, Season: DefaultSeason(), ConvDeg: conv}
	full := o
	full.exhaustive = true
	sun := NewSun(sky, conv)
	shaded := 0
	for fi, f := range blk.facets {
		a, err := Evaluate(context.Background(), sky, sun, f, o, FacetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Evaluate(context.Background(), sky, sun, f, full, FacetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.Vis {
			if a.Vis[i] != b.Vis[i] || a.VisBuildings[i] != b.VisBuildings[i] {
				t.Fatalf("facet %d step %d: visibility %g/%g with bounds, %g/%g casting every ray", fi, i, a.VisBuildings[i], a.Vis[i], b.VisBuildings[i], b.Vis[i])
			}
			if b.Vis[i] < b.VisTerrain[i] {
				shaded++
			}
		}
	}
	if shaded < 500 {
		t.Fatalf("only %d shaded steps: the block judges nothing", shaded)
	}
}

// TestSkyViewTiltedNumeric: for tilted planes under an uneven horizon, the
// Dozier-Frew closed form of SkyView equals the view factor integrated
// numerically here from its definition, (1/π) ∫ max(cos θ, 0) dΩ over the
// sky above the horizon, dΩ = cos e de dφ.
func TestSkyViewTiltedNumeric(t *testing.T) {
	const rays = 3600
	h := NewHorizon(rays)
	for i := range h.ElevDeg {
		phi := float64(i) * 2 * math.Pi / rays
		h.ElevDeg[i] = 12 + 9*math.Sin(phi) + 5*math.Cos(3*phi)
	}
	worst := 0.0
	for _, c := range []struct{ tilt, az float64 }{{0, 0}, {30, 180}, {45, 100}, {60, 270}, {85, 20}} {
		b, a := c.tilt*math.Pi/180, c.az*math.Pi/180
		nE, nN, nU := math.Sin(b)*math.Sin(a), math.Sin(b)*math.Cos(a), math.Cos(b)
		const ne = 500
		v := 0.0
		for i := range rays {
			phi := (float64(i) + 0.5) * 2 * math.Pi / rays
			e0 := h.At(phi*180/math.Pi) * math.Pi / 180
			de := (math.Pi/2 - e0) / ne
			for j := range ne {
				e := e0 + (float64(j)+0.5)*de
				cosT := nE*math.Cos(e)*math.Sin(phi) + nN*math.Cos(e)*math.Cos(phi) + nU*math.Sin(e)
				v += math.Max(cosT, 0) * math.Cos(e) * de * (2 * math.Pi / rays)
			}
		}
		v /= math.Pi
		want := v / ((1 + math.Cos(b)) / 2)
		got := SkyView(h, c.tilt, c.az)
		worst = math.Max(worst, math.Abs(got-want))
		if math.Abs(got-want) > 2e-3 {
			t.Errorf("tilt %g azimuth %g: sky view %.5f, numerical %.5f", c.tilt, c.az, got, want)
		}
	}
	t.Logf("worst difference %.2e", worst)
}
