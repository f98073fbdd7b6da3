package spatialite

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/twpayne/go-geom"
)

// Decode parses a SpatiaLite BLOB-Geometry (either byte order, compressed
// linestrings and polygons included) and returns the geometry with its SRID
// (also set on the geometry). The MBR stored in the header is not checked
// against the coordinates. Memory allocated is bounded by a small multiple
// of len(b): every count is checked against the bytes that remain before
// anything is allocated. It returns an error wrapping ErrInvalid for
// malformed or truncated input, trailing bytes and non-finite coordinates.
// TinyPoint BLOBs (SpatiaLite 4.3+, off by default) are not supported.
func Decode(b []byte) (geom.T, int, error) {
	order, err := checkFrame(b)
	if err != nil {
		return nil, 0, err
	}
	srid := int(int32(order.Uint32(b[offSRID:])))
	d := decoder{b: b[:len(b)-1], off: offClass, order: order}
	g, err := d.geometry()
	if err != nil {
		return nil, 0, err
	}
	if d.off != len(d.b) {
		return nil, 0, d.fail("trailing bytes")
	}
	setSRID(g, srid)
	return g, srid, nil
}

// Envelope returns the MBR stored in the header of a BLOB-Geometry without
// decoding the coordinates. It validates the framing (start, byte order, MBR
// end and end markers) and that the MBR is finite and ordered; otherwise it
// returns an error wrapping ErrInvalid.
func Envelope(b []byte) (Rect, error) {
	order, err := checkFrame(b)
	if err != nil {
		return Rect{}, err
	}
	f := func(i int) float64 { return math.Float64frombits(order.Uint64(b[offMBR+8*i:])) }
	r := Rect{f(0), f(1), f(2), f(3)}
	if !finite(r.MinX) || !finite(r.MinY) || !finite(r.MaxX) || !finite(r.MaxY) ||
		r.MinX > r.MaxX || r.MinY > r.MaxY {
		return Rect{}, fmt.Errorf("spatialite: bad MBR %v: %w", r, ErrInvalid)
	}
	return r, nil
}

// checkFrame validates the fixed header bytes and the end marker and returns
// the byte order.
func checkFrame(b []byte) (binary.ByteOrder, error) {
	if len(b) < minBlob {
		return nil, fmt.Errorf("spatialite: blob of %d bytes: %w", len(b), ErrInvalid)
	}
	if b[0] != blobStart || b[offMBREnd] != mbrEnd || b[len(b)-1] != blobEnd {
		return nil, fmt.Errorf("spatialite: bad framing bytes: %w", ErrInvalid)
	}
	switch b[1] {
	case littleEndian:
		return binary.LittleEndian, nil
	case bigEndian:
		return binary.BigEndian, nil
	}
	return nil, fmt.Errorf("spatialite: bad byte order 0x%02x: %w", b[1], ErrInvalid)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// class is a parsed class code.
type class struct {
	kind       uint32
	layout     geom.Layout
	compressed bool
}

func parseClass(c uint32) (class, bool) {
	var cl class
	if c >= compressedOffset {
		cl.compressed, c = true, c-compressedOffset
	}
	dim, kind := c/1000, c%1000
	if dim > 3 || kind < kindPoint || kind > kindGeometryCollection ||
		(cl.compressed && kind != kindLineString && kind != kindPolygon) {
		return cl, false
	}
	cl.kind, cl.layout = kind, layoutOf(dim)
	return cl, true
}

// setSRID tags g with srid.
func setSRID(g geom.T, srid int) {
	switch g := g.(type) {
	case *geom.Point:
		g.SetSRID(srid)
	case *geom.LineString:
		g.SetSRID(srid)
	case *geom.Polygon:
		g.SetSRID(srid)
	case *geom.MultiPoint:
		g.SetSRID(srid)
	case *geom.MultiLineString:
		g.SetSRID(srid)
	case *geom.MultiPolygon:
		g.SetSRID(srid)
	case *geom.GeometryCollection:
		g.SetSRID(srid)
	}
}
