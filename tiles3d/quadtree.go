package tiles3d

import (
	"cmp"
	"math"
	"slices"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
)

// maxDepth bounds the quadtree; a cell of a 1,000 km BL at depth 14 is
// about 60 m wide.
const maxDepth = 14

// cell is one quadtree node over UTM metres: a square with its buildings
// (by centre) when it is a leaf.
type cell struct {
	level, x, y int
	minX, minY  float64
	size        float64
	ids         []int64
	children    []*cell
	// filled in while writing
	region  [6]float64 // west, south, east, north (rad), min, max height
	content string
	abs     frame // leaf: UTM grid offsets around its centre to ECEF
}

// quadtree splits the square around all extents until each leaf holds at
// most maxPer buildings of one source file. file gives, per building of
// ext, the index of its source file (-1: none known; nil: none at all).
//
// Leaves follow the source files, so that a changed file rebuilds only its
// own leaves in an incremental build: while a cell holds buildings of more
// than one file, each building goes to the quadrant of its file's anchor
// (the centre of the file's buildings' box), so a file's buildings stay
// together until its cell holds no other file; below that the cell splits
// by each building's own centre while it holds more than maxPer. A cell
// whose files cannot be told apart by anchor (equal anchors), and every
// cell without known files, splits by the buildings' own centres as one
// group. Without source files the layout is that of a plain quadtree by
// building centre.
func quadtree(ext []lod2store.BuildingExtent, file []int32, maxPer int) *cell {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, e := range ext {
		minX, minY = math.Min(minX, e.MinX), math.Min(minY, e.MinY)
		maxX, maxY = math.Max(maxX, e.MaxX), math.Max(maxY, e.MaxY)
	}
	size := math.Max(math.Max(maxX-minX, maxY-minY), 1)
	root := &cell{minX: minX, minY: minY, size: size}
	// Indexes into ext, partitioned in place cell by cell (stable: a
	// leaf lists its buildings in id order) with one scratch slice: 8
	// bytes per building, not a slice per quadrant per level.
	idx, tmp := make([]int32, len(ext)), make([]int32, len(ext))
	for i := range idx {
		idx[i] = int32(i)
	}
	q := &quadSplit{ext: ext, file: file, anchors: fileAnchors(ext, file), tmp: tmp, maxPer: maxPer}
	q.split(root, idx, 0)
	return root
}

// fileAnchors returns per source file index the centre of the box of its
// buildings (by file: the indexes file holds); nil without files.
func fileAnchors(ext []lod2store.BuildingExtent, file []int32) [][2]float64 {
	n := int32(-1)
	for _, f := range file {
		n = max(n, f)
	}
	if n < 0 {
		return nil
	}
	boxes := make([][4]float64, n+1)
	for i := range boxes {
		boxes[i] = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	}
	for i, f := range file {
		if f < 0 {
			continue
		}
		e, b := ext[i], &boxes[f]
		b[0], b[1] = math.Min(b[0], e.MinX), math.Min(b[1], e.MinY)
		b[2], b[3] = math.Max(b[2], e.MaxX), math.Max(b[3], e.MaxY)
	}
	out := make([][2]float64, n+1)
	for i, b := range boxes {
		out[i] = [2]float64{(b[0] + b[2]) / 2, (b[1] + b[3]) / 2}
	}
	return out
}

// quadSplit is the state of quadtree's recursion.
type quadSplit struct {
	ext     []lod2store.BuildingExtent
	file    []int32      // per building: its source file, -1 none; nil: no files
	anchors [][2]float64 // per file: the centre of its buildings' box
	tmp     []int32      // scratch, as long as ext
	maxPer  int
}

// point is where building k counts for the split of a cell: its file's
// anchor while the cell holds several files (byFile), else its own centre.
func (q *quadSplit) point(k int32, byFile bool) (float64, float64) {
	if byFile {
		if f := q.file[k]; f >= 0 {
			return q.anchors[f][0], q.anchors[f][1]
		}
	}
	e := q.ext[k]
	return (e.MinX + e.MaxX) / 2, (e.MinY + e.MaxY) / 2
}

