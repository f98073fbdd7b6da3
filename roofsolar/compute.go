package roofsolar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/shading"
	"github.com/svc-geodata/svc/solar"
	"github.com/svc-geodata/svc/terrain"
)

// Inputs are the data a roof's shading reads: the building's LoD2 file
// (its neighbours within 200 m) and the published terrain and vegetation
// datasets; those in the LoD2 file's CRS are used (the first of them that
// covers a point answers, as the catalog orders them by BL).
type Inputs struct {
	LoD2       *lod2store.LoD2
	Terrain    []*terrain.Dataset
	Vegetation []*terrain.Dataset
	// Workers is how many facets of one roof are evaluated at once (0:
	// GOMAXPROCS); a build that computes several roofs at once sets 1.
	Workers int
}

// FacetValue is the irradiation of one roof facet over the climate's
// year, Wh/m² on the facet's plane.
type FacetValue struct {
	PlaneAreaM2  float64 // the projected area / cos tilt
	UnshadedWhM2 float64 // the open plane's
	AnnualWhM2   float64 // after shading (the open plane's when shading was not evaluated)
	MonthlyWhM2  [12]float64
	Loss         *Loss // nil: shading not evaluated
}

// Loss is a facet's annual loss by shading, Wh/m², split in the order it
// is evaluated (terrain, then buildings, then trees); the three add up to
// unshaded - annual.
type Loss struct{ Terrain, Buildings, Trees float64 }

// Roof is the irradiation of a building's roof facets in roof order
// (lod2store.LoD2.Roof) and what shading was evaluated for them.
type Roof struct {
	Facets  []FacetValue
	Shading string // "terrain, buildings[, trees]" or "not evaluated: <why>"
}

// MaxTiltDeg caps a facet's tilt for the computation (package shading
// takes facets below 90°).
const MaxTiltDeg = 89.9

// Compute computes the facets (one building's, in roof order) under c.
// Shading is evaluated with a DGM in the LoD2 file's CRS; without one, for
// a roof without facets, or when package shading rejects a facet's
// geometry, Roof.Shading says why not and the values are the open plane's.
// Errors: the stores', ctx's.
func Compute(ctx context.Context, c *Climate, in Inputs, facets []lod2store.Facet) (Roof, error) {
	sh, how, err := shade(ctx, c, in, facets)
	if err != nil {
		return Roof{}, err
	}
	out := Roof{Facets: make([]FacetValue, len(facets)), Shading: how}
	var res solar.Result
	for i, f := range facets {
		az := 180.0
		if f.AzimuthDeg != nil {
			az = *f.AzimuthDeg
		}
		if err := c.Sky.Irradiation(solar.Facet{TiltDeg: math.Min(f.TiltDeg, MaxTiltDeg), AzimuthDeg: az, SkyView: 1}, nil, &res); err != nil {
			return Roof{}, fmt.Errorf("roofsolar: facet %d: %w", i, err)
		}
		v := &out.Facets[i]
		v.PlaneAreaM2 = PlaneAreaM2(f)
		v.UnshadedWhM2 = res.Annual().GlobalUnshaded()
		v.AnnualWhM2 = v.UnshadedWhM2
		for m, mc := range res.Monthly {
			v.MonthlyWhM2[m] = mc.GlobalUnshaded()
		}
		if sh != nil {
			v.AnnualWhM2 = sh[i].Shaded.Annual().Global()
			for m, mc := range sh[i].Shaded.Monthly {
				v.MonthlyWhM2[m] = mc.Global()
			}
			t, b, tr := sh[i].Loss()
			v.Loss = &Loss{Terrain: t, Buildings: b, Trees: tr}
		}
	}
	return out, nil
}

// PlaneAreaM2 is the area of the facet's plane: the projected area / cos
// tilt (tilt capped at MaxTiltDeg).
func PlaneAreaM2(f lod2store.Facet) float64 {
	plane := f.AreaM2
	if cos := math.Cos(math.Min(f.TiltDeg, MaxTiltDeg) * math.Pi / 180); cos > 1e-6 {
		plane /= cos
	}
	return plane
}

// Shading evaluated, as Roof.Shading names it.
const (
	ShadingWithoutTrees = "terrain, buildings"
	ShadingWithTrees    = "terrain, buildings, trees"
	NoFacets            = "not evaluated: no roof facets"
)

// CRS is the LoD2 file's CRS as the raster manifests name it.
func CRS(lod *lod2store.LoD2) string { return fmt.Sprintf("EPSG:%d", lod.EPSG()) }

