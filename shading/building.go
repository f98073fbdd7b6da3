package shading

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/solar"
)

// Sources are the stores the shading of a building reads, all in one UTM
// zone. DGM is required; LoD2 and CDSM may be nil (no buildings, no trees);
// TDSM may be nil (crown base at 25 % of the canopy height).
type Sources struct {
	Zone            geo.Zone
	DGM             Heights
	CDSM, TDSM      Heights
	LoD2            *lod2store.LoD2
	Season          Season // the zero value takes DefaultSeason()
	TerrainOptions  TerrainOptions
	BuildingRadiusM float64 // buildings read around the roof (default 200 m)
	CanopyRadiusM   float64 // crowns read around the roof (default 100 m)
	CanopyCellM     float64 // canopy grid (default 1 m, the CDSM's)
	FacetOptions    FacetOptions
	// Workers is how many facets of the roof are evaluated at once (0:
	// GOMAXPROCS). A build that evaluates several roofs at once sets 1.
	Workers int
}

// Defaults of Sources, decided in docs/solar.md section 7: at 5° of sun
// elevation (below it the beam carries ~1 % of the year's) a building 17.5
// m higher than the roof casts its shadow 200 m; a crown 9 m above it 100 m.
const (
	defaultBuildingRadiusM = 200
	defaultCanopyRadiusM   = 100
)

// Roof evaluates the facets of one building (Facet rings in src.Zone)
// under sky: the terrain horizon once at the roof's plan centre for the
// lowest and highest facet centroid (each facet interpolates between them),
// the buildings within BuildingRadiusM and the crowns within CanopyRadiusM
// of that centre read once, then Evaluate per facet. sun is NewSun(sky,
// convergence at the centre) and may be shared by the buildings of a
// location cell (nil: made here). Errors: those of the stores, ErrInvalid,
// ctx's error.
func Roof(ctx context.Context, sky *solar.Sky, sun *Sun, src Sources, facets []Facet) ([]*Shading, error) {
	o, sun, err := prepare(ctx, sky, sun, src, facets)
	if err != nil {
		return nil, err
	}
	return evaluateAll(ctx, sky, sun, facets, o, src.FacetOptions, src.Workers)
}

// prepare reads what Roof evaluates the facets against: the terrain view,
// the scene and the crowns around the roof's centre, and the sun (sun, or
// made here when nil).
func prepare(ctx context.Context, sky *solar.Sky, sun *Sun, src Sources, facets []Facet) (Obstacles, *Sun, error) {
	if len(facets) == 0 || src.DGM == nil {
		return Obstacles{}, nil, fmt.Errorf("shading: %d facets, DGM %v: %w", len(facets), src.DGM != nil, ErrInvalid)
	}
	var cx, cy float64
	zLo, zHi := math.Inf(1), math.Inf(-1)
	for _, f := range facets {
		if _, err := samplePoints(f, FacetOptions{MaxPoints: 1}); err != nil {
			return Obstacles{}, nil, err
		}
		c := centroid(f.Ring, f)
		cx += c[0] / float64(len(facets))
		cy += c[1] / float64(len(facets))
		zLo, zHi = math.Min(zLo, c[2]), math.Max(zHi, c[2])
	}
	conv := GridConvergenceDeg(src.Zone, cx, cy)
	if sun == nil {
		sun = NewSun(sky, conv)
	}
	zs := []float64{zLo}
	if zHi-zLo > 0.5 {
		zs = append(zs, zHi)
	}
	hs, err := TerrainHorizon(ctx, src.DGM, cx, cy, zs, conv, src.TerrainOptions)
	if err != nil {
		return Obstacles{}, nil, err
	}
	o := Obstacles{Terrain: &TerrainView{Z: zs, H: hs}, Season: src.Season, ConvDeg: conv}
	if src.LoD2 != nil {
		r := src.BuildingRadiusM
		if r == 0 {
			r = defaultBuildingRadiusM
		}
		if o.Buildings, err = LoadScene(ctx, src.LoD2, cx, cy, r); err != nil {
			return Obstacles{}, nil, err
		}
		o.HorizonM = r
	}
	if src.CDSM != nil {
		r, cell := src.CanopyRadiusM, src.CanopyCellM
		if r == 0 {
			r = defaultCanopyRadiusM
		}
		if cell == 0 {
			cell = 1
		}
		if o.Trees, err = LoadCanopy(ctx, src.CDSM, src.DGM, src.TDSM, cx, cy, r, cell); err != nil {
			return Obstacles{}, nil, err
		}
	}
	return o, sun, nil
}

// evaluateAll evaluates the facets on workers goroutines (0: GOMAXPROCS;
// the obstacles are read-only), in order of the slice.
func evaluateAll(ctx context.Context, sky *solar.Sky, sun *Sun, facets []Facet, o Obstacles, opt FacetOptions, workers int) ([]*Shading, error) {
	out := make([]*Shading, len(facets))
	g, ctx := errgroup.WithContext(ctx)
	n := workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(n)
	// Scratch space (the candidate lists) passes from facet to facet: at
	// most n are in use at once.
	free := make(chan *pointScratch, n)
	for i, f := range facets {
		g.Go(func() error {
			var sc *pointScratch
			select {
			case sc = <-free:
			default:
				sc = &pointScratch{}
			}
			defer func() { free <- sc }()
			s, err := evaluate(ctx, sky, sun, f, o, opt, sc)
			if err != nil {
				return fmt.Errorf("shading: facet %d: %w", i, err)
			}
			out[i] = s
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