// byFile tells whether the buildings idx of a cell are of more than one
// source file that their anchors tell apart: then the cell splits by the
// files' anchors, even when it holds no more than maxPer buildings.
func (q *quadSplit) byFile(idx []int32) bool {
	if q.file == nil || len(idx) == 0 {
		return false
	}
	f0 := q.file[idx[0]]
	x0, y0 := q.point(idx[0], true)
	several, apart := false, false
	for _, k := range idx[1:] {
		if q.file[k] != f0 {
			several = true
		}
		if x, y := q.point(k, true); x != x0 || y != y0 {
			apart = true
		}
		if several && apart {
			return true
		}
	}
	return false
}

// split partitions the buildings idx of cell c (tmp's part of the same
// range is scratch) into its quadrants, recursively.
func (q *quadSplit) split(c *cell, idx []int32, off int) {
	byFile := c.level < maxDepth && q.byFile(idx)
	if !byFile && (len(idx) <= q.maxPer || c.level >= maxDepth) {
		c.ids = make([]int64, len(idx))
		for i, k := range idx {
			c.ids[i] = q.ext[k].BuildingID
		}
		return
	}
	if !byFile && q.oneFile(idx) {
		q.halve(c, idx, off)
		return
	}
	half := c.size / 2
	quad := func(k int32) int {
		x, y := q.point(k, byFile)
		n := 0
		if x >= c.minX+half {
			n |= 1
		}
		if y >= c.minY+half {
			n |= 2
		}
		return n
	}
	var start [5]int
	for _, k := range idx {
		start[quad(k)+1]++
	}
	for n := range 4 {
		start[n+1] += start[n]
	}
	tmp := q.tmp[off : off+len(idx)]
	next := start
	for _, k := range idx {
		n := quad(k)
		tmp[next[n]] = k
		next[n]++
	}
	copy(idx, tmp)
	for n := range 4 {
		p := idx[start[n]:start[n+1]]
		if len(p) == 0 {
			continue
		}
		ch := &cell{level: c.level + 1, x: 2*c.x + n&1, y: 2*c.y + n>>1, size: half,
			minX: c.minX + float64(n&1)*half, minY: c.minY + float64(n>>1)*half}
		q.split(ch, p, off+start[n])
		c.children = append(c.children, ch)
	}
}

// leaves returns the cells with buildings.
func (c *cell) leaves(out []*cell) []*cell {
	if len(c.children) == 0 {
		return append(out, c)
	}
	for _, ch := range c.children {
		out = ch.leaves(out)
	}
	return out
}

// geometricError of a cell: leaves show everything (0). An inner cell is
// empty: leaving it out costs what leaving out its content costs, which
// does not grow with the cell, so its error is its children's largest, and
// a cell with leaves among its children has at least its edge over
// errPerEdge: its buildings load once the camera is within a few cell
// widths (CesiumJS's default 16 px screen-space error). Coarse cells then
// refine only near the leaves they lead to, and a view of the whole BL
// opens none of them. A leaf that holds one source file alone in a large
// cell (a village with no neighbouring file, see quadtree) counts as a
// cell of twice its buildings' extent (regionEdgeM of its region) when
// that is smaller: its parent's edge would load it from far beyond where
// a cell of its buildings' size would, up to the first view of the BL.
func (c *cell) geometricError() float64 {
	ge := 0.0
	for _, ch := range c.children {
		if len(ch.children) == 0 {
			ge = math.Max(ge, math.Min(c.size, 2*regionEdgeM(ch.region[:]))/errPerEdge)
		} else {
			ge = math.Max(ge, ch.geometricError())
		}
	}
	return ge
}

// unionRegions sets inner cells' regions from their children.
func (c *cell) unionRegions() {
	if len(c.children) == 0 {
		return
	}
	r := [6]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	for _, ch := range c.children {
		ch.unionRegions()
		r[0], r[1] = math.Min(r[0], ch.region[0]), math.Min(r[1], ch.region[1])
		r[2], r[3] = math.Max(r[2], ch.region[2]), math.Max(r[3], ch.region[3])
		r[4], r[5] = math.Min(r[4], ch.region[4]), math.Max(r[5], ch.region[5])
	}
	c.region = r
}

