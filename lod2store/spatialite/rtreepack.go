package spatialite

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"strconv"
)

// The R*Tree module of SQLite keeps a 2-D index in three shadow tables
// (sqlite.org/rtree.html, section 8 and ext/rtree/rtree.c):
//
//	<idx>_node(nodeno INTEGER PRIMARY KEY, data BLOB)
//	<idx>_rowid(rowid INTEGER PRIMARY KEY, nodeno)
//	<idx>_parent(nodeno INTEGER PRIMARY KEY, parentnode)
//
// Node 1 is the root. A node's data is a 2-byte big-endian tree depth
// (read from the root only; 0 when the root is a leaf), a 2-byte cell
// count and the cells: an 8-byte big-endian rowid (in a leaf) or child
// node number, then xmin, xmax, ymin, ymax as big-endian float32, min
// values rounded down and max values rounded up. Every node blob has the
// size of the root's, which SQLite derives at creation from the page size
// (page size - 64, at most 4 + 51 cells of 24 bytes), and a node holds at
// most (size - 4) / 24 cells. packRTree writes these tables directly,
// packing consecutive entries into full nodes bottom-up, which builds the
// tree an order of magnitude faster than inserting row by row (each insert
// walks, splits and reinserts), and the tree is as good as the order of
// the entries (give them along a space-filling curve).

const (
	rtreeCell     = 8 + 4*4 // rowid + 4 float32
	rtreeMaxCells = 51      // RTREE_MAXCELLS
)

// rtreeNodeSize is the node size SQLite picks for a new 2-D R*Tree in a
// database of the given page size.
func rtreeNodeSize(pageSize int) int {
	return min(pageSize-64, 4+rtreeCell*rtreeMaxCells)
}

// packRTree fills the empty R*Tree idx (just created) with entries, which
// it reads once, n of them. Leaves take consecutive entries, spread evenly
// over ceil(n / cells per node) nodes; each upper level groups the level
// below the same way.
func packRTree(ctx context.Context, db DB, idx string, n int, entries iter.Seq2[int64, Rect]) (layerStats, error) {
	st := layerStats{extent: Rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	if n == 0 {
		return st, nil
	}
	var pageSize int
	if err := db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		return st, fmt.Errorf("spatialite: pack index: %w", err)
	}
	size := rtreeNodeSize(pageSize)
	perNode := (size - 4) / rtreeCell
	// Level sizes, leaves first, and the first node number of each level:
	// the root is 1, each level below follows the one above.
	var counts []int
	for c := n; ; {
		c = (c + perNode - 1) / perNode
		counts = append(counts, c)
		if c == 1 {
			break
		}
	}
	first := make([]int64, len(counts))
	next := int64(1)
	for l := len(counts) - 1; l >= 0; l-- {
		first[l] = next
		next += int64(counts[l])
	}
	p, err := newRTreeWriter(ctx, db, idx, size, len(counts)-1)
	if err != nil {
		return st, err
	}
	defer p.close()
	// Leaves, streamed from entries.
	boxes := make([]Rect, 0, counts[0])
	cells := make([]rtreeEntry, 0, perNode)
	i, leaf := 0, 0
	end := spread(n, counts[0], 0)
	for rowid, r := range entries {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return st, fmt.Errorf("spatialite: pack index: %w", err)
			}
		}
		if i >= n {
			return st, fmt.Errorf("spatialite: pack index: more than %d entries", n)
		}
		cells = append(cells, rtreeEntry{rowid, r})
		st.indexed++
		st.extent = Rect{min(st.extent.MinX, r.MinX), min(st.extent.MinY, r.MinY), max(st.extent.MaxX, r.MaxX), max(st.extent.MaxY, r.MaxY)}
		i++
		if i == end {
			no := first[0] + int64(leaf)
			if err := p.node(no, cells, true); err != nil {
				return st, err
			}
			boxes = append(boxes, cover(cells))
			cells = cells[:0]
			leaf++
			end = spread(n, counts[0], leaf)
		}
	}
	if i != n {
		return st, fmt.Errorf("spatialite: pack index: %d entries, %d announced", i, n)
	}
	// Upper levels, from the boxes of the level below.
	for l := 1; l < len(counts); l++ {
		var up []Rect
		below := len(boxes)
		for j := range counts[l] {
			from, to := spread(below, counts[l], j-1), spread(below, counts[l], j)
			cells = cells[:0]
			for c := from; c < to; c++ {
				cells = append(cells, rtreeEntry{first[l-1] + int64(c), boxes[c]})
			}
			no := first[l] + int64(j)
			if err := p.node(no, cells, false); err != nil {
				return st, err
			}
			up = append(up, cover(cells))
		}
		boxes = up
	}
	st.rows = int64(n)
	return st, nil
}

