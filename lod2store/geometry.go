package lod2store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/twpayne/go-geom"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// ErrTooMany reports that a query meets more buildings than the caller's
// limit allows.
var ErrTooMany = errors.New("store: too many buildings")

// Surface3D is one surface of a building with its 3D geometry in the
// pack's projected CRS (EPSG:25832 or 25833, metres; heights as stored,
// DHHN2016). Flat holds x, y, z triples; Ends holds, per polygon, the end
// offsets into Flat of its rings (exterior first, then holes), the layout
// of go-geom's MultiPolygon. Rings are closed (last point repeats the first).
type Surface3D struct {
	SurfaceID int64 // the pack's surface_id (a roof facet is (SurfaceID, polygon index))
	Class     int
	Flat      []float64
	Ends      [][]int
}

// Building3D is a building with all its surfaces, as BuildingGeometry
// streams it.
type Building3D struct {
	BuildingID int64
	GMLID      string // gml:id of the building (not of its parts)
	Surfaces   []Surface3D
}

// Zone returns the UTM zone of the stored geometry.
func (s *LoD2) Zone() geo.Zone { return s.zone }

// BuildingIDsIn returns the ids of the buildings with at least one surface
// meeting bbox (WGS84; same test as Search), sorted ascending, without
// touching the SQLite file. When more than max buildings meet the bbox it
// returns the first max+1 ids found and an error wrapping ErrTooMany, so a
// caller can refuse large requests cheaply. max < 0 means no limit; with max
// 0 any building is one too many (a budget used up stays used up).
func (s *LoD2) BuildingIDsIn(ctx context.Context, bbox geo.BBox, max int) ([]int64, error) {
	if !bbox.Intersects(s.bbox) {
		return nil, nil
	}
	q := newQueryArea(bbox, s.zone)
	seen := map[uint32]struct{}{}
	var err error
	n := 0
	s.idx.walk(q.env, -1, func(pos int, id uint32) bool {
		if n++; n%256 == 0 {
			if err = ctx.Err(); err != nil {
				return false
			}
		}
		var rec record
		if rec, err = s.sf.record(pos); err != nil {
			return false
		}
		var p parsed
		if p, err = parseRecord(rec); err != nil {
			return false
		}
		if _, dup := seen[p.buildingID]; dup || !q.meets(p) {
			return true
		}
		seen[p.buildingID] = struct{}{}
		if max >= 0 && len(seen) > max {
			err = fmt.Errorf("%w: more than %d meet the bbox", ErrTooMany, max)
			return false
		}
		return true
	})
	ids := make([]int64, 0, len(seen))
	for id := range seen {
		ids = append(ids, int64(id))
	}
	slices.Sort(ids)
	if err != nil {
		return ids, fmt.Errorf("store: buildings in bbox: %w", err)
	}
	return ids, nil
}

// BuildingExtent is the projected footprint box of one building (metres in
// the pack's CRS).
type BuildingExtent struct {
	BuildingID             int64
	MinX, MinY, MaxX, MaxY float64
}

// Extents returns the footprint box of every building, ordered by building
// id, read from the search file alone. The result has one entry per
// building of the file (the file's building count bounds it).
func (s *LoD2) Extents(ctx context.Context) ([]BuildingExtent, error) {
	return s.extents(ctx, s.idx.n, func(k int) (int, error) { return k, nil })
}

// ExtentsIn returns the footprint boxes of the buildings of the surfaces
// with ids first to first+n-1 (a source file's surfaces, see SourceFile),
// ordered by building id, as Extents computes them: a building with
// surfaces outside the range gets the box of those inside only. Ids outside
// the file's surfaces give an error wrapping ErrCorrupt.
func (s *LoD2) ExtentsIn(ctx context.Context, first, n int64) ([]BuildingExtent, error) {
	if first < 1 || n < 0 || first-1+n > int64(s.idx.maxID) {
		return nil, fmt.Errorf("store: extents: %w: surfaces %d to %d of %d", ErrCorrupt, first, first+n-1, s.idx.maxID)
	}
	return s.extents(ctx, int(n), func(k int) (int, error) {
		pos, ok := s.idx.position(first + int64(k))
		if !ok {
			return 0, fmt.Errorf("%w: surface %d not in the search file", ErrCorrupt, first+int64(k))
		}
		return pos, nil
	})
}

