package tiles3d

import (
	"fmt"
	"runtime"
)

// tileJSON is one tile of tileset.json (3D Tiles 1.1).
type tileJSON struct {
	Transform      []float64      `json:"transform,omitempty"`
	BoundingVolume map[string]any `json:"boundingVolume"`
	GeometricError float64        `json:"geometricError"`
	Refine         string         `json:"refine,omitempty"`
	Content        *contentJSON   `json:"content,omitempty"`
	Children       []*tileJSON    `json:"children,omitempty"`
	// key names the external tileset the tile may become (level_x_y of
	// its quadtree cell); see writeHierarchy.
	key string
}

type contentJSON struct {
	URI string `json:"uri"`
}

type tilesetJSON struct {
	Asset          map[string]any `json:"asset"`
	GeometricError float64        `json:"geometricError"`
	Root           *tileJSON      `json:"root"`
	// Schema is the EXT_structural_metadata schema of the contents' feature
	// tables (the building tileset's root only), so clients know the
	// classes and properties before loading a tile.
	Schema map[string]any `json:"schema,omitempty"`
}

// tilesetDoc renders the quadtree; the root carries the ENU-to-ECEF
// transform of rootM.
func tilesetDoc(root *cell, rootM frame, heightModel, attribution string) tilesetJSON {
	r := tileOf(root, rootM.inverse())
	r.Transform = rootM.matrix()
	if len(root.children) == 0 {
		r.Transform = root.abs.matrix() // the root is the only leaf
	}
	r.Refine = "ADD"
	// What leaving the whole tileset out costs, as for a parent of the
	// root: twice the error a tile of the root's edge over leaves has.
	// CesiumJS looks at the root only once this spans 16 px (a root that
	// is a leaf has an error of 0 itself).
	ge := 2 * root.size / errPerEdge
	return tilesetJSON{Asset: assetOf("1.1", "svc build tileset", heightModel, attribution), GeometricError: ge, Root: r}
}

// tileOf renders a cell; leaves get their frame relative to the root's.
func tileOf(c *cell, rootInv frame) *tileJSON {
	t := &tileJSON{BoundingVolume: map[string]any{"region": c.region[:]}, GeometricError: c.geometricError(),
		key: fmt.Sprintf("%d_%d_%d", c.level, c.x, c.y)}
	if c.content != "" {
		t.Content = &contentJSON{URI: c.content}
		t.Transform = rootInv.mul(c.abs).matrix()
	}
	for _, ch := range c.children {
		t.Children = append(t.Children, tileOf(ch, rootInv))
	}
	return t
}

// workers is the number of tiles a build works on at once: n, or the
// number of CPUs when n is 0 or negative. Every build writes the same
// bytes whatever the number (results are placed by tile, never in the
// order they finish).
func workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.NumCPU()
}
