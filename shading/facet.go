package shading

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/svc-geodata/svc/solar"
)

// Sun is the sun of every daylight step of a solar.Sky prepared for the
// rays of one location cell: true azimuth and elevation for the horizon
// test, the unit vector in grid axes (UTM: rotated by the grid convergence)
// for the rays, and the month for the season of the trees.
type Sun struct {
	AzimuthDeg, ElevationDeg []float64
	TrueE, TrueN             []float64 // unit vector east and north parts, true axes
	GridE, GridN, Up         []float64
	GridAzimuthDeg, TanElev  []float64
	Month                    []time.Month
}

// NewSun prepares the steps of sky for rays in a UTM grid whose convergence
// at the site is convDeg (true azimuth = grid azimuth − convDeg).
func NewSun(sky *solar.Sky, convDeg float64) *Sun {
	e, n, u := sky.SunVectors()
	s := &Sun{AzimuthDeg: make([]float64, len(e)), ElevationDeg: make([]float64, len(e)),
		TrueE: make([]float64, len(e)), TrueN: make([]float64, len(e)),
		GridAzimuthDeg: make([]float64, len(e)), TanElev: make([]float64, len(e)),
		GridE: make([]float64, len(e)), GridN: make([]float64, len(e)), Up: make([]float64, len(e)), Month: make([]time.Month, len(e))}
	sinG, cosG := math.Sincos(convDeg * math.Pi / 180)
	for i := range e {
		E, N, U := float64(e[i]), float64(n[i]), float64(u[i])
		s.AzimuthDeg[i] = math.Mod(math.Atan2(E, N)*180/math.Pi+360, 360)
		s.ElevationDeg[i] = math.Asin(math.Max(-1, math.Min(1, U))) * 180 / math.Pi
		s.TrueE[i], s.TrueN[i] = E, N
		s.GridE[i], s.GridN[i], s.Up[i] = E*cosG+N*sinG, N*cosG-E*sinG, U
		s.GridAzimuthDeg[i] = azimuthDeg(s.GridE[i], s.GridN[i])
		s.TanElev[i] = U / math.Max(math.Hypot(E, N), 1e-12)
	}
	for m := time.January; m <= time.December; m++ {
		from, to := sky.MonthSteps(m)
		for i := from; i < to; i++ {
			s.Month[i] = m
		}
	}
	return s
}

// TerrainView is the terrain horizon of a building at several heights
// (TerrainHorizon's answer); a facet at a height between two of them takes
// their linear interpolation, ray by ray.
type TerrainView struct {
	Z []float64 // ascending
	H []Horizon
}

// At returns the horizon at height z.
func (t *TerrainView) At(z float64) Horizon {
	if len(t.Z) == 1 || z <= t.Z[0] {
		return t.H[0]
	}
	for k := 1; k < len(t.Z); k++ {
		if z <= t.Z[k] || k == len(t.Z)-1 {
			f := math.Min(1, (z-t.Z[k-1])/(t.Z[k]-t.Z[k-1]))
			out := Horizon{ElevDeg: make([]float64, len(t.H[k].ElevDeg))}
			for i := range out.ElevDeg {
				out.ElevDeg[i] = t.H[k-1].ElevDeg[i]*(1-f) + t.H[k].ElevDeg[i]*f
			}
			return out
		}
	}
	return t.H[len(t.H)-1]
}

// Obstacles is what may shade a facet; any of them may be nil.
type Obstacles struct {
	Terrain   *TerrainView
	Buildings *Scene
	Trees     *Canopy
	Season    Season  // the trees' extinction; the zero value takes DefaultSeason()
	ConvDeg   float64 // grid convergence at the site
	// HorizonRays is the ray count of the buildings' horizon for the sky
	// view (default 72); HorizonM how far it looks (default 200 m).
	HorizonRays int
	HorizonM    float64
	// exhaustive casts every ray: the building rays walk the grid of the
	// whole scene (Scene.Blocked) instead of the per-point candidate
	// lists, the crowns' sector bounds are off; the exact path the tests
	// compare the fast one with.
	exhaustive bool
}

// Facet is one roof facet to evaluate.
type Facet struct {
	Ring       []float64 // exterior ring: x, y, z triples (UTM, DHHN2016), closed or not
	TiltDeg    float64   // 0 flat .. < 90
	AzimuthDeg float64   // true azimuth of the downslope normal (any value when flat)
}