// regionOf returns the lon/lat box (radians) of a UTM box, from its
// densified outline, widened by a small margin.
func regionOf(z geo.Zone, minX, minY, maxX, maxY, minH, maxH float64) [6]float64 {
	r := [6]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1), minH, maxH}
	const steps = 4
	for i := 0; i <= steps; i++ {
		t := float64(i) / steps
		for _, p := range [][2]float64{{minX + t*(maxX-minX), minY}, {minX + t*(maxX-minX), maxY}, {minX, minY + t*(maxY-minY)}, {maxX, minY + t*(maxY-minY)}} {
			lon, lat := geo.FromUTM(z, p[0], p[1])
			r[0], r[1] = math.Min(r[0], lon), math.Min(r[1], lat)
			r[2], r[3] = math.Max(r[2], lon), math.Max(r[3], lat)
		}
	}
	const margin = 1e-6 // degrees, about 0.1 m
	for i, d := range []float64{-margin, -margin, margin, margin} {
		r[i] = (r[i] + d) * math.Pi / 180
	}
	return r
}

// oneFile tells whether the buildings idx all come from one known source
// file.
func (q *quadSplit) oneFile(idx []int32) bool {
	if q.file == nil || q.file[idx[0]] < 0 {
		return false
	}
	for _, k := range idx[1:] {
		if q.file[k] != q.file[idx[0]] {
			return false
		}
	}
	return true
}

// halve splits cell c, which holds more than maxPer buildings idx of one
// source file, into two halves of equal count (the median of the
// buildings' centres along the longer edge of their box, ties by index)
// and recurses: a file's buildings make the fewest leaves of balanced
// size (a file of 109 at 100 per leaf makes 2 leaves, where quadrants of
// a cell not aligned with the file made up to 4 and some of a single
// building). The cell takes the square around its buildings' centres; the
// halves are children 0 and 1 (x) or 0 and 2 (y), so keys stay unique.
func (q *quadSplit) halve(c *cell, idx []int32, off int) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, k := range idx {
		x, y := q.point(k, false)
		minX, minY = math.Min(minX, x), math.Min(minY, y)
		maxX, maxY = math.Max(maxX, x), math.Max(maxY, y)
	}
	c.minX, c.minY, c.size = minX, minY, math.Max(math.Max(maxX-minX, maxY-minY), 1)
	axis := 0 // x
	if maxY-minY > maxX-minX {
		axis = 1
	}
	at := func(k int32) float64 {
		x, y := q.point(k, false)
		return [2]float64{x, y}[axis]
	}
	// The median building: the first of the upper half in (coordinate,
	// index) order.
	tmp := q.tmp[off : off+len(idx)]
	copy(tmp, idx)
	slices.SortFunc(tmp, func(a, b int32) int {
		if d := cmp.Compare(at(a), at(b)); d != 0 {
			return d
		}
		return cmp.Compare(a, b)
	})
	mk := tmp[len(tmp)/2]
	mv := at(mk)
	low := func(k int32) bool { v := at(k); return v < mv || v == mv && k < mk }
	// Stable partition (each half keeps id order).
	n := 0
	for _, k := range idx {
		if low(k) {
			tmp[n] = k
			n++
		}
	}
	for _, k := range idx {
		if !low(k) {
			tmp[n] = k
			n++
		}
	}
	copy(idx, tmp)
	h := len(idx) / 2
	for i, part := range [2][]int32{idx[:h], idx[h:]} {
		qd := i << axis // child 0, and 1 (x) or 2 (y)
		ch := &cell{level: c.level + 1, x: 2*c.x + qd&1, y: 2*c.y + qd>>1, size: c.size, minX: c.minX, minY: c.minY}
		if axis == 0 && i == 1 {
			ch.minX = mv
		} else if i == 1 {
			ch.minY = mv
		}
		q.split(ch, part, off+i*h)
		c.children = append(c.children, ch)
	}
}
