package spatialite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// PatchSpatialIndex changes the R*Tree of a table by working on its nodes
// (the shadow tables packRTree writes, see rtreepack.go) at a cost that
// follows the change, not the table: the rows whose ROWIDs lie in remove
// leave their leaves (a leaf left empty leaves its parent), add is packed
// into full new leaves in the order given (give a space-filling curve's)
// and each new leaf goes under the node of the level above whose box it
// enlarges least (R*Tree ChooseSubtree), which splits in two along its
// wider axis when full; every box on the way to the root is made tight
// again. The result is a valid SQLite R*Tree (rtreecheck), as good for
// searches as its leaves are tight: new leaves are as tight as packed
// ones, kept leaves only lose entries. rows and extent are the layer
// statistics to record (the table's row count, the exact XY extent).
//
// It reports ErrRepack, changing nothing, when patching is not worth it:
// the tree is a single leaf, remove and add together reach half of its
// entries, or earlier patches left it with maxLoose times the nodes of a
// packed tree; the caller packs the index again (CreateSpatialIndexPacked).
// Other errors wrap ErrName, ErrNotFound, ErrInvalid (a malformed node)
// or the context's error; the caller's transaction is then unusable.
func PatchSpatialIndex(ctx context.Context, db DB, table, column string, remove []RowidRange, add []Entry, rows int64, extent Rect) error {
	t, c, err := names(table, column)
	if err != nil {
		return err
	}
	return inTx(ctx, db, func(db DB) error {
		if _, err := lookupColumn(ctx, db, t, c); err != nil {
			return err
		}
		p, err := openPatch(ctx, db, IndexName(t, c))
		if err != nil {
			return err
		}
		var gone int64
		for _, r := range remove {
			gone += r.Last - r.First + 1
		}
		entries := rows - int64(len(add)) + gone // before, at most
		if p.depth == 0 || 2*(gone+int64(len(add))) >= entries || p.loose(entries) {
			return ErrRepack
		}
		if err := p.remove(remove); err != nil {
			return err
		}
		if err := p.add(add); err != nil {
			return err
		}
		if err := p.tighten(); err != nil {
			return err
		}
		if err := p.flush(); err != nil {
			return err
		}
		st := layerStats{rows: rows, extent: extent, indexed: rows}
		if err := writeStatistics(ctx, db, t, c, st); err != nil {
			return err
		}
		return history(ctx, db, t, c, "R*Tree Spatial Index successfully updated")
	})
}

// maxLoose is how many nodes, against those of the same entries packed,
// a patched tree may have (node numbers used, removed ones included)
// before it is packed again: the nodes of a patched tree fill up to a
// half, which a search pays in nodes read; packing again now and then
// bounds that, at a cost spread over the patches before.
const maxLoose = 1.4

// loose reports whether the tree has come to use maxLoose times the node
// numbers a packed tree of entries needs.
func (p *rtreePatch) loose(entries int64) bool {
	packed, c := int64(0), entries
	for {
		c = (c + int64(p.perNode) - 1) / int64(p.perNode)
		packed += c
		if c <= 1 {
			break
		}
	}
	return float64(p.next-1) > maxLoose*float64(packed)
}

// ErrRepack reports an index that PatchSpatialIndex leaves to be packed
// again.
var ErrRepack = errors.New("spatialite: index to be packed again")

// RowidRange is the ROWIDs First to Last, both included.
type RowidRange struct{ First, Last int64 }

// Entry is a row's ROWID and MBR.
type Entry struct {
	ID   int64
	Rect Rect
}

// pnode is an R*Tree node being patched.
type pnode struct {
	no     int64
	height int   // 0: a leaf
	parent int64 // 0: the root
	cells  []rtreeEntry
	dirty  bool    // its blob changed
	fresh  bool    // a new leaf: all its rows to map to it
	added  []int64 // rows to map to this leaf
	moved  bool    // new or under another parent: its parent to record
	gone   bool
}

