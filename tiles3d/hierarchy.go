package tiles3d

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// Hierarchical tilesets: every product's tile tree is an explicit quadtree
// cut into tileset files, the deeper parts in external tilesets (3D Tiles
// 1.0/1.1 "tileset JSON as content") under SubDir; see docs/3d-tiles.md for
// why this layout and not implicit tiling.
const (
	// rootLevels are the quadtree levels in tileset.json: 1 + 4 + 16 + 64
	// = 85 tiles at most, of which the last level's inner tiles reference
	// external tilesets (19 KB for empty tiles, 64 KB if all were content
	// with a transform). Whatever the BL's size, the first view of a whole
	// BL refines at most to this level (see errPerEdge).
	rootLevels = 4
	// fileBytes bounds an external tileset (and a tileset of that size
	// stays one file): below the root's levels the tree is packed
	// bottom-up, a subtree staying with its parent while their JSON fits
	// in the budget of the parent's level, the largest subtrees moving to
	// their own files first. A file outgrows it only by the leaves of one
	// tile.
	fileBytes = 64 << 10
	// shallowFileBytes is the budget of an external tileset rooted at the
	// last level of tileset.json; it doubles with each level below, up to
	// fileBytes. A view refining just past tileset.json (a region of some
	// tens of km) fetches several of these and wants little more than the
	// next levels in them; only street views reach the large files near
	// the leaves, and few of them.
	shallowFileBytes = 8 << 10
	// SubDir holds the external tilesets, next to tileset.json.
	SubDir = "sub"
	// errPerEdge is the ratio of the edge of an empty tile over content
	// tiles to its geometric error; coarser empty tiles have their
	// children's largest error. CesiumJS refines a tile while its
	// geometric error covers more than 16 px (maximumScreenSpaceError),
	// i.e. within about 3.5 edges of it on an 800 px high view (60° field
	// of view): a street view loads the leaves within a few kilometres,
	// and the coarse tiles refine only near them, so the first view of a
	// whole state (camera at about 1.5 times the state's extent) opens
	// nothing but tileset.json.
	errPerEdge = 20
)

// HierarchyStats describes the tileset files of a written tile tree.
type HierarchyStats struct {
	RootBytes    int64 // size of tileset.json
	Files        int   // tileset files, tileset.json included
	MaxFileBytes int64 // the largest tileset file
	JSONBytes    int64 // all tileset files
	ContentTiles int   // tiles with renderable content (glb/b3dm)
}

// writeHierarchy writes doc to dir/name, the parts of its tree deeper than
// fileDepth in external tilesets under dir/SubDir (created as needed).
// Content URIs in doc are relative to dir. Each tile's key names its
// external tileset (SubDir/<key>.json); tiles without a key get their path
// of child indexes. The output depends only on doc.
func writeHierarchy(dir, name string, doc tilesetJSON) (HierarchyStats, error) {
	return writeHierarchyLinking(dir, name, doc, nil)
}

// writeHierarchyLinking is writeHierarchy for an incremental build: an
// external tileset whose bytes equal the previous build's file of the same
// path is linked from it (same(rel, data) links it and reports true)
// instead of being written; most are, when few leaves changed.
func writeHierarchyLinking(dir, name string, doc tilesetJSON, same func(rel string, data []byte) bool) (HierarchyStats, error) {
	h := &hierWriter{dir: dir, asset: doc.Asset, same: same}
	refine := doc.Root.Refine
	if refine == "" {
		refine = "REPLACE"
	}
	h.cuts = map[*tileJSON]bool{}
	if treeBytes(doc.Root) > fileBytes {
		h.pack(doc.Root, 0)
	}
	root := h.cut(doc.Root, true, keyOf(doc.Root, "r"), false, refine)
	if h.err != nil {
		return HierarchyStats{}, h.err
	}
	n, err := writeDoc(filepath.Join(dir, name), tilesetJSON{Asset: doc.Asset, GeometricError: doc.GeometricError, Root: root, Schema: doc.Schema})
	if err != nil {
		return HierarchyStats{}, err
	}
	h.add(n)
	h.stats.RootBytes = n
	return h.stats, nil
}

type hierWriter struct {
	dir   string
	asset map[string]any
	stats HierarchyStats
	err   error
	made  bool               // SubDir exists
	cuts  map[*tileJSON]bool // roots of external tilesets
	// same, when set, links an external tileset equal to the previous
	// build's (see writeHierarchyLinking).
	same func(rel string, data []byte) bool
}

func (h *hierWriter) add(n int64) {
	h.stats.Files++
	h.stats.JSONBytes += n
	h.stats.MaxFileBytes = max(h.stats.MaxFileBytes, n)
}

