package draco

// traversalOrder is the attribute value order the reference decoder
// derives with DepthFirstTraverser (MESH_TRAVERSAL_DEPTH_FIRST): per value
// the corner that introduced its vertex (data_to_corner_map) and per vertex
// its value index (vertex_to_data_map; 0 for vertices never reached).
type traversalOrder struct {
	corners []int32
	vtd     []int32
}

// dfs is the traversal state.
type dfs struct {
	t          *cornerTable
	onBoundary func(v int32) bool // IsOnBoundary of the traversed table
	o          traversalOrder
	visitedV   []bool
	visitedF   []bool
	stack      []int32
}

// dfsOrder traverses t from corner 0 of every face in order, as the
// decoder does when it has no explicit corner order.
func dfsOrder(t *cornerTable, numVerts int, onBoundary func(v int32) bool) traversalOrder {
	d := &dfs{t: t, onBoundary: onBoundary, visitedV: make([]bool, numVerts), visitedF: make([]bool, t.numFaces())}
	d.o = traversalOrder{corners: make([]int32, 0, numVerts), vtd: make([]int32, numVerts)}
	for f := 0; f < t.numFaces(); f++ {
		if !d.visitedF[f] {
			d.fromCorner(int32(3 * f))
		}
	}
	return d.o
}

func (d *dfs) visit(v, c int32) {
	d.visitedV[v] = true
	d.o.vtd[v] = int32(len(d.o.corners))
	d.o.corners = append(d.o.corners, c)
}

func (d *dfs) faceDone(c int32) bool { return c < 0 || d.visitedF[c/3] }

// fromCorner is DepthFirstTraverser::TraverseFromCorner.
func (d *dfs) fromCorner(c int32) {
	t := d.t
	d.stack = append(d.stack[:0], c)
	for _, k := range []int32{next(c), prev(c)} {
		if v := t.v[k]; !d.visitedV[v] {
			d.visit(v, k)
		}
	}
	for len(d.stack) > 0 {
		c = d.stack[len(d.stack)-1]
		if d.faceDone(c) {
			d.stack = d.stack[:len(d.stack)-1]
			continue
		}
		for {
			d.visitedF[c/3] = true
			v := t.v[c]
			if !d.visitedV[v] {
				b := d.onBoundary(v)
				d.visit(v, c)
				if !b {
					if c = t.rightCorner(c); d.faceDone(c) {
						// Cannot happen on a table the decoder built
						// (an interior vertex has a closed fan).
						d.stack = d.stack[:len(d.stack)-1]
						break
					}
					continue
				}
			}
			r, l := t.rightCorner(c), t.leftCorner(c)
			if !d.faceDone(r) && !d.faceDone(l) {
				// Split: the right branch first, the left one later.
				d.stack[len(d.stack)-1] = l
				d.stack = append(d.stack, r)
				break
			}
			if !d.faceDone(r) {
				c = r
			} else if !d.faceDone(l) {
				c = l
			} else {
				d.stack = d.stack[:len(d.stack)-1]
				break
			}
		}
	}
}

// parallelogram returns the predictor of MESH_PREDICTION_PARALLELOGRAM for
// values vals (comps per entry, in traversal order) on table t.
func parallelogram(t *cornerTable, o traversalOrder, vals []int32, comps int) predictor {
	return func(i int, pred []int64) bool {
		oc := t.opposite(o.corners[i])
		if oc < 0 {
			return false
		}
		vo, vn, vp := o.vtd[t.v[oc]], o.vtd[t.v[next(oc)]], o.vtd[t.v[prev(oc)]]
		if int(vo) >= i || int(vn) >= i || int(vp) >= i {
			return false
		}
		for k := 0; k < comps; k++ {
			pred[k] = int64(vals[int(vn)*comps+k]) + int64(vals[int(vp)*comps+k]) - int64(vals[int(vo)*comps+k])
		}
		return true
	}
}