// rtreePatch holds the nodes read and changed, written back by flush.
type rtreePatch struct {
	ctx     context.Context
	db      DB
	idx     string
	size    int   // node blob size
	perNode int   // cells a node holds
	depth   int   // the root's height
	next    int64 // next free node number
	nodes   map[int64]*pnode
}

func (p *rtreePatch) q(s string) string { return `"` + p.idx + s + `"` }

func openPatch(ctx context.Context, db DB, idx string) (*rtreePatch, error) {
	p := &rtreePatch{ctx: ctx, db: db, idx: idx, nodes: map[int64]*pnode{}}
	var root []byte
	if err := db.QueryRowContext(ctx, `SELECT data FROM `+p.q("_node")+` WHERE nodeno = 1`).Scan(&root); err != nil {
		return nil, fmt.Errorf("spatialite: patch index %s: %w", idx, err)
	}
	if len(root) < 4 || (len(root)-4)/rtreeCell < 2 {
		return nil, fmt.Errorf("%w: index %s: root node of %d bytes", ErrInvalid, idx, len(root))
	}
	p.size, p.perNode = len(root), (len(root)-4)/rtreeCell
	p.depth = int(binary.BigEndian.Uint16(root))
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(nodeno), 1) + 1 FROM `+p.q("_node")).Scan(&p.next); err != nil {
		return nil, fmt.Errorf("spatialite: patch index %s: %w", idx, err)
	}
	n, err := p.decode(1, root)
	if err != nil {
		return nil, err
	}
	n.height = p.depth
	p.nodes[1] = n
	return p, nil
}

// decode reads a node blob.
func (p *rtreePatch) decode(no int64, b []byte) (*pnode, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: index %s node %d: %d bytes", ErrInvalid, p.idx, no, len(b))
	}
	k := int(binary.BigEndian.Uint16(b[2:]))
	if k > p.perNode || 4+k*rtreeCell > len(b) {
		return nil, fmt.Errorf("%w: index %s node %d: %d cells", ErrInvalid, p.idx, no, k)
	}
	n := &pnode{no: no, cells: make([]rtreeEntry, k, k+1)}
	for i := range k {
		c := b[4+i*rtreeCell:]
		f := func(j int) float64 { return float64(math.Float32frombits(binary.BigEndian.Uint32(c[8+4*j:]))) }
		n.cells[i] = rtreeEntry{int64(binary.BigEndian.Uint64(c)), Rect{MinX: f(0), MaxX: f(1), MinY: f(2), MaxY: f(3)}}
	}
	return n, nil
}

// node returns node no, read once, of the given height; its parent is
// found when needed (parentOf).
func (p *rtreePatch) node(no int64, height int) (*pnode, error) {
	if n := p.nodes[no]; n != nil {
		return n, nil
	}
	var b []byte
	if err := p.db.QueryRowContext(p.ctx, `SELECT data FROM `+p.q("_node")+` WHERE nodeno = ?`, no).Scan(&b); err != nil {
		return nil, fmt.Errorf("spatialite: patch index %s node %d: %w", p.idx, no, err)
	}
	n, err := p.decode(no, b)
	if err != nil {
		return nil, err
	}
	n.height, n.parent = height, -1
	p.nodes[no] = n
	return n, nil
}

// load reads the nodes nos of the given height not read yet, in one
// query.
func (p *rtreePatch) load(nos []int64, height int) error {
	var list []byte
	list = append(list, '[')
	for _, no := range nos {
		if p.nodes[no] == nil {
			if len(list) > 1 {
				list = append(list, ',')
			}
			list = strconv.AppendInt(list, no, 10)
		}
	}
	if len(list) == 1 {
		return nil
	}
	list = append(list, ']')
	rows, err := p.db.QueryContext(p.ctx, `SELECT nodeno, data FROM `+p.q("_node")+` WHERE nodeno IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
	}
	defer rows.Close()
	for rows.Next() {
		var no int64
		var b []byte
		if err := rows.Scan(&no, &b); err != nil {
			return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
		}
		n, err := p.decode(no, b)
		if err != nil {
			return err
		}
		n.height, n.parent = height, -1
		p.nodes[no] = n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
	}
	return nil
}

