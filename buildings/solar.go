package buildings

import (
	"context"
	"math"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/mvt"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/solarstore"
)

// SolarStores returns the published solar stores of v by BL code (those
// computed for the published LoD2 pack of their BL, catalog.View.Solar);
// empty when none is published.
func SolarStores(v *catalog.View) map[string]*solarstore.Store {
	out := map[string]*solarstore.Store{}
	for _, src := range Sources(v) {
		if s := v.Solar(src.BL); s != nil {
			out[src.BL] = s
		}
	}
	return out
}

// WithSolar makes the roofs layer of t's tiles carry the precomputed
// irradiation of each facet (annual_kwh_m2, share_of_best, class) for the
// BLs of stores; facets of other BLs, or that a store does not hold, have
// none of the three. It returns t.
func (t *Tiler) WithSolar(stores map[string]*solarstore.Store) *Tiler {
	t.solar = stores
	return t
}

// SolarValues are a facet's values as the answers carry them: the annual
// irradiation in kWh/m² with two decimals and the share of the best plane
// (bestWhM2: solarstore.Info.BestWhM2, the facet's climate cell's for a
// store of the default climate) with three, as the solar route rounds them.
func SolarValues(f solarstore.Facet, bestWhM2 int64) (annualKWhM2, share float64, class string) {
	annualKWhM2 = math.Round(float64(f.AnnualWhM2)/10) / 100
	if bestWhM2 > 0 {
		share = math.Round(float64(f.AnnualWhM2)/float64(bestWhM2)*1000) / 1000
	}
	return annualKWhM2, share, roofsolar.Class(share)
}

// facetKey names a roof facet: surface id and part.
type facetKey struct {
	sid  int64
	part int
}

// solarOf reads the store's facets of the roof surfaces sids into c.sun
// (emptied first; left empty without a store).
func (c *tileCutter) solarOf(ctx context.Context, st *solarstore.Store, sids []int64) error {
	clear(c.sun)
	if st == nil || len(sids) == 0 {
		return nil
	}
	if c.sun == nil {
		c.sun = map[facetKey]solarstore.Facet{}
	}
	return st.Surfaces(ctx, sids, func(f solarstore.Facet) error {
		c.sun[facetKey{f.SurfaceID, f.Part}] = f
		return nil
	})
}

// appendSolar appends the solar properties of facet (sid, part) to c.props
// when c.sun holds it.
func (c *tileCutter) appendSolar(st *solarstore.Store, sid int64, part int) {
	f, ok := c.sun[facetKey{sid, part}]
	if !ok {
		return
	}
	annual, share, class := SolarValues(f, st.Info().BestWhM2(f))
	c.props = append(c.props, mvt.Prop{Key: "annual_kwh_m2", Value: mvt.Double(annual)},
		mvt.Prop{Key: "share_of_best", Value: mvt.Double(share)}, mvt.Prop{Key: "class", Value: mvt.String(class)})
}