// extents aggregates the rings of the records at leaf positions pos(k) for
// k in [0, n) by building.
func (s *LoD2) extents(ctx context.Context, n int, pos func(int) (int, error)) ([]BuildingExtent, error) {
	size := min(s.counts.buildings, int64(n), 1<<24)
	out := make([]BuildingExtent, 0, size)
	// The position in out of each building id: a slice while ids are
	// below the pack's building count (they are 1..n), a map beyond.
	at, far := make([]int32, min(s.counts.buildings, 1<<24)+1), map[uint32]int{}
	for k := range n {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		lp, err := pos(k)
		if err != nil {
			return nil, fmt.Errorf("store: extents: %w", err)
		}
		rec, err := s.sf.record(lp)
		if err != nil {
			return nil, fmt.Errorf("store: extents: %w", err)
		}
		p, err := parseRecord(rec)
		if err != nil {
			return nil, fmt.Errorf("store: extents: %w", err)
		}
		var i int
		var ok bool
		if int(p.buildingID) < len(at) {
			i, ok = int(at[p.buildingID])-1, at[p.buildingID] > 0
		} else {
			i, ok = far[p.buildingID]
		}
		if !ok {
			i = len(out)
			if int(p.buildingID) < len(at) {
				at[p.buildingID] = int32(i + 1)
			} else {
				far[p.buildingID] = i
			}
			out = append(out, BuildingExtent{BuildingID: int64(p.buildingID), MinX: math.Inf(1), MinY: math.Inf(1), MaxX: math.Inf(-1), MaxY: math.Inf(-1)})
		}
		e := &out[i]
		p.eachRing(func(xy []byte, n int) bool {
			for k := range n {
				x, y := xyAt(xy, k)
				e.MinX, e.MinY, e.MaxX, e.MaxY = min(e.MinX, x), min(e.MinY, y), max(e.MaxX, x), max(e.MaxY, y)
			}
			return false
		})
	}
	slices.SortFunc(out, func(a, b BuildingExtent) int { return int(a.BuildingID - b.BuildingID) })
	return out, nil
}

// idChunk is the number of building ids per query: SQLite looks each up in
// the building_id index, whatever their spread.
const idChunk = 256

// BuildingGeometry calls fn with each building of ids (ascending, as
// BuildingIDsIn returns them) and its surfaces, in id order. Only one
// building is held at a time; fn must not keep b's slices beyond the call
// unless it copies them. Unknown ids are skipped. It stops at the first
// error of fn and returns it; a surface whose geometry does not decode
// gives an error wrapping ErrCorrupt.
func (s *LoD2) BuildingGeometry(ctx context.Context, ids []int64, fn func(b *Building3D) error) error {
	for start := 0; start < len(ids); start += idChunk {
		if err := s.geometryRange(ctx, ids[start:min(start+idChunk, len(ids))], fn); err != nil {
			return err
		}
	}
	return nil
}

// AllBuildingGeometry calls fn with every building of the file in id order;
// see BuildingGeometry.
func (s *LoD2) AllBuildingGeometry(ctx context.Context, fn func(b *Building3D) error) error {
	return s.geometryRange(ctx, nil, fn)
}

const geometrySQL = `SELECT s.building_id, b.gmlid, s.surface_id, s.surface_class, s.geom FROM surfaces s
JOIN buildings b ON b.building_id = s.building_id`

// geometryRange streams the buildings of ids (ascending, not empty; nil:
// all buildings).
func (s *LoD2) geometryRange(ctx context.Context, ids []int64, fn func(b *Building3D) error) error {
	q, args := geometrySQL+` ORDER BY s.surface_id`, []any{}
	if ids != nil {
		q = geometrySQL + ` WHERE s.building_id IN (?` + strings.Repeat(`,?`, len(ids)-1) + `) ORDER BY s.building_id, s.surface_id`
		args = make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: building geometry: %w", err)
	}
	defer rows.Close()
	var cur Building3D
	next := 0 // index into ids of the next wanted building
	flush := func() error {
		if len(cur.Surfaces) == 0 {
			return nil
		}
		err := fn(&cur)
		cur = Building3D{}
		return err
	}
	var blob []byte
	for rows.Next() {
		var bid int64
		var gmlid string
		var sid int64
		var class int
		if err := rows.Scan(&bid, &gmlid, &sid, &class, &blob); err != nil {
			return fmt.Errorf("store: building geometry: %w", err)
		}
		if ids != nil {
			for next < len(ids) && ids[next] < bid {
				next++
			}
			if next == len(ids) || ids[next] != bid {
				continue
			}
		}
		if bid != cur.BuildingID {
			if err := flush(); err != nil {
				return err
			}
			cur.BuildingID, cur.GMLID = bid, gmlid
		}
		sf, err := decodeSurface(blob, class)
		if err != nil {
			return fmt.Errorf("store: building %d: %w", bid, err)
		}
		sf.SurfaceID = sid
		cur.Surfaces = append(cur.Surfaces, sf)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: building geometry: %w", err)
	}
	return flush()
}

func decodeSurface(blob []byte, class int) (Surface3D, error) {
	g, _, err := spatialite.Decode(blob)
	if err != nil {
		return Surface3D{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	mp, ok := g.(*geom.MultiPolygon)
	if !ok || mp.Layout() != geom.XYZ {
		return Surface3D{}, fmt.Errorf("%w: geometry is not a MultiPolygon Z", ErrCorrupt)
	}
	return Surface3D{Class: class, Flat: mp.FlatCoords(), Ends: mp.Endss()}, nil
}