// parentOf returns the parent of n (nil for the root).
func (p *rtreePatch) parentOf(n *pnode) (*pnode, error) {
	if n.no == 1 {
		return nil, nil
	}
	if n.parent < 0 {
		err := p.db.QueryRowContext(p.ctx, `SELECT parentnode FROM `+p.q("_parent")+` WHERE nodeno = ?`, n.no).Scan(&n.parent)
		if err != nil {
			return nil, fmt.Errorf("spatialite: patch index %s: parent of node %d: %w", p.idx, n.no, err)
		}
	}
	return p.node(n.parent, n.height+1)
}

// remove takes the rows in rs out of their leaves.
func (p *rtreePatch) remove(rs []RowidRange) error {
	byLeaf := map[int64]map[int64]bool{}
	for _, r := range rs {
		rows, err := p.db.QueryContext(p.ctx, `SELECT rowid, nodeno FROM `+p.q("_rowid")+` WHERE rowid BETWEEN ? AND ?`, r.First, r.Last)
		if err != nil {
			return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
		}
		for rows.Next() {
			var id, no int64
			if err := rows.Scan(&id, &no); err != nil {
				rows.Close()
				return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
			}
			if byLeaf[no] == nil {
				byLeaf[no] = map[int64]bool{}
			}
			byLeaf[no][id] = true
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
		}
		if err := p.ctx.Err(); err != nil {
			return fmt.Errorf("spatialite: patch index: %w", err)
		}
		if _, err := p.db.ExecContext(p.ctx, `DELETE FROM `+p.q("_rowid")+` WHERE rowid BETWEEN ? AND ?`, r.First, r.Last); err != nil {
			return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
		}
	}
	leaves := make([]int64, 0, len(byLeaf))
	for no := range byLeaf {
		leaves = append(leaves, no)
	}
	slices.Sort(leaves) // the same tree whatever the map's order
	if err := p.load(leaves, 0); err != nil {
		return err
	}
	for _, no := range leaves {
		n, err := p.node(no, 0)
		if err != nil {
			return err
		}
		drop := byLeaf[no]
		n.cells = slices.DeleteFunc(n.cells, func(e rtreeEntry) bool { return drop[e.id] })
		n.dirty = true
		if err := p.dropIfEmpty(n); err != nil {
			return err
		}
	}
	return nil
}

// dropIfEmpty removes n from its parent when it holds no cell, and so on
// upwards; the root stays.
func (p *rtreePatch) dropIfEmpty(n *pnode) error {
	for n.no != 1 && len(n.cells) == 0 {
		up, err := p.parentOf(n)
		if err != nil {
			return err
		}
		n.gone = true
		up.cells = slices.DeleteFunc(up.cells, func(e rtreeEntry) bool { return e.id == n.no })
		up.dirty = true
		n = up
	}
	return nil
}

// add inserts each entry into the leaf whose box it enlarges least
// (R*Tree ChooseSubtree, least area enlargement, then least area),
// splitting full nodes.
func (p *rtreePatch) add(es []Entry) error {
	for i, e := range es {
		if i%checkEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				return fmt.Errorf("spatialite: patch index: %w", err)
			}
		}
		box := roundOut(e.Rect)
		at, err := p.node(1, p.depth)
		if err != nil {
			return err
		}
		for at.height > 0 {
			best, err := p.choose(at, box)
			if err != nil {
				return err
			}
			child, err := p.node(at.cells[best].id, at.height-1)
			if err != nil {
				return err
			}
			at.cells[best].r = union(at.cells[best].r, box)
			at.dirty = true
			child.parent = at.no
			at = child
		}
		at.cells = append(at.cells, rtreeEntry{e.ID, box})
		at.added = append(at.added, e.ID)
		at.dirty = true
		if err := p.splitIfFull(at); err != nil {
			return err
		}
	}
	return nil
}