// heights is the first-of stack of the layer of the datasets in crs; nil
// when none has it.
func heights(ds []*terrain.Dataset, crs, layer string) (shading.Heights, error) {
	var fo shading.FirstOf
	for _, d := range ds {
		l := d.Layer(layer)
		if d.Manifest.CRS != crs || l == nil {
			continue
		}
		h, err := shading.NewLayerHeights(l)
		if err != nil {
			return nil, err
		}
		fo = append(fo, h)
	}
	if len(fo) == 0 {
		return nil, nil
	}
	return fo, nil
}

// Keys names the terrain and vegetation packs (product/bl/snapshot, sorted)
// whose DGM, CDSM or TDSM a roof of lod's CRS reads: what a precomputed
// roof depends on besides the LoD2 pack and the climate.
func (in Inputs) Keys() []string {
	crs := CRS(in.LoD2)
	var out []string
	add := func(ds []*terrain.Dataset, layers ...string) {
		for _, d := range ds {
			if d.Manifest.CRS != crs {
				continue
			}
			for _, l := range layers {
				if d.Layer(l) != nil {
					out = append(out, d.Manifest.Key().String())
					break
				}
			}
		}
	}
	add(in.Terrain, terrain.LayerDGM)
	add(in.Vegetation, terrain.LayerCDSM, terrain.LayerTDSM)
	slices.Sort(out)
	return out
}

// HasDGM reports whether a DGM in the LoD2 file's CRS is published, the
// condition for evaluating shading.
func (in Inputs) HasDGM() bool {
	crs := CRS(in.LoD2)
	for _, d := range in.Terrain {
		if d.Manifest.CRS == crs && d.Layer(terrain.LayerDGM) != nil {
			return true
		}
	}
	return false
}

// Evaluated is what Roof.Shading says for a roof with facets whose
// geometry package shading takes, with these inputs.
func (in Inputs) Evaluated() string {
	crs := CRS(in.LoD2)
	if !in.HasDGM() {
		return "not evaluated: no terrain (DGM) pack in the building's CRS " + crs
	}
	for _, d := range in.Vegetation {
		if d.Manifest.CRS == crs && d.Layer(terrain.LayerCDSM) != nil {
			return ShadingWithTrees
		}
	}
	return ShadingWithoutTrees
}

// shade evaluates the shading of the facets (package shading: terrain
// horizon, LoD2 buildings within 200 m, CDSM crowns within 100 m). how
// says what was evaluated; sh is nil (and how says why) without a DGM in
// the building's CRS, for a building without facets, or when package
// shading rejects a facet's geometry (a degenerate ring).
func shade(ctx context.Context, c *Climate, in Inputs, facets []lod2store.Facet) (sh []*shading.Shading, how string, err error) {
	if len(facets) == 0 {
		return nil, NoFacets, nil
	}
	crs := CRS(in.LoD2)
	s := shading.Sources{Zone: in.LoD2.Zone(), LoD2: in.LoD2, Workers: in.Workers}
	if s.DGM, err = heights(in.Terrain, crs, terrain.LayerDGM); err != nil {
		return nil, "", err
	}
	if s.DGM == nil {
		return nil, in.Evaluated(), nil
	}
	if s.CDSM, err = heights(in.Vegetation, crs, terrain.LayerCDSM); err != nil {
		return nil, "", err
	}
	if s.TDSM, err = heights(in.Vegetation, crs, terrain.LayerTDSM); err != nil {
		return nil, "", err
	}
	sf := make([]shading.Facet, len(facets))
	for i, f := range facets {
		if sf[i], err = shadingFacet(s.Zone, f); err != nil {
			return nil, "", fmt.Errorf("roofsolar: facet %d: %w", i, err)
		}
	}
	sh, err = shading.Roof(ctx, c.Sky, nil, s, sf)
	if errors.Is(err, shading.ErrInvalid) {
		return nil, "not evaluated: " + err.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	if s.CDSM != nil {
		return sh, ShadingWithTrees, nil
	}
	return sh, ShadingWithoutTrees, nil
}

// shadingFacet is the facet's exterior ring in the zone's UTM metres.
func shadingFacet(z geo.Zone, f lod2store.Facet) (shading.Facet, error) {
	var rings [][][]float64
	if err := json.Unmarshal(f.Coords, &rings); err != nil || len(rings) == 0 {
		return shading.Facet{}, fmt.Errorf("coordinates: %w", err)
	}
	ring := make([]float64, 0, 3*len(rings[0]))
	for _, p := range rings[0] {
		if len(p) < 3 {
			return shading.Facet{}, errors.New("a vertex without height")
		}
		x, y := geo.ToUTM(z, p[0], p[1])
		ring = append(ring, x, y, p[2])
	}
	az := 180.0
	if f.AzimuthDeg != nil {
		az = *f.AzimuthDeg
	}
	return shading.Facet{Ring: ring, TiltDeg: math.Min(f.TiltDeg, MaxTiltDeg), AzimuthDeg: az}, nil
}
