package lod2store

import (
	"context"
	"fmt"

	"github.com/twpayne/go-geom"

	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// RoofBuilding is a building with its roof facets as Roof measures them,
// in the same order, and where each facet comes from: the roof surface
// (SurfaceIDs[i]) and the polygon's index in its MultiPolygon (Parts[i]).
type RoofBuilding struct {
	BuildingID int64
	GMLID      string // the building's own gml:id (not a part's)
	Facets     []Facet
	SurfaceIDs []int64
	Parts      []int
}

// MaxBuildingID returns the highest building id of the file (0 when it
// holds none). Ids start at 1; a file written by patching may skip some.
func (s *LoD2) MaxBuildingID(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(building_id), 0) FROM buildings`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: max building id: %w", err)
	}
	return n, nil
}

// RoofsIn calls fn with every building whose id lies in [first, last], in
// id order, with its roof facets (none for a building without roof
// surfaces). fn owns b. Errors: the file's, ErrCorrupt for a geometry that
// does not decode, fn's.
func (s *LoD2) RoofsIn(ctx context.Context, first, last int64, fn func(b *RoofBuilding) error) error {
	var bs []*RoofBuilding
	err := func() error {
		rows, err := s.db.QueryContext(ctx, `SELECT building_id, gmlid FROM buildings WHERE building_id BETWEEN ? AND ? ORDER BY building_id`, first, last)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			b := &RoofBuilding{}
			if err := rows.Scan(&b.BuildingID, &b.GMLID); err != nil {
				return err
			}
			bs = append(bs, b)
		}
		return rows.Err()
	}()
	if err != nil {
		return fmt.Errorf("store: roofs %d-%d: %w", first, last, err)
	}
	if err := s.roofsOf(ctx, first, last, bs); err != nil {
		return fmt.Errorf("store: roofs %d-%d: %w", first, last, err)
	}
	for _, b := range bs {
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// roofsOf adds the roof facets of the buildings with ids in [first, last]
// to bs (sorted by id). The index surfaces_building holds (building_id,
// surface_id): the rows come in the wanted order without a sort.
func (s *LoD2) roofsOf(ctx context.Context, first, last int64, bs []*RoofBuilding) error {
	rows, err := s.db.QueryContext(ctx, `SELECT building_id, surface_id, geom FROM surfaces
WHERE building_id BETWEEN ? AND ? AND surface_class = ? ORDER BY building_id, surface_id`, first, last, ClassRoof)
	if err != nil {
		return err
	}
	defer rows.Close()
	k := 0
	var bid, sid int64
	var blob []byte
	for rows.Next() {
		if err := rows.Scan(&bid, &sid, &blob); err != nil {
			return err
		}
		for k < len(bs) && bs[k].BuildingID < bid {
			k++
		}
		if k == len(bs) || bs[k].BuildingID != bid {
			return fmt.Errorf("%w: surface %d of unknown building %d", ErrCorrupt, sid, bid)
		}
		g, _, err := spatialite.Decode(blob)
		if err != nil {
			return fmt.Errorf("%w: roof surface %d: %v", ErrCorrupt, sid, err)
		}
		mp, ok := g.(*geom.MultiPolygon)
		if !ok {
			return fmt.Errorf("%w: roof geometry is %T", ErrCorrupt, g)
		}
		b := bs[k]
		for i := range mp.NumPolygons() {
			b.Facets = append(b.Facets, s.facet(mp.Polygon(i)))
			b.SurfaceIDs = append(b.SurfaceIDs, sid)
			b.Parts = append(b.Parts, i)
		}
	}
	return rows.Err()
}