// choose is the cell of inner node at whose box box enlarges least; of
// equals, one whose node has room (the room a removed row left, for its
// new version: no split), then the smallest.
func (p *rtreePatch) choose(at *pnode, box Rect) (int, error) {
	best, bestGrow, bestArea, bestRoom := -1, math.Inf(1), math.Inf(1), false
	for i, c := range at.cells {
		a := area(c.r)
		grow := area(union(c.r, box)) - a
		if grow > bestGrow {
			continue
		}
		room := false
		if grow == bestGrow || grow == 0 {
			child, err := p.node(c.id, at.height-1)
			if err != nil {
				return 0, err
			}
			room = len(child.cells) < p.perNode
		}
		if grow < bestGrow || room && !bestRoom || room == bestRoom && a < bestArea {
			best, bestGrow, bestArea, bestRoom = i, grow, a, room
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("%w: index %s: node %d at height %d is empty", ErrInvalid, p.idx, at.no, at.height)
	}
	return best, nil
}

// splitIfFull splits n in two along the wider spread of its cells'
// centres when it holds more than a node can, and so on upwards; a full
// root moves its cells into two new children and grows a level.
func (p *rtreePatch) splitIfFull(n *pnode) error {
	for len(n.cells) > p.perNode {
		sortCells(n.cells)
		half := len(n.cells) / 2
		if n.no == 1 {
			a := p.newNode(n.height, 1, n.cells[:half])
			b := p.newNode(n.height, 1, n.cells[half:])
			if err := p.adopt(a); err != nil {
				return err
			}
			if err := p.adopt(b); err != nil {
				return err
			}
			n.cells = []rtreeEntry{{a.no, roundOut(cover(a.cells))}, {b.no, roundOut(cover(b.cells))}}
			n.height++
			p.depth++
			return nil
		}
		up, err := p.parentOf(n)
		if err != nil {
			return err
		}
		b := p.newNode(n.height, up.no, n.cells[half:])
		n.cells = n.cells[:half:half]
		if err := p.adopt(b); err != nil {
			return err
		}
		if n.height == 0 && len(n.added) > 0 {
			in := map[int64]bool{}
			for _, c := range n.cells {
				in[c.id] = true
			}
			n.added = slices.DeleteFunc(n.added, func(id int64) bool { return !in[id] })
		}
		up.cells = append(up.cells, rtreeEntry{b.no, roundOut(cover(b.cells))})
		up.dirty = true
		n = up
	}
	return nil
}

// newNode is a new node of height under parent holding a copy of cells.
func (p *rtreePatch) newNode(height int, parent int64, cells []rtreeEntry) *pnode {
	n := &pnode{no: p.next, height: height, parent: parent, dirty: true, moved: true, fresh: height == 0,
		cells: slices.Clone(cells)}
	p.next++
	p.nodes[n.no] = n
	return n
}

// adopt makes inner node n the parent of its cells' nodes; a new leaf's
// rows are all mapped to it by flush (fresh).
func (p *rtreePatch) adopt(n *pnode) error {
	if n.height == 0 {
		return nil
	}
	for _, c := range n.cells {
		child, err := p.node(c.id, n.height-1)
		if err != nil {
			return err
		}
		child.parent, child.moved = n.no, true
	}
	return nil
}

// sortCells orders cells by their centres along the axis over which the
// centres spread wider.
func sortCells(cells []rtreeEntry) {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, c := range cells {
		x, y := c.r.MinX+c.r.MaxX, c.r.MinY+c.r.MaxY
		lo, hi = [2]float64{min(lo[0], x), min(lo[1], y)}, [2]float64{max(hi[0], x), max(hi[1], y)}
	}
	byX := hi[0]-lo[0] >= hi[1]-lo[1]
	slices.SortStableFunc(cells, func(a, b rtreeEntry) int {
		if byX {
			return cmpFloat(a.r.MinX+a.r.MaxX, b.r.MinX+b.r.MaxX)
		}
		return cmpFloat(a.r.MinY+a.r.MaxY, b.r.MinY+b.r.MaxY)
	})
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tighten makes every parent's box of a changed node that node's cover,
// level by level from the leaves up.
func (p *rtreePatch) tighten() error {
	for h := 0; h < p.depth; h++ {
		var level []*pnode
		for _, n := range p.nodes {
			if n.height == h && n.dirty && !n.gone {
				level = append(level, n)
			}
		}
		slices.SortFunc(level, func(a, b *pnode) int { return cmpInt(a.no, b.no) })
		for _, n := range level {
			up, err := p.parentOf(n)
			if err != nil {
				return err
			}
			i := slices.IndexFunc(up.cells, func(e rtreeEntry) bool { return e.id == n.no })
			if i < 0 {
				return fmt.Errorf("%w: index %s: node %d not in its parent %d", ErrInvalid, p.idx, n.no, up.no)
			}
			if b := roundOut(cover(n.cells)); b != up.cells[i].r {
				up.cells[i].r = b
				up.dirty = true
			}
		}
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// flush writes the changed nodes, the rows of new leaves and the parents
// of moved nodes, and deletes the removed nodes.
func (p *rtreePatch) flush() error {
	nos := make([]int64, 0, len(p.nodes))
	for no, n := range p.nodes {
		if n.dirty || n.gone || n.moved {
			nos = append(nos, no)
		}
	}
	slices.Sort(nos)
	var stmts []*sql.Stmt
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	for _, q := range []string{
		// An upsert changes a node's row in place; REPLACE would delete
		// and insert it.
		`INSERT INTO ` + p.q("_node") + ` (nodeno, data) VALUES (?1, ?2) ON CONFLICT (nodeno) DO UPDATE SET data = ?2`,
		`INSERT OR REPLACE INTO ` + p.q("_rowid") + ` (rowid, nodeno) SELECT value, ?2 FROM json_each(?1)`,
		`INSERT OR REPLACE INTO ` + p.q("_parent") + ` (nodeno, parentnode) VALUES (?, ?)`,
		`DELETE FROM ` + p.q("_node") + ` WHERE nodeno = ?`,
		`DELETE FROM ` + p.q("_parent") + ` WHERE nodeno = ?`,
	} {
		st, err := p.db.PrepareContext(p.ctx, q)
		if err != nil {
			return fmt.Errorf("spatialite: patch index %s: %w", p.idx, err)
		}
		stmts = append(stmts, st)
	}
	exec := func(i int, no int64, args ...any) error {
		if _, err := stmts[i].ExecContext(p.ctx, args...); err != nil {
			return fmt.Errorf("spatialite: patch index %s node %d: %w", p.idx, no, err)
		}
		return nil
	}
	var blob, list []byte
	for _, no := range nos {
		n := p.nodes[no]
		if n.gone {
			if err := exec(3, no, no); err != nil {
				return err
			}
			if err := exec(4, no, no); err != nil {
				return err
			}
			continue
		}
		if n.dirty {
			depth := 0
			if no == 1 {
				depth = p.depth
			}
			blob = encodeNode(blob[:0], n.cells, depth, p.size)
			if err := exec(0, no, no, blob); err != nil {
				return err
			}
		}
		if n.fresh || len(n.added) > 0 {
			if n.fresh {
				list = idList(list[:0], n.cells)
			} else {
				list = idNumbers(list[:0], n.added)
			}
			if err := exec(1, no, string(list), no); err != nil {
				return err
			}
		}
		if n.moved && no != 1 {
			if err := exec(2, no, no, n.parent); err != nil {
				return err
			}
		}
	}
	return nil
}

// idNumbers appends ids as a JSON array to b.
func idNumbers(b []byte, ids []int64) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return append(b, ']')
}

// roundOut is r as the R*Tree stores it: float32, rounded outwards.
func roundOut(r Rect) Rect {
	return Rect{MinX: float64(down(r.MinX)), MinY: float64(down(r.MinY)), MaxX: float64(up(r.MaxX)), MaxY: float64(up(r.MaxY))}
}

func union(a, b Rect) Rect {
	return Rect{min(a.MinX, b.MinX), min(a.MinY, b.MinY), max(a.MaxX, b.MaxX), max(a.MaxY, b.MaxY)}
}

func area(r Rect) float64 { return (r.MaxX - r.MinX) * (r.MaxY - r.MinY) }