// cut copies t for a file (whose root t is when top); inSub says the file is
// under SubDir (content URIs then go up one directory). refine is t's
// effective refinement.
func (h *hierWriter) cut(t *tileJSON, top bool, key string, inSub bool, refine string) *tileJSON {
	c := *t
	c.Children = nil
	if t.Content != nil {
		h.stats.ContentTiles++
		if inSub {
			c.Content = &contentJSON{URI: "../" + t.Content.URI}
		}
	}
	if t.Refine != "" {
		refine = t.Refine
	}
	if !top && h.cuts[t] && h.err == nil {
		uri := key + ".json"
		if !inSub {
			uri = SubDir + "/" + uri
		}
		h.external(t, key, refine)
		// The reference keeps the tile's volume, error and transform; the
		// external root has none of its own (its transform is relative to
		// this tile's).
		return &tileJSON{Transform: t.Transform, BoundingVolume: t.BoundingVolume, GeometricError: t.GeometricError,
			Content: &contentJSON{URI: uri}}
	}
	for i, ch := range t.Children {
		c.Children = append(c.Children, h.cut(ch, false, keyOf(ch, key+"-"+strconv.Itoa(i)), inSub, refine))
	}
	return &c
}

// external writes the external tileset whose root is t.
func (h *hierWriter) external(t *tileJSON, key, refine string) {
	if !h.made {
		if err := os.MkdirAll(filepath.Join(h.dir, SubDir), 0o755); err != nil {
			h.err = fmt.Errorf("tiles3d: %w", err)
			return
		}
		h.made = true
	}
	r := *t
	r.Transform, r.Refine = nil, refine
	root := h.cut(&r, true, key, true, refine)
	doc := tilesetJSON{Asset: h.asset, GeometricError: t.GeometricError, Root: root}
	data, err := marshalTileset(doc)
	if err == nil && (h.same == nil || !h.same(SubDir+"/"+key+".json", data)) {
		err = os.WriteFile(filepath.Join(h.dir, SubDir, key+".json"), data, 0o644)
	}
	if err != nil && h.err == nil {
		h.err = fmt.Errorf("tiles3d: %w", err)
	}
	h.add(int64(len(data)))
}

