package draco

import (
	"fmt"
	"slices"
)

// Attribute decoder and traversal identifiers for Edgebreaker meshes.
const (
	meshVertexAttribute = 0 // MESH_VERTEX_ATTRIBUTE
	meshCornerAttribute = 1 // MESH_CORNER_ATTRIBUTE
	traversalDepthFirst = 0 // MESH_TRAVERSAL_DEPTH_FIRST
)

// ebPlan is a fully simulated Edgebreaker encoding: the traversal, the
// table the decoder rebuilds and the point behind every decoded vertex.
type ebPlan struct {
	enc    *cornerTable
	tr     ebTraversal
	dec    *decodedTable
	vPoint []int32   // decoded vertex -> input point (position source)
	attr   *attrConn // nil when all attributes are per vertex
	points int       // decoded point count
}

// encodeEdgebreaker writes MESH_EDGEBREAKER_ENCODING with the standard or
// the valence traversal coding, whichever is smaller. Positions are coded per vertex of the connectivity (shared
// positions once) in the decoder's depth-first order with parallelogram
// prediction. Other attributes follow the same vertices, or, when they have
// seams (e.g. flat normals), a per-corner attribute connectivity.
func encodeEdgebreaker(w *writer, in *input) (points int, err error) {
	p, err := planEdgebreaker(in, true)
	if err != nil {
		// Coincident positions inside one triangle or other rare
		// configurations: connect by point instead of by position.
		if p, err = planEdgebreaker(in, false); err != nil {
			return 0, err
		}
	}
	writeHeader(w, 1)
	numData := 0
	if p.attr != nil {
		numData = 1
	}
	var std, val writer
	if err := writeConnectivity(&std, p, numData, false); err != nil {
		return 0, err
	}
	if err := writeConnectivity(&val, p, numData, true); err != nil {
		return 0, err
	}
	if len(val.b) < len(std.b) {
		w.bytes(val.b)
	} else {
		w.bytes(std.b)
	}
	writeEBAttributes(w, p, in)
	return p.points, nil
}

// writeEBAttributes writes the attributes decoders: decoder 0 holds the
// position (and, without seams, every attribute) on the position
// connectivity; with seams decoder 1 holds the rest on attribute data 0.
func writeEBAttributes(w *writer, p *ebPlan, in *input) {
	// Positions come first: geometric normal prediction reads them.
	vertexAtts := []*portable{&in.atts[in.pos]}
	var cornerAtts []*portable
	for i := range in.atts {
		switch {
		case i == in.pos:
		case p.attr != nil:
			cornerAtts = append(cornerAtts, &in.atts[i])
		default:
			vertexAtts = append(vertexAtts, &in.atts[i])
		}
	}
	if p.attr != nil {
		w.u8(2) // attributes decoders
	} else {
		w.u8(1)
	}
	w.u8(0xff) // att_data_id -1: position connectivity
	w.u8(meshVertexAttribute)
	w.u8(traversalDepthFirst)
	if p.attr != nil {
		w.u8(0)
		w.u8(meshCornerAttribute)
		w.u8(traversalDepthFirst)
	}
	writeDescriptors(w, vertexAtts)
	if p.attr != nil {
		writeDescriptors(w, cornerAtts)
	}
	pos := p.positionsAt(in)
	base := dfsOrder(&p.dec.cornerTable, p.dec.numVertices(), p.dec.onBoundary)
	writeGroup(w, vertexAtts, &p.dec.cornerTable, base, p.vPoint, pos)
	if p.attr != nil {
		at := &p.attr.table
		o := dfsOrder(at, len(at.left), func(v int32) bool { return at.left[v] < 0 || at.swingLeft(at.left[v]) < 0 })
		writeGroup(w, cornerAtts, at, o, p.attr.point, pos)
	}
}

