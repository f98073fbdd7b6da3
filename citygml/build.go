package citygml

import "strings"

// owner is a Building or BuildingPart of the building being read.
type owner struct {
	id       string
	thematic bool  // has at least one thematic boundary surface
	parent   int32 // index of the owner holding this part, -1 for the building
	attrs    Attributes
}

// target receives polygons: a thematic surface, or (thematic false) one
// lod2Solid/lod2MultiSurface property of an owner.
type target struct {
	thematic bool
	class    Class
	owner    int32
	id       string
}

// ringRec is a ring as a range of build.pts.
type ringRec struct {
	start, end int32
	exterior   bool
}

// polyRec is a polygon as a range of build.rings.
type polyRec struct {
	id                 string
	ringStart, ringEnd int32
}

// entry is one polygon of a target in file order: an inline polygon
// (poly >= 0) or an xlink:href reference.
type entry struct {
	target int32
	poly   int32
	href   string
	rev    bool
}

// container is a geometry element with a gml:id, as the range of inline
// polygons it holds, so that references to it resolve.
type container struct {
	id                 string
	polyStart, polyEnd int32
}

// build is the scratch state of the building being read, reused across
// buildings.
type build struct {
	active  bool
	id      string
	line    int
	epsg    int
	parts   []string
	owners  []owner
	targets []target
	pts     []Point
	rings   []ringRec
	polys   []polyRec
	entries []entry
	ctrs    []container
	items   int
	idBytes int

	polyID    string
	polyRings int32
	ringStart int32

	// attribute scratch: the codeSpace or uom of the open leaf, the open
	// generic attribute
	pendAttr []byte
	gen      Generic
	inGen    bool
	codes    []owned[Code]
	addrs    []owned[Address]
	gens     []owned[Generic]
	cnt      []int32

	// assembly scratch
	used   []bool
	byTgt  []int32
	cursor []int32
	sel    []selected
	surfs  []surfRec
}

// selected is one polygon chosen for output.
type selected struct {
	poly int32
	rev  bool
}

// surfRec is one output surface as a range of build.sel.
type surfRec struct {
	class      Class
	owner      int32
	id         string
	start, end int32
}

func (b *build) reset() {
	*b = build{
		pts: b.pts[:0], rings: b.rings[:0], polys: b.polys[:0], entries: b.entries[:0],
		ctrs: b.ctrs[:0], owners: b.owners[:0], targets: b.targets[:0],
		used: b.used, byTgt: b.byTgt, cursor: b.cursor, sel: b.sel[:0], surfs: b.surfs[:0],
		pendAttr: b.pendAttr[:0], codes: b.codes[:0], addrs: b.addrs[:0], gens: b.gens[:0], cnt: b.cnt,
	}
}

// assemble resolves references and copies the chosen polygons into a new
// Building. Thematic surfaces come first, each keeping every polygon it
// holds or references, once. Then, for owners without thematic surfaces,
// each polygon of their lod2Solid/lod2MultiSurface that no surface used
// becomes an Unclassified surface.
func (b *build) assemble(epsg int) *Building {
	out := &Building{ID: b.id, EPSG: epsg, Line: b.line}
	if len(b.parts) > 0 {
		out.Parts = append([]string(nil), b.parts...)
	}
	b.spreadAttrs(out)
	if len(b.owners) > 0 {
		out.Attributes = b.owners[0].attrs
	}
	if len(b.owners) > 1 {
		out.BuildingParts = make([]BuildingPart, len(b.owners)-1)
		for i, o := range b.owners[1:] {
			out.BuildingParts[i] = BuildingPart{ID: o.id, ParentID: b.owners[o.parent].id, Attributes: o.attrs}
		}
	}
	ids := b.idMap()
	b.groupEntries()
	b.used = resize(b.used, len(b.polys))
	for pass := range 2 {
		for t := range b.targets {
			tg := &b.targets[t]
			if tg.thematic != (pass == 0) || (pass == 1 && b.owners[tg.owner].thematic) {
				continue
			}
			out.Unresolved += b.selectTarget(int32(t), ids)
		}
	}
	out.Surfaces = b.emit()
	return out
}

// spreadAttrs gives each owner its functions, addresses and generic
// attributes.
func (b *build) spreadAttrs(out *Building) {
	if len(b.codes)+len(b.addrs)+len(b.gens) == 0 {
		return
	}
	b.cnt = resize(b.cnt, len(b.owners)+1)
	spread(b.codes, b.cnt, out.fnBuf[:], func(o int, vs []Code) { b.owners[o].attrs.Function = vs })
	spread(b.addrs, b.cnt, out.addrBuf[:], func(o int, vs []Address) { b.owners[o].attrs.Addresses = vs })
	spread(b.gens, b.cnt, nil, func(o int, vs []Generic) { b.owners[o].attrs.Generic = vs })
}

// idMap maps gml:ids to polygon ranges, only when there are references.
func (b *build) idMap() map[string][2]int32 {
	refs := false
	for i := range b.entries {
		if b.entries[i].poly < 0 {
			refs = true
			break
		}
	}
	if !refs {
		return nil
	}
	ids := make(map[string][2]int32, len(b.polys)+len(b.ctrs))
	for _, c := range b.ctrs {
		if c.id != "" && c.polyEnd >= c.polyStart {
			ids[c.id] = [2]int32{c.polyStart, c.polyEnd}
		}
	}
	for i, p := range b.polys {
		if p.id != "" {
			ids[p.id] = [2]int32{int32(i), int32(i) + 1}
		}
	}
	return ids
}

