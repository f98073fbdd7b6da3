package spatialite

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/twpayne/go-geom"
)

// decoder walks the body of a BLOB-Geometry. b excludes the end marker, so
// every bounds check is against the real payload.
type decoder struct {
	b     []byte
	off   int
	order binary.ByteOrder
	flat  []float64
	ends  []int
}

func (d *decoder) fail(what string) error {
	return fmt.Errorf("spatialite: %s at byte %d: %w", what, d.off, ErrInvalid)
}

func (d *decoder) remaining() int { return len(d.b) - d.off }

func (d *decoder) u32() (uint32, error) {
	if d.remaining() < 4 {
		return 0, d.fail("truncated")
	}
	v := d.order.Uint32(d.b[d.off:])
	d.off += 4
	return v, nil
}

// count reads an element count and checks that n elements of at least
// minSize bytes each fit in what remains; this caps every allocation.
func (d *decoder) count(minSize int) (int, error) {
	n, err := d.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(minSize) > uint64(d.remaining()) {
		return 0, d.fail(fmt.Sprintf("count %d exceeds data", n))
	}
	return int(n), nil
}

func (d *decoder) class() (class, error) {
	c, err := d.u32()
	if err != nil {
		return class{}, err
	}
	cl, ok := parseClass(c)
	if !ok {
		return cl, d.fail(fmt.Sprintf("bad class type %d", c))
	}
	return cl, nil
}

// geometry decodes the class code at d.off and the body after it.
func (d *decoder) geometry() (geom.T, error) {
	cl, err := d.class()
	if err != nil {
		return nil, err
	}
	// The flat slice holds at most one float64 per 8 body bytes for
	// uncompressed data; compressed data grows it by append, still bounded
	// by 3 floats per 12 bytes.
	d.flat = make([]float64, 0, d.remaining()/8)
	switch cl.kind {
	case kindMultiPoint, kindMultiLineString, kindMultiPolygon:
		return d.multi(cl)
	case kindGeometryCollection:
		return d.collection(cl)
	}
	if err := d.simple(cl); err != nil {
		return nil, err
	}
	return d.build(cl), nil
}

// simple appends the coordinates (and ring ends) of a point, linestring or
// polygon body to d.flat and d.ends.
func (d *decoder) simple(cl class) error {
	switch cl.kind {
	case kindPoint:
		return d.points(1, cl)
	case kindLineString:
		n, err := d.count(minPointSize(cl))
		if err != nil {
			return err
		}
		if n == 0 {
			return d.fail("empty linestring")
		}
		return d.points(n, cl)
	case kindPolygon:
		rings, err := d.count(4)
		if err != nil {
			return err
		}
		if rings == 0 {
			return d.fail("polygon without rings")
		}
		for range rings {
			n, err := d.count(minPointSize(cl))
			if err != nil {
				return err
			}
			if n == 0 {
				return d.fail("empty ring")
			}
			if err := d.points(n, cl); err != nil {
				return err
			}
			d.ends = append(d.ends, len(d.flat))
		}
		return nil
	}
	return d.fail("unexpected member type")
}

// build wraps d.flat and d.ends as a point, linestring or polygon.
func (d *decoder) build(cl class) geom.T {
	switch cl.kind {
	case kindPoint:
		return geom.NewPointFlat(cl.layout, d.flat)
	case kindLineString:
		return geom.NewLineStringFlat(cl.layout, d.flat)
	}
	return geom.NewPolygonFlat(cl.layout, d.flat, d.ends)
}

// minPointSize is the fewest bytes a vertex can take in a run of cl.
func minPointSize(cl class) int {
	if cl.compressed {
		return compressedSize(cl.layout)
	}
	return 8 * cl.layout.Stride()
}

// compressedSize is the size of an intermediate vertex of a compressed run:
// float32 deltas for X, Y (and Z), M as a full float64.
func compressedSize(l geom.Layout) int {
	switch l {
	case geom.XYZ:
		return 12
	case geom.XYM:
		return 16
	case geom.XYZM:
		return 20
	}
	return 8
}

// points appends n vertices to d.flat. In compressed runs the first and last
// vertex are full float64s and the others float32 deltas from the previous
// vertex (M, if present, is stored in full).
func (d *decoder) points(n int, cl class) error {
	stride := cl.layout.Stride()
	full, small := 8*stride, compressedSize(cl.layout)
	need := n * full
	if cl.compressed && n > 2 {
		need = 2*full + (n-2)*small
	}
	if need > d.remaining() {
		return d.fail("truncated coordinates")
	}
	zDelta := cl.layout == geom.XYZ || cl.layout == geom.XYZM
	for i := range n {
		start := len(d.flat)
		if !cl.compressed || i == 0 || i == n-1 {
			for range stride {
				d.flat = append(d.flat, d.f64())
			}
		} else {
			prev := d.flat[start-stride : start]
			d.flat = append(d.flat, prev[0]+d.f32(), prev[1]+d.f32())
			if zDelta {
				d.flat = append(d.flat, prev[2]+d.f32())
			}
			if cl.layout.MIndex() >= 0 {
				d.flat = append(d.flat, d.f64())
			}
		}
		for _, v := range d.flat[start:] {
			if !finite(v) {
				return d.fail("non-finite coordinate")
			}
		}
	}
	return nil
}

// f64 and f32 read one value; callers have checked the length.
func (d *decoder) f64() float64 {
	v := math.Float64frombits(d.order.Uint64(d.b[d.off:]))
	d.off += 8
	return v
}

func (d *decoder) f32() float64 {
	v := math.Float32frombits(d.order.Uint32(d.b[d.off:]))
	d.off += 4
	return float64(v)
}
