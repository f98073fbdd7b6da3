package spatialite

import (
	"github.com/twpayne/go-geom"
)

// minEntity is the fewest bytes a collection member can take: the 0x69
// marker, its class code and a 4-byte count.
const minEntity = 9

// member reads the entity marker and class of a collection member and
// checks it against want (0 accepts a point, linestring or polygon).
func (d *decoder) member(want uint32, l geom.Layout) (class, error) {
	if d.remaining() < 1 || d.b[d.off] != entityMark {
		return class{}, d.fail("missing entity marker")
	}
	d.off++
	cl, err := d.class()
	if err != nil {
		return cl, err
	}
	if cl.layout != l {
		return cl, d.fail("member layout differs from collection")
	}
	if (want != 0 && cl.kind != want) || cl.kind > kindPolygon {
		return cl, d.fail("unexpected member type")
	}
	return cl, nil
}

// multi decodes a MULTIPOINT, MULTILINESTRING or MULTIPOLYGON body.
func (d *decoder) multi(cl class) (geom.T, error) {
	n, err := d.count(minEntity)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, d.fail("empty collection")
	}
	want := cl.kind - 3 // MULTIPOINT 4 -> POINT 1, and so on
	var parts []int     // index into d.ends where each polygon starts
	if want == kindPolygon {
		parts = make([]int, 0, n+1)
	}
	for range n {
		mcl, err := d.member(want, cl.layout)
		if err != nil {
			return nil, err
		}
		if want == kindPolygon {
			parts = append(parts, len(d.ends))
		}
		if err := d.simple(mcl); err != nil {
			return nil, err
		}
		if want != kindPolygon {
			d.ends = append(d.ends, len(d.flat))
		}
	}
	switch want {
	case kindPoint:
		return geom.NewMultiPointFlat(cl.layout, d.flat, geom.NewMultiPointFlatOptionWithEnds(d.ends)), nil
	case kindLineString:
		return geom.NewMultiLineStringFlat(cl.layout, d.flat, d.ends), nil
	}
	parts = append(parts, len(d.ends))
	endss := make([][]int, n)
	for i := range endss {
		a, b := parts[i], parts[i+1]
		endss[i] = d.ends[a:b:b]
	}
	return geom.NewMultiPolygonFlat(cl.layout, d.flat, endss), nil
}

// collection decodes a GEOMETRYCOLLECTION of points, linestrings and
// polygons. Members share one coordinate buffer, each capped at its own
// length so that appending to one cannot overwrite the next.
func (d *decoder) collection(cl class) (geom.T, error) {
	n, err := d.count(minEntity)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, d.fail("empty collection")
	}
	gc := geom.NewGeometryCollection()
	if err := gc.SetLayout(cl.layout); err != nil {
		return nil, d.fail("collection layout")
	}
	members := make([]geom.T, 0, n)
	for range n {
		mcl, err := d.member(0, cl.layout)
		if err != nil {
			return nil, err
		}
		d.ends = nil
		if err := d.simple(mcl); err != nil {
			return nil, err
		}
		own := d.flat[:len(d.flat):len(d.flat)]
		d.flat = d.flat[len(d.flat):]
		rest := d.flat
		d.flat = own
		members = append(members, d.build(mcl))
		d.flat = rest
	}
	if err := gc.Push(members...); err != nil {
		return nil, d.fail("collection member")
	}
	return gc, nil
}
