package roofsolar

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/solar/climate/germany"
)

// DefaultClimates is the climate of a building when the operator gives no
// --irradiance file: the embedded default climate of Germany (package
// solar/climate/germany) of the building's 0.2° grid cell. The solar route
// (on demand) and `svc build solar` (every roof) both take it from here, so
// a building is computed under the same cell either way. Each cell's
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
	c    *Climate
	err  error
}

// NewDefaultClimates returns an empty cache of at most maxCells cells
// (at least 1).
func NewDefaultClimates(maxCells int) *DefaultClimates {
	return &DefaultClimates{maxCells: max(maxCells, 1), cells: map[germany.Cell]*cellClimate{}}
}

// DefaultMethodVersion names the way svc turns the default climate's table
// into roof values (the synthesized year, the sky model, the best-plane
// search). It is part of DefaultSHA256: change it when a change of code
// changes the values, so that stores computed before are not used.
const DefaultMethodVersion = "svc-default-climate/1"

// DefaultSHA256 is the identity of the default climate in a solar store
// (Climate.SHA256 of every cell, solarstore.Climate.SHA256): the SHA-256
// of the embedded table's hex SHA-256, a NUL and DefaultMethodVersion. One value for all
// cells: a store computed under the default climate holds each building
// under its own cell.
var DefaultSHA256 = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write([]byte(germany.TableSHA256()))
	h.Write([]byte{0})
	h.Write([]byte(DefaultMethodVersion))
	return hex.EncodeToString(h.Sum(nil))
})

// At returns the default climate of the cell of the WGS84 point. Beyond
// Germany's grid the error wraps germany.ErrOutside. The first caller of a
// cell prepares it to the end even if its ctx ends (0.1 s of CPU, then
// cached for everyone); a caller whose ctx ends while it waits returns
// ctx's error.
func (d *DefaultClimates) At(ctx context.Context, latDeg, lonDeg float64) (*Climate, error) {
	cell, err := germany.CellAt(latDeg, lonDeg)
	if err != nil {
		return nil, fmt.Errorf("roofsolar: %.5f N %.5f E: %w", latDeg, lonDeg, err)
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
		if e.err != nil { // not cached: the next caller tries again
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

// Centre returns the climate of the grid's centre cell: what every cell
// shares (the model's description, the source, the period, the identity)
// without a building to place.
func (d *DefaultClimates) Centre(ctx context.Context) (*Climate, error) {
	return d.At(ctx, (germany.NorthDeg+germany.SouthDeg)/2, (germany.WestDeg+germany.EastDeg)/2)
}

// Cells returns how many cells are kept.
func (d *DefaultClimates) Cells() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.cells)
}

// prepareDefault builds a cell's Climate: the synthesized year at the grid
// point, its Sky and best plane.
func prepareDefault(ctx context.Context, cell germany.Cell) (*Climate, error) {
	series, err := germany.SeriesAt(ctx, cell)
	if err != nil {
		return nil, fmt.Errorf("default climate %.1f N %.1f E: %w", cell.LatDeg(), cell.LonDeg(), err)
	}
	c, err := Prepare(ctx, series)
	if err != nil {
		return nil, fmt.Errorf("default climate %.1f N %.1f E: %w", cell.LatDeg(), cell.LonDeg(), err)
	}
	c.Method, c.Attribution, c.SHA256 = germany.Method, germany.Attribution, DefaultSHA256()
	return c, nil
}

// FacetLonLat returns the first vertex of the first of facets (GeoJSON
// rings, WGS84), the point that chooses a building's default climate
// cell; ok false without facets or a vertex.
func FacetLonLat(facets []lod2store.Facet) (lon, lat float64, ok bool) {
	if len(facets) == 0 {
		return 0, 0, false
	}
	var rings [][][]float64
	if err := json.Unmarshal(facets[0].Coords, &rings); err != nil || len(rings) == 0 || len(rings[0]) == 0 || len(rings[0][0]) < 2 {
		return 0, 0, false
	}
	return rings[0][0][0], rings[0][0][1], true
}
