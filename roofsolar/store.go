package roofsolar

import (
	"errors"
	"fmt"
	"math"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/solarstore"
)

// ErrMismatch reports a stored building whose facets are not those of the
// LoD2 building asked for (another count or other surfaces).
var ErrMismatch = errors.New("roofsolar: stored facets do not match the building")

// wh rounds to whole Wh/m², the store's unit.
func wh(v float64) int64 { return int64(math.Round(v)) }

// ToStore is the store's row of building b computed as r. shading is what
// the store's Info says for every building: b's row names its own only
// when it differs.
func ToStore(b *lod2store.RoofBuilding, r Roof, shading string) solarstore.Building {
	out := solarstore.Building{ID: b.BuildingID, GMLID: b.GMLID, Facets: make([]solarstore.Facet, len(r.Facets))}
	if r.Shading != shading {
		out.Shading = r.Shading
	}
	for i, v := range r.Facets {
		f := &out.Facets[i]
		f.SurfaceID, f.Part = b.SurfaceIDs[i], b.Parts[i]
		f.AnnualWhM2, f.Unshaded = wh(v.AnnualWhM2), wh(v.UnshadedWhM2)
		for m, x := range v.MonthlyWhM2 {
			f.MonthlyWhM2[m] = wh(x)
		}
		if v.Loss != nil {
			f.Loss = &solarstore.Loss{Terrain: wh(v.Loss.Terrain), Buildings: wh(v.Loss.Buildings), Trees: wh(v.Loss.Trees)}
		}
	}
	return out
}

// FromStore is the Roof of the stored building b, whose LoD2 roof facets
// (roof order) are facets; shading is the store's Info.Shading. Errors
// wrap ErrMismatch when b does not hold one row per facet.
func FromStore(b solarstore.Building, facets []lod2store.Facet, shading string) (Roof, error) {
	if len(b.Facets) != len(facets) {
		return Roof{}, fmt.Errorf("%w: %q has %d stored facets, %d in LoD2", ErrMismatch, b.GMLID, len(b.Facets), len(facets))
	}
	r := Roof{Facets: make([]FacetValue, len(facets)), Shading: shading}
	if b.Shading != "" {
		r.Shading = b.Shading
	}
	for i, f := range b.Facets {
		v := &r.Facets[i]
		v.PlaneAreaM2 = PlaneAreaM2(facets[i])
		v.AnnualWhM2, v.UnshadedWhM2 = float64(f.AnnualWhM2), float64(f.Unshaded)
		for m, x := range f.MonthlyWhM2 {
			v.MonthlyWhM2[m] = float64(x)
		}
		if f.Loss != nil {
			v.Loss = &Loss{Terrain: float64(f.Loss.Terrain), Buildings: float64(f.Loss.Buildings), Trees: float64(f.Loss.Trees)}
		}
	}
	return r, nil
}

// StoreClimate is the store's description of c. For a cell of the default
// climate (Method set) it describes the default climate as a whole: its
// identity and method, no site (each building has its own cell).
func StoreClimate(c *Climate) solarstore.Climate {
	se := c.Series
	out := solarstore.Climate{File: c.File, SHA256: c.SHA256, Format: string(se.Format), Source: se.Source,
		FirstYear: se.FirstYear, LastYear: se.LastYear, LatDeg: se.Site.LatDeg, LonDeg: se.Site.LonDeg, ElevationM: se.Site.ElevationM}
	if c.Method != "" {
		out.LatDeg, out.LonDeg, out.ElevationM, out.Method = 0, 0, 0, c.Method
	}
	return out
}
