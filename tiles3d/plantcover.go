package tiles3d

import (
	"math"

	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/rtin"
)

// MaxColorHeightM is the crown height above ground that COLOR_0's red
// channel maps to 1 (255); higher crowns saturate.
const MaxColorHeightM = 50.0

// Vegetation classes of the plantcover colour (SPEC 2.10: G and B of
// COLOR_0 are a class colour), by canopy height above ground.
const (
	ClassShrub = iota // 2 m to 5 m
	ClassLow          // 5 m to 15 m
	ClassTall         // 15 m and more
	numClasses
)

// classGB is the G and B colour of each class.
var classGB = [numClasses][2]uint8{{200, 90}, {150, 60}, {100, 40}}

// ClassOf returns the vegetation class of a canopy height (m above ground).
func ClassOf(canopyM float64) int {
	switch {
	case canopyM >= 15:
		return ClassTall
	case canopyM >= 5:
		return ClassLow
	}
	return ClassShrub
}

// ClassColor returns the COLOR_0 value (R, G, B, A; 0..255) of a
// plantcover vertex: R the canopy height over 0..MaxColorHeightM, G and B
// the class colour, A opaque.
func ClassColor(canopyM float64) [4]uint8 {
	r := math.Round(255 * math.Min(math.Max(canopyM/MaxColorHeightM, 0), 1))
	gb := classGB[ClassOf(canopyM)]
	return [4]uint8{uint8(r), gb[0], gb[1], 255}
}

// plantLattice holds the samples of one tile's plantcover: the ground and
// the canopy above it on an n x n lattice.
type plantLattice struct {
	n      int
	step   float64
	ground []float32 // DGM heights, or 0 without terrain
	canopy []float32 // metres above ground; 0 where vegetation-free
}

// canopyLattice samples the CDSM grid at the lattice points (the pixel
// containing each point; points on the east or south edge take the last
// pixel). Vegetation-free pixels and points off the grid give 0.
func canopyLattice(g raster.Grid, x0, y0, step float64, n int) []float32 {
	h := canopyOf(g)
	gt := g.GeoTransform
	out := make([]float32, n*n)
	for r := range n {
		row := int(math.Floor((y0 - float64(r)*step - gt[3]) / gt[5]))
		if row == g.Height {
			row--
		}
		if row < 0 || row >= g.Height {
			continue
		}
		for c := range n {
			col := int(math.Floor((x0 + float64(c)*step - gt[0]) / gt[1]))
			if col == g.Width {
				col--
			}
			if col >= 0 && col < g.Width {
				out[r*n+c] = h[row*g.Width+col]
			}
		}
	}
	return out
}

// plantMesh triangulates the vegetation surface (ground plus canopy) with
// an RTIN of at most tolM vertical error at every lattice point and keeps
// the triangles over vegetation: with hardened all three vertices must be
// vegetation (no curtain triangles hanging from a crown's edge to the
// ground), else one suffices. It returns the kept mesh over compacted
// vertices and the surface heights; the mesh is empty without vegetation.
func plantMesh(l plantLattice, tolM float64, hardened bool) (rtin.Mesh, []float32, error) {
	surf := make([]float32, len(l.ground))
	veg := false
	for i := range surf {
		surf[i] = l.ground[i] + l.canopy[i]
		veg = veg || l.canopy[i] > 0
	}
	if !veg {
		return rtin.Mesh{}, surf, nil
	}
	m, err := rtin.MeshFor(rtin.Grid{Size: l.n, Heights: surf}, tolM)
	if err != nil {
		return rtin.Mesh{}, nil, err
	}
	// The kept triangles move to the front of m.Triangles (never ahead of
	// the one being read); their vertices are numbered in order of first
	// use and copied once counted.
	remap := make([]int32, len(m.Vertices))
	for i := range remap {
		remap[i] = -1
	}
	nt, nv := 0, int32(0)
	for t := 0; t < len(m.Triangles); t += 3 {
		tri := [3]uint32(m.Triangles[t : t+3])
		veg := 0
		for _, k := range tri {
			if v := m.Vertices[k]; l.canopy[v[1]*l.n+v[0]] > 0 {
				veg++
			}
		}
		if veg == 0 || (hardened && veg < 3) {
			continue
		}
		for j, k := range tri {
			if remap[k] < 0 {
				remap[k] = nv
				nv++
			}
			m.Triangles[nt+j] = uint32(remap[k])
		}
		nt += 3
	}
	out := rtin.Mesh{Vertices: make([][2]int, nv), Triangles: m.Triangles[:nt:nt]}
	for k, r := range remap {
		if r >= 0 {
			out.Vertices[r] = m.Vertices[k]
		}
	}
	return out, surf, nil
}

// CurtainShare is the share (0..1) of triangles of a plantcover mesh that
// join vegetation to vegetation-free ground: the vertical "curtains" at the
// edge of crowns that the hardened recipe of SPEC 2.10 leaves out. canopy
// holds the canopy height of each vertex (0 for ground); an empty mesh
// gives 0.
func CurtainShare(idx []uint32, canopy []float32) float64 {
	if len(idx) < 3 {
		return 0
	}
	n := 0
	for t := 0; t+2 < len(idx); t += 3 {
		veg := 0
		for _, k := range idx[t : t+3] {
			if canopy[k] > 0 {
				veg++
			}
		}
		if veg > 0 && veg < 3 {
			n++
		}
	}
	return float64(n) / float64(len(idx)/3)
}

// plantColors returns COLOR_0 bytes for the mesh vertices.
func plantColors(m rtin.Mesh, l plantLattice) []uint8 {
	out := make([]uint8, 0, 4*len(m.Vertices))
	for _, v := range m.Vertices {
		c := ClassColor(float64(l.canopy[v[1]*l.n+v[0]]))
		out = append(out, c[:]...)
	}
	return out
}
