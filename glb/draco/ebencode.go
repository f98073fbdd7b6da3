package draco

import "fmt"

// Edgebreaker symbols with their bit patterns (TOPOLOGY_* in the spec).
const (
	symC = 0
	symS = 1
	symL = 3
	symR = 5
	symE = 7
)

// Edges named by TopologySplitEventData.source_edge.
const (
	leftFaceEdge  = 0
	rightFaceEdge = 1
)

type splitEvent struct {
	source, split int32
	edge          uint8
}

// ebTraversal is the result of the standard Edgebreaker traversal of a
// corner table (MESH_EDGEBREAKER_STANDARD_ENCODING).
type ebTraversal struct {
	symbols []uint8
	tips    []int32 // tip corner of each symbol, in encoding order
	events  []splitEvent
	configs []bool  // start face configuration per component (true: interior)
	inits   []int32 // first corner of each interior start face
	splits  int
}

// ebEncoder holds the traversal state.
type ebEncoder struct {
	t            *cornerTable
	out          ebTraversal
	visitedFaces []bool
	visitedVerts []bool
	holeID       []int32
	visitedHoles []bool
	faceToSplit  map[int32]int32
	stack        []int32
	broken       bool // a boundary walk ran away
}

// aroundToBoundary swings from corner c (via next of the opposite) until
// the corner opposite a boundary edge; -1 if the walk does not end.
func (e *ebEncoder) aroundToBoundary(c int32) int32 {
	for n := 0; e.t.opp[c] >= 0; n++ {
		if n > len(e.t.v) {
			e.broken = true
			return -1
		}
		c = next(e.t.opp[c])
	}
	return c
}

// traverse runs the Edgebreaker traversal over every component of t. It
// fails with errSimulation when a boundary walk does not close (which a
// table from newCornerTable never causes).
func traverse(t *cornerTable) (ebTraversal, error) {
	e := &ebEncoder{
		t:            t,
		visitedFaces: make([]bool, t.numFaces()),
		visitedVerts: make([]bool, t.numVertices()),
		holeID:       make([]int32, t.numVertices()),
		faceToSplit:  map[int32]int32{},
	}
	e.out.symbols = make([]uint8, 0, t.numFaces())
	e.out.tips = make([]int32, 0, t.numFaces())
	e.findHoles()
	for f := 0; f < t.numFaces(); f++ {
		if e.visitedFaces[f] {
			continue
		}
		start, interior := e.initFace(int32(f))
		e.out.configs = append(e.out.configs, interior)
		if interior {
			c := start
			for _, cc := range []int32{c, next(c), prev(c)} {
				e.visitedVerts[t.v[cc]] = true
			}
			e.visitedFaces[f] = true
			e.out.inits = append(e.out.inits, next(c))
			if o := t.opposite(next(c)); o >= 0 && !e.visitedFaces[o/3] {
				e.encodeFrom(o)
			}
		} else {
			e.encodeHole(next(start), true)
			e.encodeFrom(start)
		}
	}
	if e.broken {
		return ebTraversal{}, fmt.Errorf("%w: open boundary walk", errSimulation)
	}
	return e.out, nil
}

// findHoles labels every boundary loop and its vertices.
func (e *ebEncoder) findHoles() {
	t := e.t
	for i := range e.holeID {
		e.holeID[i] = -1
	}
	for c := int32(0); c < int32(len(t.v)); c++ {
		if t.opp[c] >= 0 {
			continue
		}
		bv := t.v[next(c)]
		if e.holeID[bv] >= 0 {
			continue
		}
		id := int32(len(e.visitedHoles))
		e.visitedHoles = append(e.visitedHoles, false)
		cc := c
		for e.holeID[bv] < 0 {
			e.holeID[bv] = id
			if cc = e.aroundToBoundary(next(cc)); cc < 0 {
				return
			}
			bv = t.v[next(cc)]
		}
	}
}