// pack chooses the roots of external tilesets in the tree below t (depth
// levels below the root) and returns the bytes t and what stays with it
// take in its file.
func (h *hierWriter) pack(t *tileJSON, depth int) int {
	size := tileBytes(t)
	if len(t.Children) == 0 {
		return size
	}
	rs := make([]int, len(t.Children))
	for i, c := range t.Children {
		rs[i] = h.pack(c, depth+1)
	}
	cuttable := func(c *tileJSON) bool { return len(c.Children) > 0 && c.Content == nil && !h.cuts[c] }
	if depth == rootLevels-1-1 {
		// The last level of tileset.json: its inner tiles all go.
		for i, c := range t.Children {
			if cuttable(c) {
				h.cuts[c], rs[i] = true, tileBytes(c)
			}
		}
	}
	for _, r := range rs {
		size += r
	}
	for depth >= rootLevels-1 && size > budgetAt(depth) {
		k := -1
		for i, c := range t.Children {
			if cuttable(c) && (k < 0 || rs[i] > rs[k]) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		h.cuts[t.Children[k]] = true
		size -= rs[k] - tileBytes(t.Children[k])
		rs[k] = tileBytes(t.Children[k])
	}
	return size
}

// budgetAt is the size of an external tileset rooted depth levels below
// the root (at least rootLevels-1).
func budgetAt(depth int) int {
	return min(fileBytes, shallowFileBytes<<min(depth-(rootLevels-1), 8))
}

// treeBytes is tileBytes over t and its descendants.
func treeBytes(t *tileJSON) int {
	n := tileBytes(t)
	for _, c := range t.Children {
		n += treeBytes(c)
	}
	return n
}

// tileBytes is the size of a tile's JSON without its children, plus room
// for what the file may add: a comma, a children array, a relative URI's
// "../" or the content of an external tileset reference.
func tileBytes(t *tileJSON) int {
	c := *t
	c.Children = nil
	b, _ := appendTile(nil, &c)
	return len(b) + 50
}

func keyOf(t *tileJSON, fallback string) string {
	if t.key != "" {
		return t.key
	}
	return fallback
}

// writeDoc writes a tileset file and returns its size.
func writeDoc(path string, doc tilesetJSON) (int64, error) {
	data, err := marshalTileset(doc)
	if err != nil {
		return 0, fmt.Errorf("tiles3d: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return 0, fmt.Errorf("tiles3d: %w", err)
	}
	return int64(len(data)), nil
}

// writeGrouped writes the tileset of content tiles (leaves whose URIs are
// relative to path's directory) at path, grouped by groupTiles under a
// REPLACE root, in files of writeHierarchy. multi reports whether the
// quadtree has more than one level of empty tiles.
func writeGrouped(path string, children []*tileJSON, asset map[string]any) (st HierarchyStats, multi bool, err error) {
	root := groupTiles(children)
	root.Refine = "REPLACE"
	for _, c := range root.Children {
		multi = multi || len(c.Children) > 0
	}
	// Twice the root's error, so that CesiumJS opens the root at the first
	// view of the whole BL.
	doc := tilesetJSON{Asset: asset, GeometricError: 2 * root.GeometricError, Root: root}
	st, err = writeHierarchy(filepath.Dir(path), filepath.Base(path), doc)
	return st, multi, err
}

// groupTiles arranges content tiles (leaves, each with a region) in a
// quadtree over the centres of their regions: a cell with at most
// tilesPerCell tiles is an empty tile whose children are those tiles, a
// larger one splits in four. Empty tiles have the union of their
// children's regions; the geometric error of a tile over content tiles is
// its larger edge over errPerEdge, of a coarser one its children's largest,
// so the first view of a whole state loads no leaf and opens no external
// tileset. It returns nil without tiles.
func groupTiles(tiles []*tileJSON) *tileJSON {
	if len(tiles) == 0 {
		return nil
	}
	w, s, e, n := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, t := range tiles {
		cx, cy := regionCentre(t)
		w, s, e, n = math.Min(w, cx), math.Min(s, cy), math.Max(e, cx), math.Max(n, cy)
	}
	// A square in metres around the centres, so that cells stay square.
	cosLat := math.Cos((s + n) / 2)
	side := math.Max((e-w)*cosLat, n-s) * (1 + 1e-9)
	if side == 0 {
		side = 1e-9
	}
	return groupCell(tiles, w, s, side/cosLat, side, 0, 0, 0)
}

// tilesPerCell bounds the children of a cell of groupTiles: 4 DGM tiles
// of 1 km make a 2 km cell.
const tilesPerCell = 4

func groupCell(tiles []*tileJSON, w, s, dLon, dLat float64, level, x, y int) *tileJSON {
	node := &tileJSON{key: fmt.Sprintf("%d_%d_%d", level, x, y)}
	if len(tiles) <= tilesPerCell || level >= maxDepth+6 {
		node.Children = tiles
	} else {
		var parts [4][]*tileJSON
		for _, t := range tiles {
			cx, cy := regionCentre(t)
			q := 0
			if cx >= w+dLon/2 {
				q |= 1
			}
			if cy >= s+dLat/2 {
				q |= 2
			}
			parts[q] = append(parts[q], t)
		}
		for q, p := range parts {
			if len(p) > 0 {
				node.Children = append(node.Children, groupCell(p, w+float64(q&1)*dLon/2, s+float64(q>>1)*dLat/2, dLon/2, dLat/2,
					level+1, 2*x+q&1, 2*y+q>>1))
			}
		}
	}
	r := unionRegion(node.Children)
	node.BoundingVolume = map[string]any{"region": r}
	// As the buildings' cells (cell.geometricError): a tile over content
	// tiles has its edge over errPerEdge, a coarser one its children's
	// largest error.
	for _, c := range node.Children {
		if len(c.Children) == 0 {
			node.GeometricError = math.Max(node.GeometricError, regionEdgeM(r)/errPerEdge)
		} else {
			node.GeometricError = math.Max(node.GeometricError, c.GeometricError)
		}
	}
	return node
}

func regionCentre(t *tileJSON) (lon, lat float64) {
	r := t.BoundingVolume["region"].([]float64)
	return (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
}

// unionRegion is the region enclosing every tile's.
func unionRegion(tiles []*tileJSON) []float64 {
	region := append([]float64(nil), tiles[0].BoundingVolume["region"].([]float64)...)
	for _, c := range tiles[1:] {
		r := c.BoundingVolume["region"].([]float64)
		region[0], region[1] = math.Min(region[0], r[0]), math.Min(region[1], r[1])
		region[2], region[3] = math.Max(region[2], r[2]), math.Max(region[3], r[3])
		region[4], region[5] = math.Min(region[4], r[4]), math.Max(region[5], r[5])
	}
	return region
}

// regionEdgeM is the larger horizontal edge of a region in metres (on a
// sphere of the Earth's mean radius).
func regionEdgeM(r []float64) float64 {
	const earthR = 6371000
	return math.Max((r[2]-r[0])*math.Cos((r[1]+r[3])/2), r[3]-r[1]) * earthR
}
