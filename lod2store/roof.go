package lod2store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/twpayne/go-geom"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// flatTiltDeg is the tilt below which a roof facet has no azimuth (SPEC 2.5).
const flatTiltDeg = 5

// Facet is one planar roof polygon with its orientation.
type Facet struct {
	TiltDeg    float64  // angle of the facet against the horizontal, 0 to 90
	AzimuthDeg *float64 // compass direction (true north) of the outward normal; nil when tilt < 5
	AreaM2     float64  // horizontal projected area in the pack's UTM CRS
	Coords     []byte   // GeoJSON Polygon coordinates, WGS84 with Z
}

// Roof returns one Facet per polygon of the building's roof surfaces, in
// surface order. A building without roof surfaces gives an empty slice.
// Errors wrap ErrNotFound for an unknown gml:id.
func (s *LoD2) Roof(ctx context.Context, gmlid string) ([]Facet, error) {
	bid, err := s.buildingID(ctx, gmlid)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT geom FROM surfaces WHERE building_id = ? AND surface_class = ? ORDER BY surface_id`, bid, ClassRoof)
	if err != nil {
		return nil, fmt.Errorf("store: roof %q: %w", gmlid, err)
	}
	defer rows.Close()
	facets := []Facet{}
	var blob []byte
	for rows.Next() {
		if err := rows.Scan(&blob); err != nil {
			return nil, fmt.Errorf("store: roof %q: %w", gmlid, err)
		}
		g, _, err := spatialite.Decode(blob)
		if err != nil {
			return nil, fmt.Errorf("store: roof %q: %w", gmlid, err)
		}
		mp, ok := g.(*geom.MultiPolygon)
		if !ok {
			return nil, fmt.Errorf("%w: roof geometry is %T", ErrCorrupt, g)
		}
		for i := range mp.NumPolygons() {
			facets = append(facets, s.facet(mp.Polygon(i)))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: roof %q: %w", gmlid, err)
	}
	return facets, nil
}

// RoofSurface measures roof surface sid: one Facet per polygon. Errors
// wrap ErrNotFound (also for a surface that is not a roof).
func (s *LoD2) RoofSurface(ctx context.Context, sid int64) ([]Facet, error) {
	var blob []byte
	err := s.db.QueryRowContext(ctx, `SELECT geom FROM surfaces WHERE surface_id = ? AND surface_class = ?`, sid, ClassRoof).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: roof surface %d: %w", sid, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: roof surface %d: %w", sid, err)
	}
	g, _, err := spatialite.Decode(blob)
	if err != nil {
		return nil, fmt.Errorf("store: roof surface %d: %w", sid, err)
	}
	mp, ok := g.(*geom.MultiPolygon)
	if !ok {
		return nil, fmt.Errorf("%w: roof geometry is %T", ErrCorrupt, g)
	}
	out := make([]Facet, 0, mp.NumPolygons())
	for i := range mp.NumPolygons() {
		out = append(out, s.facet(mp.Polygon(i)))
	}
	return out, nil
}

// facet measures one polygon. The normal is Newell's (robust for the
// slightly non-planar rings real data has); it points outward for rings
// ordered counter-clockwise seen from outside, as CityGML requires, and is
// turned upward when a file has the ring the other way round, since a roof
// faces the sky.
func (s *LoD2) facet(p *geom.Polygon) Facet {
	flat, stride := p.FlatCoords(), p.Stride()
	ends := p.Ends()
	var nx, ny, nz, cx, cy float64
	ext := flat[:ends[0]]
	n := len(ext) / stride
	// Coordinates relative to the first vertex keep products of UTM values
	// (~1e6 m) from eating the precision of centimetre-sized differences.
	ox, oy, oz := ext[0], ext[1], ext[2]
	for i := range n {
		j := (i + 1) % n
		xi, yi, zi := ext[i*stride]-ox, ext[i*stride+1]-oy, ext[i*stride+2]-oz
		xj, yj, zj := ext[j*stride]-ox, ext[j*stride+1]-oy, ext[j*stride+2]-oz
		nx += (yi - yj) * (zi + zj)
		ny += (zi - zj) * (xi + xj)
		nz += (xi - xj) * (yi + yj)
		cx += xi
		cy += yi
	}
	cx, cy = ox+cx/float64(n), oy+cy/float64(n)
	if nz < 0 {
		nx, ny, nz = -nx, -ny, -nz
	}
	f := Facet{AreaM2: math.Round(horizontalArea(flat, ends, stride)*100) / 100}
	norm := math.Sqrt(nx*nx + ny*ny + nz*nz)
	if norm > 0 {
		f.TiltDeg = math.Acos(math.Min(1, nz/norm)) * 180 / math.Pi
	}
	if f.TiltDeg >= flatTiltDeg {
		az := math.Atan2(nx, ny)*180/math.Pi - s.gridConvergenceDeg(cx, cy)
		az = math.Mod(az+360, 360)
		az = math.Round(az*100) / 100
		if az == 360 {
			az = 0
		}
		f.AzimuthDeg = &az
	}
	f.TiltDeg = math.Round(f.TiltDeg*100) / 100
	f.Coords = appendCoords(nil, s.zone, flat, [][]int{ends})
	f.Coords = f.Coords[1 : len(f.Coords)-1] // one Polygon, not a MultiPolygon
	return f
}

// gridConvergenceDeg is the angle from true north to grid north at (x, y),
// measured clockwise: true azimuth = grid azimuth - convergence. It is
// found numerically by projecting a point 10 m further north.
func (s *LoD2) gridConvergenceDeg(x, y float64) float64 {
	lon, lat := geo.FromUTM(s.zone, x, y)
	x2, y2 := geo.ToUTM(s.zone, lon, lat+10.0/111320)
	return math.Atan2(x2-x, y2-y) * 180 / math.Pi
}

// horizontalArea is the shoelace area of the exterior minus the holes.
func horizontalArea(flat []float64, ends []int, stride int) float64 {
	total, start := 0.0, 0
	ox, oy := flat[0], flat[1] // local origin, see facet
	for ri, end := range ends {
		a := 0.0
		n := (end - start) / stride
		for i := range n {
			j := (i + 1) % n
			xi, yi := flat[start+i*stride]-ox, flat[start+i*stride+1]-oy
			xj, yj := flat[start+j*stride]-ox, flat[start+j*stride+1]-oy
			a += xi*yj - xj*yi
		}
		a = math.Abs(a) / 2
		if ri == 0 {
			total += a
		} else {
			total -= a
		}
		start = end
	}
	return math.Max(total, 0)
}