// initFace picks the start corner of a component: interior when no vertex
// of face f is on a boundary, else the corner opposite a boundary edge.
func (e *ebEncoder) initFace(f int32) (int32, bool) {
	t := e.t
	c := 3 * f
	for i := 0; i < 3; i++ {
		if t.opp[c] < 0 {
			return c, false
		}
		if e.holeID[t.v[c]] >= 0 {
			r := c
			for r >= 0 {
				c = r
				r = t.swingRight(r)
			}
			return prev(c), false
		}
		c = next(c)
	}
	return c, true
}

// encodeHole marks the vertices of the boundary loop through the vertex of
// start as visited.
func (e *ebEncoder) encodeHole(start int32, first bool) {
	t := e.t
	c := e.aroundToBoundary(prev(start))
	if c < 0 {
		return
	}
	sv := t.v[start]
	if first {
		e.visitedVerts[sv] = true
	}
	e.visitedHoles[e.holeID[sv]] = true
	act := t.v[prev(c)]
	for n := 0; act != sv; n++ {
		e.visitedVerts[act] = true
		if c = e.aroundToBoundary(next(c)); c < 0 || n > len(t.v) {
			e.broken = true
			return
		}
		act = t.v[prev(c)]
	}
}

func (e *ebEncoder) faceVisited(c int32) bool {
	return c < 0 || e.visitedFaces[c/3]
}

func (e *ebEncoder) emit(sym uint8, tip int32) {
	e.out.symbols = append(e.out.symbols, sym)
	e.out.tips = append(e.out.tips, tip)
}

// checkSplit records a topology split when the neighbour face across edge
// was the face of an earlier S symbol.
func (e *ebEncoder) checkSplit(neighbour int32, edge uint8) {
	if neighbour < 0 {
		return
	}
	if s, ok := e.faceToSplit[neighbour/3]; ok {
		src := int32(len(e.out.symbols) - 1)
		e.out.events = append(e.out.events, splitEvent{source: src, split: s, edge: edge})
	}
}

// encodeFrom is EncodeConnectivityFromCorner of the reference encoder.
func (e *ebEncoder) encodeFrom(c int32) {
	t := e.t
	e.stack = append(e.stack[:0], c)
	for len(e.stack) > 0 {
		c = e.stack[len(e.stack)-1]
		if e.faceVisited(c) {
			e.stack = e.stack[:len(e.stack)-1]
			continue
		}
		for first := true; ; first = false {
			if !first && (c < 0 || e.visitedFaces[c/3]) {
				e.broken = true // a C symbol led into a visited face
				return
			}
			f := c / 3
			e.visitedFaces[f] = true
			v := t.v[c]
			onBoundary := e.holeID[v] >= 0
			if !e.visitedVerts[v] {
				e.visitedVerts[v] = true
				if !onBoundary {
					e.emit(symC, c)
					c = t.rightCorner(c)
					continue
				}
			}
			right, left := t.rightCorner(c), t.leftCorner(c)
			if e.faceVisited(right) {
				if e.faceVisited(left) {
					e.emit(symE, c)
					e.checkSplit(right, rightFaceEdge)
					e.checkSplit(left, leftFaceEdge)
					e.stack = e.stack[:len(e.stack)-1]
					break
				}
				e.emit(symR, c)
				e.checkSplit(right, rightFaceEdge)
				c = left
				continue
			}
			if e.faceVisited(left) {
				e.emit(symL, c)
				e.checkSplit(left, leftFaceEdge)
				c = right
				continue
			}
			e.emit(symS, c)
			e.out.splits++
			if onBoundary && !e.visitedHoles[e.holeID[v]] {
				e.encodeHole(c, false)
			}
			e.faceToSplit[f] = int32(len(e.out.symbols) - 1)
			e.stack[len(e.stack)-1] = left
			e.stack = append(e.stack, right)
			break
		}
	}
}
