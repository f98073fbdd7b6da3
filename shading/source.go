package shading

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/terrain"
)

// LayerHeights reads a raster layer of a terrain pack (the DGM, CDSM or
// TDSM) as Heights: the overview level whose pixel is at most the asked
// resolution (terrain.Layer.SampleCoarse).
type LayerHeights struct {
	layer  *terrain.Layer
	pixelM float64
}

// NewLayerHeights wraps l; its pixel size is the first tile's (1 m when the
// index does not state it). It returns ErrInvalid for a nil or empty layer.
func NewLayerHeights(l *terrain.Layer) (*LayerHeights, error) {
	if l == nil || len(l.Tiles()) == 0 {
		return nil, fmt.Errorf("shading: no raster layer: %w", ErrInvalid)
	}
	px := l.Tiles()[0].PixelM
	if !(px > 0) {
		px = 1
	}
	return &LayerHeights{layer: l, pixelM: px}, nil
}

// HeightAt implements Heights.
func (h *LayerHeights) HeightAt(ctx context.Context, x, y, resM float64) (float64, bool, error) {
	level := 0
	if resM > h.pixelM {
		level = int(math.Floor(math.Log2(resM / h.pixelM)))
	}
	return h.layer.SampleCoarse(ctx, x, y, level)
}

// PixelM implements Heights.
func (h *LayerHeights) PixelM() float64 { return h.pixelM }

// FirstOf federates height rasters of one UTM zone (the packs of
// neighbouring states): the first that holds a value answers.
type FirstOf []Heights

// HeightAt implements Heights.
func (f FirstOf) HeightAt(ctx context.Context, x, y, resM float64) (float64, bool, error) {
	for _, h := range f {
		v, ok, err := h.HeightAt(ctx, x, y, resM)
		if err != nil || ok {
			return v, ok, err
		}
	}
	return 0, false, nil
}

// PixelM implements Heights: the finest of the members.
func (f FirstOf) PixelM() float64 {
	px := math.Inf(1)
	for _, h := range f {
		px = math.Min(px, h.PixelM())
	}
	return px
}

// maxSceneBuildings bounds the buildings read around one facet.
const maxSceneBuildings = 50_000

// LoadScene reads the LoD2 buildings with a surface within radiusM of UTM
// point x, y (in the pack's zone) and triangulates all their surfaces into
// a Scene. Errors: the store's, ErrInvalid for more than 50,000 buildings,
// ctx's error.
func LoadScene(ctx context.Context, lod *lod2store.LoD2, x, y, radiusM float64) (*Scene, error) {
	z := lod.Zone()
	bb := geo.BBox{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	for _, c := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		lon, lat := geo.FromUTM(z, x+c[0]*radiusM, y+c[1]*radiusM)
		bb.MinLon, bb.MaxLon = math.Min(bb.MinLon, lon), math.Max(bb.MaxLon, lon)
		bb.MinLat, bb.MaxLat = math.Min(bb.MinLat, lat), math.Max(bb.MaxLat, lat)
	}
	ids, err := lod.BuildingIDsIn(ctx, bb, maxSceneBuildings)
	if errors.Is(err, lod2store.ErrTooMany) {
		return nil, fmt.Errorf("shading: more than %d buildings within %.0f m: %w", maxSceneBuildings, radiusM, ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("shading: buildings near %.0f, %.0f: %w", x, y, err)
	}
	var tris []float64
	var idx []uint32
	err = lod.BuildingGeometry(ctx, ids, func(b *lod2store.Building3D) error {
		for _, s := range b.Surfaces {
			tris, idx = appendSurface(tris, idx, s)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("shading: buildings near %.0f, %.0f: %w", x, y, err)
	}
	return NewScene(x, y, tris)
}

// appendSurface triangulates every polygon of s (earcut, glb.Triangulate)
// and appends the triangles' corners; a polygon that does not triangulate
// (degenerate) is left out.
func appendSurface(tris []float64, idx []uint32, s lod2store.Surface3D) ([]float64, []uint32) {
	start := 0
	for _, ends := range s.Ends {
		if len(ends) == 0 {
			continue
		}
		end := ends[len(ends)-1]
		local := make([]int, len(ends))
		for i, e := range ends {
			local[i] = e - start
		}
		flat := s.Flat[start:end]
		var err error
		idx, err = glb.Triangulate(flat, local, idx[:0])
		if err == nil {
			for _, k := range idx {
				tris = append(tris, flat[k*3], flat[k*3+1], flat[k*3+2])
			}
		}
		start = end
	}
	return tris, idx
}

// LoadCanopy reads the crowns within radiusM of UTM point x, y from the
// CDSM (canopy height above ground, values below terrain.MinCanopyM are no
// crown), the DGM and the TDSM (crown base above ground; nil: 25 % of the
// canopy height) at cellM (1 m for the 1 m CDSM).
func LoadCanopy(ctx context.Context, cdsm, dgm, tdsm Heights, x, y, radiusM, cellM float64) (*Canopy, error) {
	return canopyFromHeights(ctx, cdsm, dgm, tdsm, x-radiusM, y-radiusM, x+radiusM, y+radiusM, cellM, terrain.MinCanopyM)
}

// GridConvergenceDeg is the angle from true north to grid north at UTM
// x, y of zone z, clockwise (true azimuth = grid azimuth − convergence),
// found by projecting a point 10 m further north (as lod2store does).
func GridConvergenceDeg(z geo.Zone, x, y float64) float64 {
	lon, lat := geo.FromUTM(z, x, y)
	x2, y2 := geo.ToUTM(z, lon, lat+10.0/111320)
	return math.Atan2(x2-x, y2-y) * 180 / math.Pi
}