// FacetOptions tune Evaluate; the zero value takes the defaults.
type FacetOptions struct {
	// MaxPoints caps the sample points on the facet (default 9): a grid of
	// spacing sqrt(area/MaxPoints), at least 1 m, of points inside the
	// ring, or the centroid alone for a small facet.
	MaxPoints int
}

// Shading is the answer of Evaluate for one facet.
type Shading struct {
	Points [][3]float64 // sample points (UTM, on the plane + 5 cm along the normal)
	// Beam visibility per daylight step, mean over the points: terrain
	// alone, terrain x buildings, and terrain x buildings x trees.
	VisTerrain, VisBuildings, Vis []float32
	// Sky-view factors (relative to the open plane, solar.Facet.SkyView) at
	// the centroid: terrain alone, and terrain with buildings.
	SkyViewTerrain, SkyView float64
	// Irradiation with terrain alone, terrain + buildings, and all (the
	// facet's answer); the unshaded sums are in each Result.
	Terrain, Buildings, Shaded solar.Result
}

// Loss is the annual loss by shading in Wh/m², split in evaluation order:
// what the terrain takes, then what the buildings take of the rest, then
// what the trees take of that.
func (s *Shading) Loss() (terrain, buildings, trees float64) {
	u := s.Terrain.Annual().GlobalUnshaded()
	t, b, a := s.Terrain.Annual().Global(), s.Buildings.Annual().Global(), s.Shaded.Annual().Global()
	return u - t, t - b, b - a
}

// normalOffsetM lifts sample points off their own plane so its triangles do
// not catch the rays.
const normalOffsetM = 0.05

// Evaluate computes a facet's beam visibility for every step of sun (made
// from sky), its sky-view factors and its irradiation through
// sky.Irradiation, evaluating the terrain first (the sun below the horizon
// at its azimuth: 0), then the buildings (a ray toward the sun hits a
// triangle: 0), then the trees (exp(−k·path through crowns)), per sample
// point; steps with the sun behind the facet's plane are 0 without rays
// (no beam reaches it anyway). Errors: ErrInvalid for a ring of fewer than
// three points, a tilt out of 0..90 or a non-finite value; ctx's error;
// errors of sky.Irradiation.
func Evaluate(ctx context.Context, sky *solar.Sky, sun *Sun, f Facet, o Obstacles, opt FacetOptions) (*Shading, error) {
	return evaluate(ctx, sky, sun, f, o, opt, &pointScratch{})
}

// evaluate is Evaluate with the scratch space sc, which evaluateAll hands
// from one facet to the next on a goroutine.
func evaluate(ctx context.Context, sky *solar.Sky, sun *Sun, f Facet, o Obstacles, opt FacetOptions, sc *pointScratch) (*Shading, error) {
	pts, err := samplePoints(f, opt)
	if err != nil {
		return nil, err
	}
	n := len(sun.Up)
	if n != sky.Len() {
		return nil, fmt.Errorf("shading: %d sun steps for a sky of %d: %w", n, sky.Len(), ErrInvalid)
	}
	if o.Season == (Season{}) {
		o.Season = DefaultSeason()
	}
	out := &Shading{Points: pts, VisTerrain: make([]float32, n), VisBuildings: make([]float32, n), Vis: make([]float32, n)}
	front := frontSteps(sun, f)
	pl := fitPlane(ringXY(f.Ring))
	sc.lists = o.Buildings != nil && !o.exhaustive
	if sc.lists && sc.cands == nil {
		sc.cands = new(candidates)
	}
	// Point after point, so one point's candidates are in memory at a time;
	// each step's visibility sums the points in their order.
	for _, p := range pts {
		if err := o.shadePoint(ctx, sun, front, p, pl, sc, out); err != nil {
			return nil, err
		}
	}
	inv := 1 / float32(len(pts))
	for _, i := range front {
		out.VisTerrain[i] *= inv
		out.VisBuildings[i] *= inv
		out.Vis[i] *= inv
	}
	if err := o.irradiate(sky, f, out); err != nil {
		return nil, err
	}
	return out, nil
}

// pointScratch is what Evaluate reuses from one sample point to the next
// (and evaluateAll from one facet to the next): the candidate lists (used
// when lists is set; the exact path and a facet without buildings do
// without), the point's steps with the sun above its terrain horizon, and
// per sector their lowest tan(elevation).
type pointScratch struct {
	lists  bool
	cands  *candidates
	vis    []int32
	minTan [boundBins]float64
}