// groupEntries orders entry indices by target (a stable counting sort):
// the entries of target t are byTgt[off[t]:off[t+1]], with the offsets
// stored after the entry indices.
func (b *build) groupEntries() {
	nt, ne := len(b.targets), len(b.entries)
	b.byTgt = resize(b.byTgt, ne+nt+1)
	idx, off := b.byTgt[:ne], b.byTgt[ne:]
	for i := range off {
		off[i] = 0
	}
	for _, e := range b.entries {
		off[e.target+1]++
	}
	for t := 1; t <= nt; t++ {
		off[t] += off[t-1]
	}
	b.cursor = append(b.cursor[:0], off[:nt]...)
	fill := b.cursor
	for i, e := range b.entries {
		idx[fill[e.target]] = int32(i)
		fill[e.target]++
	}
}

// selectTarget chooses the polygons of target t and records its surfaces;
// it returns the number of unresolved references.
func (b *build) selectTarget(t int32, ids map[string][2]int32) int {
	ne := len(b.entries)
	idx, off := b.byTgt[:ne], b.byTgt[ne:]
	tg := b.targets[t]
	first := int32(len(b.sel))
	unresolved := 0
	for _, ei := range idx[off[t]:off[t+1]] {
		e := b.entries[ei]
		lo, hi := e.poly, e.poly+1
		if e.poly < 0 {
			rng, ok := lookup(ids, e.href)
			if !ok {
				unresolved++
				continue
			}
			lo, hi = rng[0], rng[1]
		}
		for p := lo; p < hi; p++ {
			if b.used[p] {
				continue
			}
			b.used[p] = true
			b.sel = append(b.sel, selected{poly: p, rev: e.rev})
			if !tg.thematic {
				b.surfs = append(b.surfs, surfRec{owner: tg.owner, id: b.polys[p].id,
					start: int32(len(b.sel)) - 1, end: int32(len(b.sel))})
			}
		}
	}
	if tg.thematic && int32(len(b.sel)) > first {
		id := tg.id
		if id == "" {
			id = b.polys[b.sel[first].poly].id
		}
		b.surfs = append(b.surfs, surfRec{class: tg.class, owner: tg.owner, id: id,
			start: first, end: int32(len(b.sel))})
	}
	return unresolved
}

// lookup resolves a same-document reference "#id".
func lookup(ids map[string][2]int32, href string) ([2]int32, bool) {
	id, ok := strings.CutPrefix(strings.TrimSpace(href), "#")
	if !ok || ids == nil {
		return [2]int32{}, false
	}
	rng, ok := ids[id]
	return rng, ok
}

// emit copies the selected polygons into freshly allocated slices: one
// array of points, rings, polygons and surfaces each.
func (b *build) emit() []Surface {
	if len(b.surfs) == 0 {
		return nil
	}
	nPts, nRings := 0, 0
	for _, s := range b.sel {
		p := b.polys[s.poly]
		for _, rg := range b.rings[p.ringStart:p.ringEnd] {
			nPts += int(rg.end - rg.start)
			nRings++
		}
	}
	pts := make([]Point, 0, nPts)
	rings := make([]Ring, 0, nRings)
	polys := make([]Polygon, len(b.sel))
	for i, s := range b.sel {
		polys[i], pts, rings = b.emitPolygon(s, pts, rings)
	}
	surfs := make([]Surface, len(b.surfs))
	for i, s := range b.surfs {
		surfs[i] = Surface{ID: s.id, OwnerID: b.owners[s.owner].id, Class: s.class,
			Polygons: polys[s.start:s.end:s.end]}
	}
	return surfs
}

// emitPolygon appends the rings of one polygon, exterior first.
func (b *build) emitPolygon(s selected, pts []Point, rings []Ring) (Polygon, []Point, []Ring) {
	p := b.polys[s.poly]
	var out Polygon
	addRing := func(rg ringRec) Ring {
		start := len(pts)
		pts = append(pts, b.pts[rg.start:rg.end]...)
		r := Ring(pts[start:len(pts):len(pts)])
		if s.rev {
			for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
				r[i], r[j] = r[j], r[i]
			}
		}
		return r
	}
	hasExt := false
	for _, rg := range b.rings[p.ringStart:p.ringEnd] {
		if rg.exterior && !hasExt {
			out.Exterior, hasExt = addRing(rg), true
		}
	}
	first := len(rings)
	for _, rg := range b.rings[p.ringStart:p.ringEnd] {
		if !rg.exterior {
			rings = append(rings, addRing(rg))
		}
	}
	if len(rings) > first {
		out.Interiors = rings[first:len(rings):len(rings)]
	}
	return out, pts, rings
}

// resize returns s with length n, reusing its array when large enough;
// the contents are zeroed.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// finish ends the building being read and returns it.
func (r *Reader) finish() (*Building, error) {
	b := &r.b
	b.active = false
	epsg := b.epsg
	if epsg == 0 {
		epsg = r.fileEPSG
	}
	if epsg == 0 {
		return nil, &Error{Name: r.name, Line: b.line, Err: ErrUnknownCRS,
			Msg: "no srsName for building " + quote(b.id)}
	}
	r.epsg = epsg
	return b.assemble(epsg), nil
}

func quote(s string) string { return `"` + s + `"` }
