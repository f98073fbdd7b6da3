package draco

import (
	"errors"
	"fmt"
)

// errSimulation reports that the decoder simulation disagreed with the
// encoder; it is an internal error and makes Encode fall back.
var errSimulation = errors.New("draco: edgebreaker simulation mismatch")

// decodedTable is the corner table the reference decoder rebuilds from an
// Edgebreaker traversal, with the encoder corner behind every decoded corner.
type decodedTable struct {
	cornerTable
	encCorner []int32
	isHole    []bool
	// ctx is the valence context (0..5, or -1) in which the valence
	// decoder reads each symbol, in decoding order.
	ctx []int8
}

// simulator is the state of the replayed decoder.
type simulator struct {
	d           *decodedTable
	tr          *ebTraversal
	stack       []int32
	invalid     []int32 // merged vertices
	splitActive map[int]int32
	events      []splitEvent
	valence     []int32
	maxVerts    int
}

// simulateDecode replays MeshEdgebreakerDecoderImpl::DecodeConnectivity
// (Draco 2.2) on tr. The decoder rebuilds faces in reverse symbol order;
// face i of the result stems from symbol n-1-i, and its corners 0, 1, 2
// stem from the tip corner of that symbol and the corners after and before
// it. removeInvalid mirrors the decoder removing merged vertices when there
// is no attribute connectivity data. Any inconsistency is errSimulation.
func simulateDecode(tr *ebTraversal, numFaces, maxVerts int, removeInvalid bool) (*decodedTable, error) {
	d := &decodedTable{}
	d.v = make([]int32, 3*numFaces)
	d.opp = make([]int32, 3*numFaces)
	d.encCorner = make([]int32, 3*numFaces)
	for i := range d.v {
		d.v[i], d.opp[i], d.encCorner[i] = -1, -1, -1
	}
	n := len(tr.symbols)
	if n > numFaces || len(tr.tips) != n {
		return nil, errSimulation
	}
	sim := &simulator{d: d, tr: tr, splitActive: map[int]int32{}, events: tr.events,
		valence: make([]int32, maxVerts), maxVerts: maxVerts}
	d.ctx = make([]int8, n)
	active := int8(-1)
	for sid := 0; sid < n; sid++ {
		c := int32(3 * sid)
		d.ctx[sid] = active
		tip := tr.tips[n-1-sid]
		d.encCorner[c], d.encCorner[c+1], d.encCorner[c+2] = tip, next(tip), prev(tip)
		sym := tr.symbols[n-1-sid]
		var err error
		switch sym {
		case symC:
			err = sim.symbolC(c)
		case symR, symL:
			err = sim.symbolRL(c, sym == symR)
		case symS:
			err = sim.symbolS(c, sid)
		case symE:
			err = sim.symbolE(c)
		default:
			err = errSimulation
		}
		if err != nil {
			return nil, err
		}
		active = updateValence(sim.valence, &d.cornerTable, sym, sim.top())
		if sym != symC && sym != symS {
			if err := sim.splits(n - sid - 1); err != nil {
				return nil, err
			}
		}
	}
	if err := d.startFaces(tr, &sim.stack, n, numFaces); err != nil {
		return nil, err
	}
	if removeInvalid {
		d.removeVertices(sim.invalid)
	}
	return d, nil
}

func (s *simulator) top() int32 { return s.stack[len(s.stack)-1] }

// vertexAt is the vertex of corner c, or -1 when c or its vertex is unset.
func (s *simulator) vertexAt(c int32) int32 {
	if c < 0 || int(c) >= len(s.d.v) {
		return -1
	}
	return s.d.v[c]
}

func (s *simulator) addVertex() int32 {
	s.d.left = append(s.d.left, -1)
	s.d.isHole = append(s.d.isHole, true)
	return int32(len(s.d.left) - 1)
}

