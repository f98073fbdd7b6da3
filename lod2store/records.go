package lod2store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A record holds what a search answers for one surface, in a form read
// straight from the mapped search file: ids, class, gml:id, the WGS84
// GeoJSON coordinates, and the footprint rings (x, y in the pack's CRS)
// for the exact intersection test.
//
//	u32 surface_id, u32 building_id, u16 class, u16 len(gmlid),
//	u32 len(coords), u16 rings, then per ring u16 points and points x
//	(f64 x, f64 y), then gmlid bytes, then coords bytes.
type record []byte

const recordHeader = 4 + 4 + 2 + 2 + 4 + 2

// appendRecord encodes one surface. flat holds x, y, z triples; endss the
// ring ends per polygon (absolute indexes into flat).
func appendRecord(dst []byte, sid, bid uint32, class int, gmlid string, coords []byte, flat []float64, endss [][]int) []byte {
	rings := 0
	for _, ends := range endss {
		rings += len(ends)
	}
	dst = binary.LittleEndian.AppendUint32(dst, sid)
	dst = binary.LittleEndian.AppendUint32(dst, bid)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(class))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(gmlid)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(coords)))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(rings))
	start := 0
	for _, ends := range endss {
		for _, end := range ends {
			dst = binary.LittleEndian.AppendUint16(dst, uint16((end-start)/3))
			for i := start; i < end; i += 3 {
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(flat[i]))
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(flat[i+1]))
			}
			start = end
		}
	}
	dst = append(dst, gmlid...)
	return append(dst, coords...)
}

// checkRecordLimits reports a surface the record format cannot hold: more
// than 65,535 rings, or a ring of more than 65,535 points.
func checkRecordLimits(flat []float64, endss [][]int) error {
	rings, start := 0, 0
	for _, ends := range endss {
		rings += len(ends)
		for _, end := range ends {
			if n := (end - start) / 3; n > math.MaxUint16 {
				return fmt.Errorf("a ring of %d points (at most %d per ring)", n, math.MaxUint16)
			}
			start = end
		}
	}
	if rings > math.MaxUint16 {
		return fmt.Errorf("a surface of %d rings (at most %d)", rings, math.MaxUint16)
	}
	return nil
}

// parsed is a decoded record header with views into the record bytes.
type parsed struct {
	surfaceID, buildingID uint32
	class                 int
	gmlid, coords         []byte
	rings                 []byte // u16 count + points, per ring
	nrings                int
}

// parseRecord checks the record's lengths against its size.
func parseRecord(r record) (parsed, error) {
	var p parsed
	if len(r) < recordHeader {
		return p, fmt.Errorf("%w: short record", ErrCorrupt)
	}
	p.surfaceID = binary.LittleEndian.Uint32(r)
	p.buildingID = binary.LittleEndian.Uint32(r[4:])
	p.class = int(binary.LittleEndian.Uint16(r[8:]))
	gl := int(binary.LittleEndian.Uint16(r[10:]))
	cl := int(binary.LittleEndian.Uint32(r[12:]))
	p.nrings = int(binary.LittleEndian.Uint16(r[16:]))
	off := recordHeader
	ringStart := off
	for range p.nrings {
		if off+2 > len(r) {
			return p, fmt.Errorf("%w: record rings", ErrCorrupt)
		}
		n := int(binary.LittleEndian.Uint16(r[off:]))
		off += 2 + 16*n
	}
	if off+gl+cl != len(r) {
		return p, fmt.Errorf("%w: record lengths", ErrCorrupt)
	}
	p.rings = r[ringStart:off]
	p.gmlid = r[off : off+gl]
	p.coords = r[off+gl:]
	return p, nil
}

// eachRing calls f with the x, y coordinates of each footprint ring.
func (p parsed) eachRing(f func(xy []byte, n int) bool) bool {
	off := 0
	for range p.nrings {
		n := int(binary.LittleEndian.Uint16(p.rings[off:]))
		if f(p.rings[off+2:off+2+16*n], n) {
			return true
		}
		off += 2 + 16*n
	}
	return false
}

func xyAt(xy []byte, i int) (float64, float64) {
	return math.Float64frombits(binary.LittleEndian.Uint64(xy[16*i:])),
		math.Float64frombits(binary.LittleEndian.Uint64(xy[16*i+8:]))
}
