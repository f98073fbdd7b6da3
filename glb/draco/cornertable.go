package draco

import "slices"

// cornerTable is the corner table of the Draco spec: corner c belongs to
// face c/3, maps to vertex v[c] and has the opposite corner opp[c] (or -1
// on a boundary). left holds one corner per vertex (Draco's "left-most
// corner", -1 for an isolated vertex).
type cornerTable struct {
	v    []int32
	opp  []int32
	left []int32
}

func next(c int32) int32 {
	if c < 0 {
		return -1
	}
	if c%3 == 2 {
		return c - 2
	}
	return c + 1
}

func prev(c int32) int32 {
	if c < 0 {
		return -1
	}
	if c%3 == 0 {
		return c + 2
	}
	return c - 1
}

func (t *cornerTable) opposite(c int32) int32 {
	if c < 0 {
		return -1
	}
	return t.opp[c]
}

func (t *cornerTable) swingRight(c int32) int32 { return prev(t.opposite(prev(c))) }
func (t *cornerTable) swingLeft(c int32) int32  { return next(t.opposite(next(c))) }
func (t *cornerTable) rightCorner(c int32) int32 {
	return t.opposite(next(c))
}
func (t *cornerTable) leftCorner(c int32) int32 {
	return t.opposite(prev(c))
}
func (t *cornerTable) numFaces() int    { return len(t.v) / 3 }
func (t *cornerTable) numVertices() int { return len(t.left) }

// setOpposite links two corners.
func (t *cornerTable) setOpposite(a, b int32) {
	t.opp[a], t.opp[b] = b, a
}

// newCornerTable builds the table of faces over vertex ids in [0, nv).
// Edges shared by exactly two consistently oriented faces become interior;
// every other edge is a boundary. Vertices whose corners form several fans
// (non-manifold vertices) are split, parent maps each resulting vertex to
// the input vertex id.
func newCornerTable(faces [][3]uint32, nv int) (t *cornerTable, parent []int32) {
	nc := 3 * len(faces)
	t = &cornerTable{v: make([]int32, nc), opp: make([]int32, nc)}
	for f, fc := range faces {
		for j, v := range fc {
			t.v[3*f+j] = int32(v)
		}
	}
	t.pairEdges(nv)
	parent = t.splitFans(nv)
	return t, parent
}

// pairEdges sets opposite corners. The directed edge of corner c runs from
// the vertex after c to the vertex before it; c pairs with the one corner
// whose edge runs back, when both directions occur exactly once.
func (t *cornerTable) pairEdges(nv int) {
	nc := int32(len(t.v))
	// Corners grouped by the start vertex of their edge (CSR layout).
	start := make([]int32, nv+1)
	for c := int32(0); c < nc; c++ {
		start[t.v[next(c)]+1]++
	}
	for i := 1; i <= nv; i++ {
		start[i] += start[i-1]
	}
	fill := slices.Clone(start[:nv])
	byStart := make([]int32, nc)
	for c := int32(0); c < nc; c++ {
		a := t.v[next(c)]
		byStart[fill[a]] = c
		fill[a]++
	}
	// find returns the only corner with edge a->b, or -1.
	find := func(a, b int32) int32 {
		found := int32(-1)
		for _, c := range byStart[start[a]:start[a+1]] {
			if t.v[prev(c)] == b {
				if found >= 0 {
					return -1
				}
				found = c
			}
		}
		return found
	}
	for c := int32(0); c < nc; c++ {
		t.opp[c] = -1
		a, b := t.v[next(c)], t.v[prev(c)]
		if find(a, b) == c {
			t.opp[c] = find(b, a)
		}
	}
}

// splitFans gives every fan of corners around a vertex its own vertex id and
// sets left to the fan's left-most corner (where SwingLeft ends).
func (t *cornerTable) splitFans(nv int) []int32 {
	nc := int32(len(t.v))
	done := make([]bool, nc)
	parent := make([]int32, 0, nv)
	t.left = make([]int32, 0, nv)
	for c := int32(0); c < nc; c++ {
		if done[c] {
			continue
		}
		orig := t.v[c]
		id := int32(len(t.left))
		// Walk left to the fan start (or around a closed fan).
		first := c
		for l := t.swingLeft(first); l >= 0 && l != c; l = t.swingLeft(first) {
			first = l
		}
		t.left = append(t.left, first)
		parent = append(parent, orig)
		for r := first; r >= 0 && !done[r]; r = t.swingRight(r) {
			done[r] = true
			t.v[r] = id
		}
	}
	return parent
}
