package draco

import "fmt"

// attrConn is the connectivity of the non-position attributes when they have
// seams: Draco's MeshAttributeCornerTable rebuilt from seam bits, as the
// decoder derives it (attribute data 0, MESH_CORNER_ATTRIBUTE).
type attrConn struct {
	table  cornerTable // opposites cut at seams, vertices split at seams
	point  []int32     // attribute vertex -> input point
	bits   bitCoder    // seam flags in decoding order
	points int         // points the decoder outputs (AssignPointsToCorners)
}

// buildAttrConn derives seams from the input points behind the decoded
// corners: an interior edge is a seam when the points at either end differ
// between its two faces.
func buildAttrConn(d *decodedTable, pt []int32) (*attrConn, error) {
	nc := int32(len(d.v))
	a := &attrConn{}
	seam := make([]bool, nc)
	onSeam := make([]bool, d.numVertices())
	add := func(c int32) {
		seam[c] = true
		onSeam[d.v[next(c)]], onSeam[d.v[prev(c)]] = true, true
		if o := d.opp[c]; o >= 0 {
			seam[o] = true
			onSeam[d.v[next(o)]], onSeam[d.v[prev(o)]] = true, true
		}
	}
	for c := int32(0); c < nc; c++ {
		o := d.opp[c]
		switch {
		case o < 0:
			add(c)
		case o/3 < c/3:
		default:
			s := pt[next(c)] != pt[prev(o)] || pt[prev(c)] != pt[next(o)]
			a.bits.add(s)
			if s {
				add(c)
			}
		}
	}
	t := &a.table
	t.opp = make([]int32, nc)
	t.v = make([]int32, nc)
	for c := range t.opp {
		t.opp[c], t.v[c] = d.opp[c], -1
		if seam[c] {
			t.opp[c] = -1
		}
	}
	if err := a.recomputeVertices(d, seam, onSeam); err != nil {
		return nil, err
	}
	a.point = make([]int32, len(t.left))
	for i := range a.point {
		a.point[i] = -1
	}
	for c := int32(0); c < nc; c++ {
		av := t.v[c]
		if av < 0 || (a.point[av] >= 0 && a.point[av] != pt[c]) {
			return nil, fmt.Errorf("%w: attribute vertex at corner %d", errSimulation, c)
		}
		a.point[av] = pt[c]
	}
	return a, a.countPoints(d, onSeam)
}

// recomputeVertices is MeshAttributeCornerTable::RecomputeVertices: one
// attribute vertex per run of corners between seams around each vertex.
func (a *attrConn) recomputeVertices(d *decodedTable, seam, onSeam []bool) error {
	t := &a.table
	for v := int32(0); v < int32(d.numVertices()); v++ {
		c := d.left[v]
		if c < 0 {
			continue
		}
		id := int32(len(t.left))
		first := c
		if onSeam[v] {
			for act := t.swingLeft(first); act >= 0; act = t.swingLeft(act) {
				first = act
				if t.swingLeft(act) == c {
					return fmt.Errorf("%w: seam loop at vertex %d", errSimulation, v)
				}
			}
		}
		t.v[first] = id
		t.left = append(t.left, first)
		for act := d.swingRight(first); act >= 0 && act != first; act = d.swingRight(act) {
			if seam[next(act)] {
				id = int32(len(t.left))
				t.left = append(t.left, act)
			}
			t.v[act] = id
		}
	}
	return nil
}

// countPoints replays the point deduplication of AssignPointsToCorners.
func (a *attrConn) countPoints(d *decodedTable, onSeam []bool) error {
	av := a.table.v
	for v := int32(0); v < int32(d.numVertices()); v++ {
		c := d.left[v]
		if c < 0 {
			continue
		}
		first := c
		if !d.isHole[v] && onSeam[v] {
			for act := d.swingRight(c); act != c; act = d.swingRight(act) {
				if act < 0 {
					return fmt.Errorf("%w: open fan at interior vertex %d", errSimulation, v)
				}
				if av[act] != av[c] {
					first = act
					break
				}
			}
		}
		a.points++
		prevC := first
		for c := d.swingRight(first); c >= 0 && c != first; c = d.swingRight(c) {
			if av[c] != av[prevC] {
				a.points++
			}
			prevC = c
		}
	}
	return nil
}