// shadePoint adds sample point p's visibility (0 or 1 for the terrain and
// the buildings, the crowns' transmission) to out's three series for the
// steps front (the sun in front of the facet's plane pl).
func (o Obstacles) shadePoint(ctx context.Context, sun *Sun, front []int32, p [3]float64, pl facetPlane, sc *pointScratch, out *Shading) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var hz Horizon
	if o.Terrain != nil {
		hz = o.Terrain.At(p[2])
	}
	sc.vis = sc.vis[:0]
	for k := range sc.minTan {
		sc.minTan[k] = math.Inf(1)
	}
	for _, i := range front {
		if o.Terrain != nil && sun.ElevationDeg[i] <= hz.At(sun.AzimuthDeg[i]) {
			continue
		}
		sc.vis = append(sc.vis, i)
		k := sunSector(sun, int(i))
		sc.minTan[k] = min(sc.minTan[k], sun.TanElev[i])
	}
	if sc.lists {
		sc.cands.build(o.Buildings, p[0], p[1], p[2], pl, &sc.minTan)
	}
	treeB := o.Trees.bound(p[0], p[1], p[2])
	if o.exhaustive {
		for j := range boundBins {
			treeB[j] = math.Inf(1)
		}
	}
	for j, i := range sc.vis {
		if j%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		out.VisTerrain[i]++
		if sc.lists && sc.cands.blocked(o.Buildings, sun, int(i), p[0], p[1], p[2]) ||
			!sc.lists && o.Buildings != nil && o.Buildings.Blocked(p[0], p[1], p[2], sun.GridE[i], sun.GridN[i], sun.Up[i]) {
			continue
		}
		out.VisBuildings[i]++
		if treeB.clear(sun.GridAzimuthDeg[i], sun.TanElev[i]) {
			out.Vis[i]++
			continue
		}
		out.Vis[i] += float32(o.Season.Transmitted(sun.Month[i], o.Trees.PathM(p[0], p[1], p[2], sun.GridE[i], sun.GridN[i], sun.Up[i])))
	}
	return nil
}

// frontSteps are the steps of sun in front of the facet's plane (angle of
// incidence against the true-azimuth normal below 90°); the others get no
// beam and no rays.
func frontSteps(sun *Sun, f Facet) []int32 {
	b := f.TiltDeg * math.Pi / 180
	a := f.AzimuthDeg * math.Pi / 180
	nE, nN, nU := math.Sin(b)*math.Sin(a), math.Sin(b)*math.Cos(a), math.Cos(b)
	out := make([]int32, 0, len(sun.Up)/2)
	for i := range sun.Up {
		if sun.TrueE[i]*nE+sun.TrueN[i]*nN+sun.Up[i]*nU > 0 {
			out = append(out, int32(i))
		}
	}
	return out
}

// irradiate sets out's sky-view factors at the facet's centroid and runs
// sky.Irradiation on its three visibility series.
func (o Obstacles) irradiate(sky *solar.Sky, f Facet, out *Shading) error {
	c := centroid(f.Ring, f)
	rays := o.HorizonRays
	if rays == 0 {
		rays = 72
	}
	th := NewHorizon(rays)
	if o.Terrain != nil {
		th = o.Terrain.At(c[2])
	}
	out.SkyViewTerrain = SkyView(th, f.TiltDeg, f.AzimuthDeg)
	out.SkyView = out.SkyViewTerrain
	if o.Buildings != nil {
		hm := o.HorizonM
		if hm == 0 {
			hm = 200
		}
		bh := o.Buildings.Horizon(c[0], c[1], c[2], len(th.ElevDeg), o.ConvDeg, hm)
		out.SkyView = SkyView(th.Max(bh), f.TiltDeg, f.AzimuthDeg)
	}
	sf := solar.Facet{TiltDeg: f.TiltDeg, AzimuthDeg: f.AzimuthDeg, SkyView: out.SkyViewTerrain}
	if err := sky.Irradiation(sf, out.VisTerrain, &out.Terrain); err != nil {
		return err
	}
	sf.SkyView = out.SkyView
	if err := sky.Irradiation(sf, out.VisBuildings, &out.Buildings); err != nil {
		return err
	}
	if err := sky.Irradiation(sf, out.Vis, &out.Shaded); err != nil {
		return err
	}
	return nil
}