// positionsAt returns the quantized position at a decoded corner, or nil
// when positions have more than 18 bits: up to there the sums of cross
// products in geometric normal prediction cannot overflow int64
// (3 * 2^24 corners * 2^37).
func (p *ebPlan) positionsAt(in *input) posFunc {
	if in.atts[in.pos].bits > 18 {
		return nil
	}
	vals := in.atts[in.pos].vals
	xyz := make([][3]int64, len(p.vPoint))
	for v, pt := range p.vPoint {
		if pt >= 0 {
			xyz[v] = [3]int64{int64(vals[3*pt]), int64(vals[3*pt+1]), int64(vals[3*pt+2])}
		}
	}
	return &cornerPos{v: p.dec.v, xyz: xyz}
}

// writeGroup writes the values and then the transform data of the
// attributes of one attributes decoder whose traversal is o over t.
func writeGroup(w *writer, atts []*portable, t *cornerTable, o traversalOrder, vPoint []int32, pos posFunc) {
	for _, a := range atts {
		vals := make([]int32, 0, len(o.corners)*a.vcomps)
		for _, c := range o.corners {
			pt := int(vPoint[t.v[c]])
			vals = append(vals, a.vals[pt*a.vcomps:(pt+1)*a.vcomps]...)
		}
		if a.decoderType == seqNormals {
			var wd, wg writer
			writeNormalValues(&wd, vals, a.bits)
			if pos != nil {
				writeGeometricNormals(&wg, vals, a.bits, t, o, pos)
				if len(wg.b) < len(wd.b) {
					wd = wg
				}
			}
			w.bytes(wd.b)
			continue
		}
		writeBestValues(w, vals, a, parallelogram(t, o, vals, a.vcomps))
	}
	for _, a := range atts {
		writeTransformData(w, a)
	}
}

// writeBestValues codes vals with parallelogram and with difference
// prediction and keeps the smaller.
func writeBestValues(w *writer, vals []int32, a *portable, para predictor) {
	var wp, wd writer
	writeValues(&wp, vals, a.vcomps, predParallelogram, para)
	writeValues(&wd, vals, a.vcomps, predDifference, nil)
	if len(wp.b) <= len(wd.b) {
		w.bytes(wp.b)
	} else {
		w.bytes(wd.b)
	}
}

// onBoundary is CornerTable::IsOnBoundary on the decoded table.
func (d *decodedTable) onBoundary(v int32) bool {
	return d.left[v] < 0 || d.swingLeft(d.left[v]) < 0
}

// planEdgebreaker builds the connectivity (over shared positions when
// byPosition, else over points), traverses it and replays the decoder,
// checking that every decoded vertex maps to one input point.
func planEdgebreaker(in *input, byPosition bool) (*ebPlan, error) {
	faces := in.faces
	if byPosition {
		faces = make([][3]uint32, len(in.faces))
		for i, f := range in.faces {
			for j, v := range f {
				faces[i][j] = uint32(in.posID[v])
			}
			if faces[i][0] == faces[i][1] || faces[i][1] == faces[i][2] || faces[i][0] == faces[i][2] {
				return nil, fmt.Errorf("%w: triangle %d has coincident positions", errSimulation, i)
			}
		}
	}
	t, _ := newCornerTable(faces, in.numPoints)
	tr, err := traverse(t)
	if err != nil {
		return nil, err
	}
	p := &ebPlan{enc: t, tr: tr}
	cornerPt := func(ec int32) int32 { return int32(in.faces[ec/3][ec%3]) }
	seams := false
	// Seams only matter when attributes other than the position exist.
	for c := int32(0); c < int32(len(t.v)) && byPosition && len(in.atts) > 1; c++ {
		if o := t.opp[c]; o >= 0 && (cornerPt(next(c)) != cornerPt(prev(o)) || cornerPt(prev(c)) != cornerPt(next(o))) {
			seams = true
			break
		}
	}
	d, err := simulateDecode(&p.tr, t.numFaces(), t.numVertices()+p.tr.splits, !seams)
	if err != nil {
		return nil, err
	}
	p.dec = d
	pt := make([]int32, len(d.v))
	p.vPoint = make([]int32, d.numVertices())
	for i := range p.vPoint {
		p.vPoint[i] = -1
	}
	for c, ec := range d.encCorner {
		dv := d.v[c]
		if ec < 0 || dv < 0 {
			return nil, fmt.Errorf("%w: decoded corner %d", errSimulation, c)
		}
		pt[c] = cornerPt(ec)
		// Points sharing a vertex must share the position, and without
		// seams also every other attribute.
		if q := p.vPoint[dv]; q >= 0 && q != pt[c] && (in.posID[q] != in.posID[pt[c]] || (!seams && len(in.atts) > 1)) {
			return nil, fmt.Errorf("%w: decoded vertex %d", errSimulation, dv)
		}
		p.vPoint[dv] = pt[c]
	}
	p.points = countValid(d)
	if seams {
		if p.attr, err = buildAttrConn(d, pt); err != nil {
			return nil, err
		}
		p.points = p.attr.points
	}
	return p, nil
}

