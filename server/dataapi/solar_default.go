package dataapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/solar/climate/germany"
)

// buildingLonLat returns a vertex of the building for choosing its climate
// cell: the first of its roof facets (roofsolar.FacetLonLat, as `svc build
// solar` chooses it), or of its surfaces when it has none.
func buildingLonLat(ctx context.Context, src lod2store.Source, gmlid string, facets []lod2store.Facet) (lon, lat float64, err error) {
	if lon, lat, ok := roofsolar.FacetLonLat(facets); ok {
		return lon, lat, nil
	}
	b, err := src.LoD2.Building(ctx, gmlid)
	if err != nil {
		return 0, 0, err
	}
	var polys [][][][]float64
	if err := json.Unmarshal(b.Coords, &polys); err != nil || len(polys) == 0 || len(polys[0]) == 0 || len(polys[0][0]) == 0 || len(polys[0][0][0]) < 2 {
		return 0, 0, fmt.Errorf("solar: building %q: no vertex to place it", gmlid)
	}
	return polys[0][0][0][0], polys[0][0][0][1], nil
}

// solarClimateOf returns the climate of the building: the operator's file
// when given, else the default climate of its cell (a 503 problem beyond
// Germany's grid); errNoClimate without either.
func (s *surface) solarClimateOf(ctx context.Context, src lod2store.Source, gmlid string, facets []lod2store.Facet) (*roofsolar.Climate, error) {
	if s.Climate != nil {
		return s.Climate, nil
	}
	if s.DefaultClimate == nil {
		return nil, errNoClimate()
	}
	lon, lat, err := buildingLonLat(ctx, src, gmlid, facets)
	if err != nil {
		return nil, err
	}
	c, err := s.DefaultClimate.At(ctx, lat, lon)
	if errors.Is(err, germany.ErrOutside) {
		return nil, httpapi.Report(httpapi.ErrNotConfigured, "This building lies outside the grid of the built-in default climate "+
			"(Germany, %g-%g N, %g-%g E): the operator must start svc serve with --irradiance FILE for its region.",
			germany.SouthDeg, germany.NorthDeg, germany.WestDeg, germany.EastDeg)
	}
	return c, err
}
