package lod2store

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/twpayne/go-geom"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// Prepared is a building encoded for LoD2Writer.AddPrepared: the
// SpatiaLite geometry and the search record of each usable surface. The
// costly part of writing a building (ring cleaning, the WGS84 GeoJSON of
// every point, the geometry blob) happens in Prepare, which parallel
// workers run, so that the one writer only inserts rows.
type Prepared struct {
	GMLID    string
	PartIDs  []string
	Valid    bool
	surfaces []preparedSurface
	attrs    *preparedAttrs
}

// Surfaces is the number of usable surfaces of p.
func (p *Prepared) Surfaces() int { return len(p.surfaces) }

type preparedSurface struct {
	class int
	owner string
	blob  []byte // SpatiaLite geometry
	rec   []byte // search record; surface and building id are set on write
	bb    box
}

// Preparer encodes buildings for one CRS. It keeps scratch buffers, so
// each goroutine uses its own; Preparers of the same EPSG code produce the
// same bytes.
type Preparer struct {
	zone geo.Zone
	epsg int
	flat []float64
	ends [][]int
	json []byte
	ring Ring
}

// NewPreparer returns a Preparer for geometry in epsg (25832 or 25833);
// other codes wrap ErrInput.
func NewPreparer(epsg int) (*Preparer, error) {
	zone, err := geo.ZoneForEPSG(epsg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	return &Preparer{zone: zone, epsg: epsg}, nil
}

// Prepare encodes b. Surfaces without any polygon of three distinct
// points are left out (a building left with none is not written by
// AddPrepared). Non-finite coordinates, a surface class other than 709,
// 710 and 712, and surfaces the search record cannot hold (over 65,535
// rings or points per ring, a gml:id over 65,535 bytes) wrap ErrInput.
func (pr *Preparer) Prepare(b BuildingInput) (Prepared, error) {
	out := Prepared{GMLID: b.GMLID, PartIDs: b.PartIDs, Valid: b.Valid}
	var err error
	if out.attrs, err = prepareAttrs(b.Attrs, b.Measures); err != nil {
		return Prepared{}, err
	}
	for _, s := range b.Surfaces {
		ps, ok, err := pr.surface(b.GMLID, s)
		if err != nil {
			return Prepared{}, err
		}
		if ok {
			out.surfaces = append(out.surfaces, ps)
		}
	}
	return out, nil
}

// surface encodes one surface, reporting false when none of its polygons
// is usable (fewer than three distinct points).
func (pr *Preparer) surface(buildingID string, s SurfaceInput) (preparedSurface, bool, error) {
	if s.Class != ClassWall && s.Class != ClassGround && s.Class != ClassRoof {
		return preparedSurface{}, false, fmt.Errorf("%w: surface class %d", ErrInput, s.Class)
	}
	pr.flat, pr.ends = pr.flat[:0], pr.ends[:0]
	bb := emptyBox()
	for _, poly := range s.Polygons {
		var ends []int
		for ri, ring := range poly {
			pr.ring = appendCleanRing(pr.ring[:0], ring)
			r := pr.ring
			if len(r) == 0 {
				if ri == 0 {
					break // no exterior: drop the polygon
				}
				continue
			}
			for _, p := range r {
				if math.IsNaN(p[0]+p[1]+p[2]) || math.IsInf(p[0]+p[1]+p[2], 0) {
					return preparedSurface{}, false, fmt.Errorf("%w: non-finite coordinate in building %s", ErrInput, buildingID)
				}
				pr.flat = append(pr.flat, p[0], p[1], p[2])
				bb.extend(box{p[0], p[1], p[0], p[1]})
			}
			ends = append(ends, len(pr.flat))
		}
		if len(ends) > 0 {
			pr.ends = append(pr.ends, ends)
		}
	}
	if len(pr.ends) == 0 {
		return preparedSurface{}, false, nil
	}
	owner := s.OwnerID
	if owner == "" {
		owner = buildingID
	}
	// The search record counts rings and ring points in 16 bits: refuse
	// what it cannot hold before anything of the surface is written.
	if len(owner) > math.MaxUint16 {
		return preparedSurface{}, false, fmt.Errorf("%w: building %s: gml:id of %d bytes (at most %d)", ErrInput, buildingID, len(owner), math.MaxUint16)
	}
	if err := checkRecordLimits(pr.flat, pr.ends); err != nil {
		return preparedSurface{}, false, fmt.Errorf("%w: building %s: %v", ErrInput, buildingID, err)
	}
	mp := geom.NewMultiPolygonFlat(geom.XYZ, pr.flat, pr.ends)
	blob, err := spatialite.AppendEncode(nil, mp, pr.epsg)
	if err != nil {
		return preparedSurface{}, false, fmt.Errorf("store: building %s: %w", buildingID, err)
	}
	pr.json = appendCoords(pr.json[:0], pr.zone, pr.flat, pr.ends)
	rec := appendRecord(make([]byte, 0, recordSize(len(owner), len(pr.json), pr.flat, pr.ends)), 0, 0, s.Class, owner, pr.json, pr.flat, pr.ends)
	return preparedSurface{class: s.Class, owner: owner, blob: blob, rec: rec, bb: bb}, true, nil
}

// recordSize is the length appendRecord will write.
func recordSize(ownerLen, coordsLen int, flat []float64, endss [][]int) int {
	rings := 0
	for _, ends := range endss {
		rings += len(ends)
	}
	return recordHeader + 2*rings + 16*(len(flat)/3) + ownerLen + coordsLen
}

// setRecordIDs writes the surface and building id into a record made by
// appendRecord.
func setRecordIDs(rec []byte, sid, bid uint32) {
	binary.LittleEndian.PutUint32(rec, sid)
	binary.LittleEndian.PutUint32(rec[4:], bid)
}

// appendCleanRing appends r to dst without consecutive repeated points and
// closed; it returns dst[:0] for rings with fewer than three distinct
// points.
func appendCleanRing(dst, r Ring) Ring {
	for _, p := range r {
		if len(dst) == 0 || dst[len(dst)-1] != p {
			dst = append(dst, p)
		}
	}
	if len(dst) > 1 && dst[0] == dst[len(dst)-1] {
		dst = dst[:len(dst)-1]
	}
	if len(dst) < 3 {
		return dst[:0]
	}
	return append(dst, dst[0])
}