// symbolC closes a face between the active edge and the edge after it
// around the vertex x.
func (s *simulator) symbolC(c int32) error {
	d := s.d
	if len(s.stack) == 0 {
		return errSimulation
	}
	a := s.top()
	x := s.vertexAt(next(a))
	if x < 0 || d.left[x] < 0 {
		return errSimulation
	}
	b := next(d.left[x])
	ap, bn := s.vertexAt(prev(a)), s.vertexAt(next(b))
	if a == b || d.opp[a] >= 0 || d.opp[b] >= 0 || ap < 0 || bn < 0 || x == ap || x == bn {
		return errSimulation
	}
	d.setOpposite(a, c+1)
	d.setOpposite(b, c+2)
	d.v[c], d.v[c+1], d.v[c+2] = x, bn, ap
	d.left[ap] = c + 2
	d.isHole[x] = false
	s.stack[len(s.stack)-1] = c
	return nil
}

// symbolRL adds a face with a new vertex on the active edge.
func (s *simulator) symbolRL(c int32, right bool) error {
	d := s.d
	if len(s.stack) == 0 {
		return errSimulation
	}
	a := s.top()
	oppC, cl, cr := c+1, c, c+2
	if right {
		oppC, cl, cr = c+2, c+1, c
	}
	vr, vl := s.vertexAt(prev(a)), s.vertexAt(next(a))
	if d.opp[a] >= 0 || vr < 0 || vl < 0 {
		return errSimulation
	}
	d.setOpposite(oppC, a)
	nv := s.addVertex()
	if len(d.left) > s.maxVerts {
		return errSimulation
	}
	d.v[oppC] = nv
	d.left[nv] = oppC
	d.v[cr] = vr
	d.left[vr] = cr
	d.v[cl] = vl
	s.stack[len(s.stack)-1] = c
	return nil
}

// symbolS joins the two top active edges (or an edge from a topology split
// event) and merges the vertices p and n.
func (s *simulator) symbolS(c int32, sid int) error {
	d := s.d
	if len(s.stack) == 0 {
		return errSimulation
	}
	b := s.top()
	s.stack = s.stack[:len(s.stack)-1]
	if sc, ok := s.splitActive[sid]; ok {
		s.stack = append(s.stack, sc)
	}
	if len(s.stack) == 0 {
		return errSimulation
	}
	a := s.top()
	vp, va, bp, vn := s.vertexAt(prev(a)), s.vertexAt(next(a)), s.vertexAt(prev(b)), s.vertexAt(next(b))
	if a == b || d.opp[a] >= 0 || d.opp[b] >= 0 || vp < 0 || va < 0 || bp < 0 || vn < 0 {
		return errSimulation
	}
	d.setOpposite(a, c+2)
	d.setOpposite(b, c+1)
	d.v[c], d.v[c+1], d.v[c+2] = vp, va, bp
	d.left[bp] = c + 2
	d.left[vp] = d.left[vn]
	s.valence[vp] += s.valence[vn]
	for cn := next(b); cn >= 0; {
		d.v[cn] = vp
		if cn = d.swingLeft(cn); cn == next(b) {
			return errSimulation
		}
	}
	d.left[vn] = -1
	s.invalid = append(s.invalid, vn)
	s.stack[len(s.stack)-1] = c
	return nil
}

// symbolE starts a new active region with three new vertices.
func (s *simulator) symbolE(c int32) error {
	d := s.d
	v0 := s.addVertex()
	s.addVertex()
	s.addVertex()
	if len(d.left) > s.maxVerts {
		return errSimulation
	}
	d.v[c], d.v[c+1], d.v[c+2] = v0, v0+1, v0+2
	d.left[v0], d.left[v0+1], d.left[v0+2] = c, c+1, c+2
	s.stack = append(s.stack, c)
	return nil
}

// splits registers the active edges that topology split events attach to
// the symbol with encoder id encID.
func (s *simulator) splits(encID int) error {
	n := len(s.tr.symbols)
	for len(s.events) > 0 && int(s.events[len(s.events)-1].source) >= encID {
		ev := s.events[len(s.events)-1]
		if int(ev.source) != encID {
			return errSimulation
		}
		s.events = s.events[:len(s.events)-1]
		nc := prev(s.top())
		if ev.edge == rightFaceEdge {
			nc = next(s.top())
		}
		s.splitActive[n-int(ev.split)-1] = nc
	}
	return nil
}

