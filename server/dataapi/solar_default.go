package dataapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/solar/climate/germany"
)

// DefaultClimates is the solar route's climate when the operator gives no
// --irradiance file: the embedded default climate of Germany (package
// solar/climate/germany) of the building's 0.2° grid cell. Each cell's
// Climate (its synthesized year, Sky and best plane) is prepared on first
// use and kept; at most maxCells are kept, the oldest dropped first (a
// cell's Sky is about 200 KB). Safe for concurrent use.
type DefaultClimates struct {
	maxCells int
	mu       sync.Mutex
	cells    map[germany.Cell]*cellClimate
	order    []germany.Cell // insertion order, for dropping the oldest
}

// cellClimate is one cell's Climate, ready once done is closed.
type cellClimate struct {
	done chan struct{}
	c    *roofsolar.Climate
	err  error
}

// NewDefaultClimates returns an empty cache of at most maxCells cells
// (at least 1).
func NewDefaultClimates(maxCells int) *DefaultClimates {
	return &DefaultClimates{maxCells: max(maxCells, 1), cells: map[germany.Cell]*cellClimate{}}
}

// At returns the default climate of the cell of the WGS84 point. Beyond
// Germany's grid it returns a 503 problem (the operator must give a file).
// The first request of a cell prepares it to the end even if its client
// hangs up (0.1 s of CPU, then cached for everyone); a request whose
// ctx ends while it waits returns ctx's error.
func (d *DefaultClimates) At(ctx context.Context, latDeg, lonDeg float64) (*roofsolar.Climate, error) {
	cell, err := germany.CellAt(latDeg, lonDeg)
	if errors.Is(err, germany.ErrOutside) {
		return nil, httpapi.Report(httpapi.ErrNotConfigured, "This building lies outside the grid of the built-in default climate "+
			"(Germany, %g-%g N, %g-%g E): the operator must start svc serve with --irradiance FILE for its region.",
			germany.SouthDeg, germany.NorthDeg, germany.WestDeg, germany.EastDeg)
	}
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	e, ok := d.cells[cell]
	if !ok {
		e = &cellClimate{done: make(chan struct{})}
		d.cells[cell] = e
		d.order = append(d.order, cell)
		for len(d.order) > d.maxCells {
			delete(d.cells, d.order[0])
			d.order = d.order[1:]
		}
	}
	d.mu.Unlock()
	if !ok {
		e.c, e.err = prepareDefault(context.WithoutCancel(ctx), cell)
		if e.err != nil { // not cached: the next request tries again
			d.mu.Lock()
			if d.cells[cell] == e {
				delete(d.cells, cell)
			}
			d.mu.Unlock()
		}
		close(e.done)
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return e.c, e.err
}

// prepareDefault builds a cell's Climate: the synthesized year at the grid
// point, its Sky and best plane.
func prepareDefault(ctx context.Context, cell germany.Cell) (*roofsolar.Climate, error) {
	series, err := germany.SeriesAt(ctx, cell)
	if err != nil {
		return nil, fmt.Errorf("default climate %.1f N %.1f E: %w", cell.LatDeg(), cell.LonDeg(), err)
	}
	c, err := roofsolar.Prepare(ctx, series)
	if err != nil {
		return nil, fmt.Errorf("default climate %.1f N %.1f E: %w", cell.LatDeg(), cell.LonDeg(), err)
	}
	c.Method, c.Attribution = germany.Method, germany.Attribution
	return c, nil
}

// buildingLonLat returns a vertex of the building for choosing its climate
// cell: the first of its roof facets, or of its surfaces when it has none.
func buildingLonLat(ctx context.Context, src lod2store.Source, gmlid string, facets []lod2store.Facet) (lon, lat float64, err error) {
	if len(facets) > 0 {
		var rings [][][]float64
		if err := json.Unmarshal(facets[0].Coords, &rings); err == nil && len(rings) > 0 && len(rings[0]) > 0 && len(rings[0][0]) >= 2 {
			return rings[0][0][0], rings[0][0][1], nil
		}
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
// when given, else the default climate of its cell; nil without either.
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
	return s.DefaultClimate.At(ctx, lat, lon)
}
