package spatialite

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/twpayne/go-geom"
)

// Encode returns g as a SpatiaLite BLOB-Geometry (little endian) tagged with
// srid. g is a *geom.Point, *geom.LineString, *geom.Polygon,
// *geom.MultiPoint, *geom.MultiLineString, *geom.MultiPolygon or a
// *geom.GeometryCollection of points, linestrings and polygons, in layout XY,
// XYZ, XYM or XYZM; g.SRID() is ignored. The MBR is computed from the X and Y
// coordinates. It returns ErrEmpty for an empty geometry or empty part,
// ErrUnsupported for other types or layouts and ErrInvalid for a non-finite
// coordinate or an SRID outside int32.
func Encode(g geom.T, srid int) ([]byte, error) {
	return AppendEncode(nil, g, srid)
}

// AppendEncode appends the BLOB-Geometry of g to dst and returns the extended
// slice, like Encode. It allocates only when dst lacks capacity, so an import
// loop that reuses dst[:0] encodes without allocating. On error it returns
// dst unchanged.
func AppendEncode(dst []byte, g geom.T, srid int) ([]byte, error) {
	if srid < math.MinInt32 || srid > math.MaxInt32 {
		return dst, fmt.Errorf("spatialite: srid %d out of int32 range: %w", srid, ErrInvalid)
	}
	kind, err := kindOf(g)
	if err != nil {
		return dst, err
	}
	if isNil(g) {
		return dst, ErrEmpty
	}
	class, err := classCode(kind, g.Layout())
	if err != nil {
		return dst, err
	}
	size, err := bodySize(g)
	if err != nil {
		return dst, err
	}
	mbr, err := envelopeOf(g)
	if err != nil {
		return dst, err
	}
	out := slices.Grow(dst, headerLen+size+1)
	out = append(out, blobStart, littleEndian)
	out = binary.LittleEndian.AppendUint32(out, uint32(int32(srid)))
	out = appendF64(out, mbr.MinX)
	out = appendF64(out, mbr.MinY)
	out = appendF64(out, mbr.MaxX)
	out = appendF64(out, mbr.MaxY)
	out = append(out, mbrEnd)
	out = binary.LittleEndian.AppendUint32(out, class)
	out = appendBody(out, g)
	return append(out, blobEnd), nil
}

// bodySize returns the number of bytes between the class code and the end
// marker, and rejects empty geometries and parts.
func bodySize(g geom.T) (int, error) {
	if isNil(g) || g.Empty() {
		return 0, ErrEmpty
	}
	if gc, ok := g.(*geom.GeometryCollection); ok {
		return collectionSize(gc)
	}
	stride, flat := g.Stride(), g.FlatCoords()
	coords := 8 * len(flat)
	switch g := g.(type) {
	case *geom.Point, *geom.LineString:
		if len(flat) == 0 {
			return 0, ErrEmpty
		}
		if _, ok := g.(*geom.Point); ok {
			return coords, nil
		}
		return 4 + coords, nil
	case *geom.Polygon:
		return 4 + 4*len(g.Ends()) + coords, checkEnds(g.Ends(), 0)
	case *geom.MultiPoint:
		return 4 + g.NumPoints()*(5+8*stride), checkEnds(g.Ends(), 0)
	case *geom.MultiLineString:
		return 4 + 9*len(g.Ends()) + coords, checkEnds(g.Ends(), 0)
	case *geom.MultiPolygon:
		size, start := 4+coords, 0
		for _, ends := range g.Endss() {
			if len(ends) == 0 {
				return 0, fmt.Errorf("spatialite: multipolygon part: %w", ErrEmpty)
			}
			if err := checkEnds(ends, start); err != nil {
				return 0, err
			}
			size += 9 + 4*len(ends)
			start = ends[len(ends)-1]
		}
		return size, nil
	}
	return 0, fmt.Errorf("spatialite: geometry type %T: %w", g, ErrUnsupported)
}

// collectionSize sizes a GeometryCollection whose members are points,
// linestrings and polygons in the collection's layout.
func collectionSize(gc *geom.GeometryCollection) (int, error) {
	size := 4
	for _, m := range gc.Geoms() {
		if isNil(m) {
			return 0, ErrEmpty
		}
		switch m.(type) {
		case *geom.Point, *geom.LineString, *geom.Polygon:
		default:
			return 0, fmt.Errorf("spatialite: collection member %T: %w", m, ErrUnsupported)
		}
		if m.Layout() != gc.Layout() {
			return 0, fmt.Errorf("spatialite: collection member layout %v in %v: %w", m.Layout(), gc.Layout(), ErrInvalid)
		}
		n, err := bodySize(m)
		if err != nil {
			return 0, err
		}
		size += 5 + n
	}
	return size, nil
}

