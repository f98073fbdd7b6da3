package cql2

import "github.com/twpayne/go-geom"

// bboxSteps is the number of points per side of a BBOX turned into a polygon
// by Transform, so that its edges follow the curve they become in the target CRS.
const bboxSteps = 16

// Transform returns a copy of e whose geometry literals have every (x, y)
// replaced by f(x, y) (z kept): the server's filter-crs support, mapping
// literals into the CRS of the features. A BBOX becomes a polygon with
// bboxSteps points per side (its straight edges are not straight in most
// other CRS); z bounds of a 6-number BBOX are dropped. e is not modified.
func (e *Expr) Transform(f func(x, y float64) (float64, float64)) *Expr {
	c := *e
	if len(e.Args) > 0 {
		c.Args = make([]*Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = a.Transform(f)
		}
	}
	switch e.Kind {
	case KindGeometry:
		c.Geom = transformGeom(e.Geom, f)
	case KindBBox:
		b := e.BBox
		w, s, east, n := b[0], b[1], b[2], b[3]
		if len(b) == 6 {
			w, s, east, n = b[0], b[1], b[3], b[4]
		}
		corners := [][2]float64{{w, s}, {east, s}, {east, n}, {w, n}, {w, s}}
		var flat []float64
		for i := 0; i < 4; i++ {
			a, z := corners[i], corners[i+1]
			for k := 0; k < bboxSteps; k++ {
				t := float64(k) / bboxSteps
				x, y := f(a[0]+(z[0]-a[0])*t, a[1]+(z[1]-a[1])*t)
				flat = append(flat, x, y)
			}
		}
		flat = append(flat, flat[0], flat[1])
		c.Kind, c.BBox = KindGeometry, nil
		c.Geom = geom.NewPolygonFlat(geom.XY, flat, []int{len(flat)})
	}
	return &c
}

func transformGeom(g geom.T, f func(x, y float64) (float64, float64)) geom.T {
	if gc, ok := g.(*geom.GeometryCollection); ok {
		out := geom.NewGeometryCollection()
		for _, p := range gc.Geoms() {
			_ = out.Push(transformGeom(p, f)) // same layouts as the source: cannot fail
		}
		return out
	}
	stride := g.Stride()
	src := g.FlatCoords()
	flat := make([]float64, len(src))
	copy(flat, src)
	for i := 0; i+1 < len(flat); i += stride {
		flat[i], flat[i+1] = f(flat[i], flat[i+1])
	}
	switch g := g.(type) {
	case *geom.Point:
		return geom.NewPointFlat(g.Layout(), flat)
	case *geom.LineString:
		return geom.NewLineStringFlat(g.Layout(), flat)
	case *geom.Polygon:
		return geom.NewPolygonFlat(g.Layout(), flat, g.Ends())
	case *geom.MultiPoint:
		return geom.NewMultiPointFlat(g.Layout(), flat)
	case *geom.MultiLineString:
		return geom.NewMultiLineStringFlat(g.Layout(), flat, g.Ends())
	case *geom.MultiPolygon:
		return geom.NewMultiPolygonFlat(g.Layout(), flat, g.Endss())
	}
	return g
}