// startFaces closes the components left on the stack: interior start faces
// become new faces, boundary starts add nothing.
func (d *decodedTable) startFaces(tr *ebTraversal, stack *[]int32, numFaces, total int) error {
	cfg, init := 0, 0
	for len(*stack) > 0 {
		c := (*stack)[len(*stack)-1]
		*stack = (*stack)[:len(*stack)-1]
		if cfg >= len(tr.configs) {
			return errSimulation
		}
		interior := tr.configs[cfg]
		cfg++
		if !interior {
			continue
		}
		if numFaces >= total || init >= len(tr.inits) {
			return errSimulation
		}
		vn := d.v[next(c)]
		if vn < 0 || d.left[vn] < 0 {
			return errSimulation
		}
		b := next(d.left[vn])
		vx := d.v[next(b)]
		if vx < 0 || d.left[vx] < 0 {
			return errSimulation
		}
		cc := next(d.left[vx])
		if c == b || c == cc || b == cc || d.opp[c] >= 0 || d.opp[b] >= 0 || d.opp[cc] >= 0 {
			return errSimulation
		}
		vp := d.v[next(cc)]
		if vp < 0 {
			return errSimulation
		}
		nc := int32(3 * numFaces)
		numFaces++
		d.setOpposite(nc, c)
		d.setOpposite(nc+1, b)
		d.setOpposite(nc+2, cc)
		d.v[nc], d.v[nc+1], d.v[nc+2] = vx, vp, vn
		for k := int32(0); k < 3; k++ {
			d.isHole[d.v[nc+k]] = false
		}
		ic := tr.inits[init]
		init++
		d.encCorner[nc], d.encCorner[nc+1], d.encCorner[nc+2] = ic, next(ic), prev(ic)
	}
	if numFaces != total {
		return fmt.Errorf("%w: %d of %d faces", errSimulation, numFaces, total)
	}
	return nil
}

// removeVertices moves the last valid vertices into the slots of merged
// ones, like the end of the reference DecodeConnectivity.
func (d *decodedTable) removeVertices(invalid []int32) {
	nv := int32(len(d.left))
	for _, iv := range invalid {
		src := nv - 1
		for src >= 0 && d.left[src] < 0 {
			nv--
			src = nv - 1
		}
		if src < iv {
			continue
		}
		for _, c := range d.vertexCorners(src) {
			d.v[c] = iv
		}
		d.left[iv] = d.left[src]
		d.left[src] = -1
		d.isHole[iv] = d.isHole[src]
		d.isHole[src] = false
		nv--
	}
	d.left = d.left[:nv]
	d.isHole = d.isHole[:nv]
}

// vertexCorners lists the corners around v like VertexCornersIterator:
// swinging left from the left-most corner, then right from it.
func (t *cornerTable) vertexCorners(v int32) []int32 {
	start := t.left[v]
	if start < 0 {
		return nil
	}
	out := []int32{start}
	c := t.swingLeft(start)
	for c >= 0 && c != start {
		out = append(out, c)
		c = t.swingLeft(c)
	}
	if c < 0 {
		for c = t.swingRight(start); c >= 0; c = t.swingRight(c) {
			out = append(out, c)
		}
	}
	return out
}

// updateValence mirrors MeshEdgebreakerTraversalValenceDecoder::
// NewActiveCornerReached: it adds the valence the decoded symbol gave to the
// vertices of the active face and returns the next context (valence of the
// vertex after the active corner, clamped to 2..7, minus 2).
func updateValence(val []int32, t *cornerTable, sym uint8, c int32) int8 {
	n, p := t.v[next(c)], t.v[prev(c)]
	switch sym {
	case symC, symS:
		val[n]++
		val[p]++
	case symR:
		val[t.v[c]]++
		val[n]++
		val[p] += 2
	case symL:
		val[t.v[c]]++
		val[n] += 2
		val[p]++
	case symE:
		val[t.v[c]] += 2
		val[n] += 2
		val[p] += 2
	}
	return int8(min(max(val[n], 2), 7) - 2)
}