// checkEnds rejects empty parts: every end must advance past the previous one.
func checkEnds(ends []int, start int) error {
	if len(ends) == 0 {
		return ErrEmpty
	}
	for _, e := range ends {
		if e <= start {
			return fmt.Errorf("spatialite: empty ring or part: %w", ErrEmpty)
		}
		start = e
	}
	return nil
}

// isNil reports a typed nil pointer inside g, whose methods would panic.
func isNil(g geom.T) bool {
	switch g := g.(type) {
	case *geom.Point:
		return g == nil
	case *geom.LineString:
		return g == nil
	case *geom.Polygon:
		return g == nil
	case *geom.MultiPoint:
		return g == nil
	case *geom.MultiLineString:
		return g == nil
	case *geom.MultiPolygon:
		return g == nil
	case *geom.GeometryCollection:
		return g == nil
	}
	return g == nil
}

// envelopeOf returns the XY bounds of g and rejects NaN and infinities in
// any ordinate (Z and M included).
func envelopeOf(g geom.T) (Rect, error) {
	r := Rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	if gc, ok := g.(*geom.GeometryCollection); ok {
		for _, m := range gc.Geoms() {
			mr, err := envelopeOf(m)
			if err != nil {
				return r, err
			}
			r = Rect{min(r.MinX, mr.MinX), min(r.MinY, mr.MinY), max(r.MaxX, mr.MaxX), max(r.MaxY, mr.MaxY)}
		}
		return r, nil
	}
	flat, stride := g.FlatCoords(), g.Stride()
	for i := 0; i+stride <= len(flat); i += stride {
		for _, v := range flat[i : i+stride] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return r, fmt.Errorf("spatialite: non-finite coordinate %v: %w", v, ErrInvalid)
			}
		}
		x, y := flat[i], flat[i+1]
		r.MinX, r.MaxX = min(r.MinX, x), max(r.MaxX, x)
		r.MinY, r.MaxY = min(r.MinY, y), max(r.MaxY, y)
	}
	return r, nil
}

// appendBody writes the geometry body after the class code; bodySize has
// validated g.
func appendBody(dst []byte, g geom.T) []byte {
	switch g := g.(type) {
	case *geom.Point:
		return appendF64s(dst, g.FlatCoords())
	case *geom.LineString:
		return appendRun(dst, g.FlatCoords(), g.Stride())
	case *geom.Polygon:
		return appendRings(dst, g.FlatCoords(), g.Ends(), 0, g.Stride())
	case *geom.MultiPoint:
		return appendMultiPoint(dst, g)
	case *geom.MultiLineString:
		class, _ := classCode(kindLineString, g.Layout())
		flat, start := g.FlatCoords(), 0
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.Ends())))
		for _, end := range g.Ends() {
			dst = appendEntity(dst, class)
			dst = appendRun(dst, flat[start:end], g.Stride())
			start = end
		}
		return dst
	case *geom.MultiPolygon:
		class, _ := classCode(kindPolygon, g.Layout())
		start := 0
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.Endss())))
		for _, ends := range g.Endss() {
			dst = appendEntity(dst, class)
			dst = appendRings(dst, g.FlatCoords(), ends, start, g.Stride())
			start = ends[len(ends)-1]
		}
		return dst
	case *geom.GeometryCollection:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(g.NumGeoms()))
		for _, m := range g.Geoms() {
			kind, _ := kindOf(m)
			class, _ := classCode(kind, m.Layout())
			dst = appendBody(appendEntity(dst, class), m)
		}
		return dst
	}
	return dst
}

// appendMultiPoint writes each point as its own entity.
func appendMultiPoint(dst []byte, g *geom.MultiPoint) []byte {
	class, _ := classCode(kindPoint, g.Layout())
	flat, start := g.FlatCoords(), 0
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.Ends())))
	for _, end := range g.Ends() {
		dst = appendEntity(dst, class)
		dst = appendF64s(dst, flat[start:end])
		start = end
	}
	return dst
}

// appendRings writes a polygon body: ring count, then each ring as a run.
func appendRings(dst []byte, flat []float64, ends []int, start, stride int) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(ends)))
	for _, end := range ends {
		dst = appendRun(dst, flat[start:end], stride)
		start = end
	}
	return dst
}

// appendRun writes a point count followed by the coordinates.
func appendRun(dst []byte, flat []float64, stride int) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(flat)/stride))
	return appendF64s(dst, flat)
}

func appendEntity(dst []byte, class uint32) []byte {
	return binary.LittleEndian.AppendUint32(append(dst, entityMark), class)
}

func appendF64s(dst []byte, vs []float64) []byte {
	for _, v := range vs {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return dst
}

func appendF64(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}