// spread is the end of part j of n items cut into k parts of sizes that
// differ by at most one.
func spread(n, k, j int) int {
	if j < 0 {
		return 0
	}
	return int(int64(n) * int64(j+1) / int64(k))
}

type rtreeEntry struct {
	id int64
	r  Rect
}

func cover(cells []rtreeEntry) Rect {
	c := Rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, e := range cells {
		c = Rect{min(c.MinX, e.r.MinX), min(c.MinY, e.r.MinY), max(c.MaxX, e.r.MaxX), max(c.MaxY, e.r.MaxY)}
	}
	return c
}

// rtreeWriter inserts nodes and their mappings into the shadow tables.
type rtreeWriter struct {
	stmts []interface{ Close() error }
	exec  []func(args ...any) error // node, leaf children, inner children
	size  int
	depth int
	blob  []byte
	list  []byte
}

func newRTreeWriter(ctx context.Context, db DB, idx string, size, depth int) (*rtreeWriter, error) {
	w := &rtreeWriter{size: size, depth: depth}
	q := func(s string) string { return `"` + idx + s + `"` }
	// CREATE VIRTUAL TABLE wrote an empty root; the packed tree replaces it.
	if _, err := db.ExecContext(ctx, `DELETE FROM `+q("_node")); err != nil {
		return nil, fmt.Errorf("spatialite: pack index: %w", err)
	}
	for _, s := range []string{
		`INSERT INTO ` + q("_node") + ` (nodeno, data) VALUES (?, ?)`,
		// Children (rowids or node numbers) as a JSON array, one statement
		// per node rather than one per entry.
		`INSERT INTO ` + q("_rowid") + ` (rowid, nodeno) SELECT value, ?2 FROM json_each(?1)`,
		`INSERT INTO ` + q("_parent") + ` (nodeno, parentnode) SELECT value, ?2 FROM json_each(?1)`,
	} {
		st, err := db.PrepareContext(ctx, s)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("spatialite: pack index: %w", err)
		}
		w.stmts = append(w.stmts, st)
		w.exec = append(w.exec, func(args ...any) error { _, err := st.ExecContext(ctx, args...); return err })
	}
	return w, nil
}

func (w *rtreeWriter) close() {
	for _, s := range w.stmts {
		s.Close()
	}
}

// node writes node no with cells; leaf cells map rowids to it, inner cells
// name it as their children's parent.
func (w *rtreeWriter) node(no int64, cells []rtreeEntry, leaf bool) error {
	depth := 0
	if no == 1 {
		depth = w.depth
	}
	w.blob = encodeNode(w.blob[:0], cells, depth, w.size)
	w.list = idList(w.list[:0], cells)
	if err := w.exec[0](no, w.blob); err != nil {
		return fmt.Errorf("spatialite: pack index node %d: %w", no, err)
	}
	which := 2
	if leaf {
		which = 1
	}
	if err := w.exec[which](string(w.list), no); err != nil {
		return fmt.Errorf("spatialite: pack index node %d: %w", no, err)
	}
	return nil
}

// encodeNode appends the node blob of cells (depth: the root's, else 0),
// padded to size bytes, to b.
func encodeNode(b []byte, cells []rtreeEntry, depth, size int) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(depth))
	b = binary.BigEndian.AppendUint16(b, uint16(len(cells)))
	for _, c := range cells {
		b = binary.BigEndian.AppendUint64(b, uint64(c.id))
		for _, v := range []float32{down(c.r.MinX), up(c.r.MaxX), down(c.r.MinY), up(c.r.MaxY)} {
			b = binary.BigEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	for len(b) < size {
		b = append(b, 0)
	}
	return b
}

// idList appends the cells' ids as a JSON array to b.
func idList(b []byte, cells []rtreeEntry) []byte {
	b = append(b, '[')
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, c.id, 10)
	}
	return append(b, ']')
}

// down and up round to float32 outwards, as SQLite's R*Tree stores
// coordinates, so a stored box always contains the exact one.
func down(v float64) float32 {
	f := float32(v)
	if float64(f) > v {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func up(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}