func countValid(d *decodedTable) int {
	n := 0
	for _, c := range d.left {
		if c >= 0 {
			n++
		}
	}
	return n
}

// Edgebreaker traversal types.
const (
	ebStandard = 0 // MESH_EDGEBREAKER_STANDARD_ENCODING
	ebValence  = 2 // MESH_EDGEBREAKER_VALENCE_ENCODING
)

// writeConnectivity writes the traversal type and the Edgebreaker
// connectivity: counts, topology split events, then either the symbol bits
// (standard) or nothing, the start face configurations and seam bits, and
// for the valence traversal the symbols per valence context.
func writeConnectivity(w *writer, p *ebPlan, numAttData int, valence bool) error {
	tr := &p.tr
	if valence {
		w.u8(ebValence)
	} else {
		w.u8(ebStandard)
	}
	w.varint(uint64(p.enc.numVertices()))
	w.varint(uint64(p.enc.numFaces()))
	w.u8(uint8(numAttData))
	w.varint(uint64(len(tr.symbols)))
	w.varint(uint64(tr.splits))
	w.varint(uint64(len(tr.events)))
	if len(tr.events) > 0 {
		last := int32(0)
		var bw bitWriter
		for _, ev := range tr.events {
			w.varint(uint64(ev.source - last))
			w.varint(uint64(ev.source - ev.split))
			last = ev.source
			bw.put(uint32(ev.edge), 1)
		}
		w.bytes(bw.b)
	}
	if !valence {
		var bw bitWriter
		for i := len(tr.symbols) - 1; i >= 0; i-- {
			s := tr.symbols[i]
			if s == symC {
				bw.put(0, 1)
			} else {
				bw.put(uint32(s), 3)
			}
		}
		w.varint(uint64(len(bw.b)))
		w.bytes(bw.b)
	}
	var starts bitCoder
	for _, c := range tr.configs {
		starts.add(c)
	}
	starts.finish(w)
	if p.attr != nil {
		p.attr.bits.finish(w)
	}
	if valence {
		return writeValenceContexts(w, p)
	}
	return nil
}

// valenceSymbolID maps topology symbols to the ids the valence decoder
// stores (edge_breaker_symbol_to_topology_id inverted).
var valenceSymbolID = [8]uint32{symC: 0, symS: 1, symL: 2, symR: 3, symE: 4}

// writeValenceContexts writes the six context symbol lists; the decoder pops
// each list from the back, so every list is stored reversed.
func writeValenceContexts(w *writer, p *ebPlan) error {
	n := len(p.tr.symbols)
	var lists [6][]uint32
	for sid := 0; sid < n; sid++ {
		sym := p.tr.symbols[n-1-sid]
		ctx := p.dec.ctx[sid]
		if ctx < 0 {
			if sym != symE {
				return fmt.Errorf("%w: first symbol is not E", errSimulation)
			}
			continue
		}
		lists[ctx] = append(lists[ctx], valenceSymbolID[sym])
	}
	for _, l := range lists {
		w.varint(uint64(len(l)))
		if len(l) == 0 {
			continue
		}
		slices.Reverse(l)
		encodeSymbols(w, l, 1)
	}
	return nil
}
