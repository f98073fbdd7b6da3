package tiles3d

import (
	"math"

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
// most maxPer buildings.
func quadtree(ext []lod2store.BuildingExtent, maxPer int) *cell {
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
	split(root, ext, idx, tmp, maxPer)
	return root
}

func split(c *cell, ext []lod2store.BuildingExtent, idx, tmp []int32, maxPer int) {
	if len(idx) <= maxPer || c.level >= maxDepth {
		c.ids = make([]int64, len(idx))
		for i, k := range idx {
			c.ids[i] = ext[k].BuildingID
		}
		return
	}
	half := c.size / 2
	quad := func(k int32) int {
		e, q := ext[k], 0
		if (e.MinX+e.MaxX)/2 >= c.minX+half {
			q |= 1
		}
		if (e.MinY+e.MaxY)/2 >= c.minY+half {
			q |= 2
		}
		return q
	}
	var start [5]int
	for _, k := range idx {
		start[quad(k)+1]++
	}
	for q := range 4 {
		start[q+1] += start[q]
	}
	next := start
	for _, k := range idx {
		q := quad(k)
		tmp[next[q]] = k
		next[q]++
	}
	copy(idx, tmp[:len(idx)])
	for q := range 4 {
		p := idx[start[q]:start[q+1]]
		if len(p) == 0 {
			continue
		}
		ch := &cell{level: c.level + 1, x: 2*c.x + q&1, y: 2*c.y + q>>1, size: half,
			minX: c.minX + float64(q&1)*half, minY: c.minY + float64(q>>1)*half}
		split(ch, ext, p, tmp[start[q]:start[q+1]], maxPer)
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
// opens none of them.
func (c *cell) geometricError() float64 {
	ge := 0.0
	for _, ch := range c.children {
		if len(ch.children) == 0 {
			ge = math.Max(ge, c.size/errPerEdge)
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
