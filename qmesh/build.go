package qmesh

import (
	"context"
	"fmt"
	"math"

	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/rtin"
)

// Sampler returns the DHHN2016 height at lon, lat (degrees); ok is false
// where no DGM has a value (outside coverage, NoData).
type Sampler func(ctx context.Context, lon, lat float64) (h float64, ok bool, err error)

// grid is the number of samples along a tile edge: 2^6 + 1, as Cesium's
// own height maps.
const grid = 65

// Stats describes a built tile.
type Stats struct {
	Vertices, Triangles int
	Covered             int     // samples with DGM data
	ToleranceM          float64 // the RTIN's maximum error against the samples
}

// build samples tile t on a grid x grid lattice (row 0 north), lifts every
// sample to the ellipsoid with the geoid (samples without data lie on the
// geoid surface, h = N), meshes it as an RTIN within the tile's tolerance,
// and completes the border so every lattice point of an edge is a vertex:
// the neighbour samples the same points and so has the same edge.
func build(ctx context.Context, t Tile, sample Sampler, g *geoid.Model) (*mesh, Stats, error) {
	w, s, e, n := t.Bounds()
	heights := make([]float32, grid*grid)
	lons, lats := make([]float64, grid), make([]float64, grid)
	for i := range grid {
		lons[i] = w + (e-w)*float64(i)/(grid-1)
		lats[i] = n - (n-s)*float64(i)/(grid-1)
	}
	var st Stats
	for r := range grid {
		if err := ctx.Err(); err != nil {
			return nil, st, err
		}
		for c := range grid {
			h, ok, err := sample(ctx, lons[c], lats[r])
			if err != nil {
				return nil, st, fmt.Errorf("qmesh: tile %d/%d/%d: %w", t.Z, t.X, t.Y, err)
			}
			if !ok {
				h = 0
			} else {
				st.Covered++
			}
			heights[r*grid+c] = float32(h + undulation(g, lons[c], lats[r]))
		}
	}
	// Half of what Cesium tolerates at this level, and never coarser than
	// the terrain mesh tilesets' 0.5 m at the deepest levels.
	st.ToleranceM = math.Max(GeometricError(t.Z)/2, 0.25)
	rm, err := rtin.MeshFor(rtin.Grid{Size: grid, Heights: heights}, st.ToleranceM)
	if err != nil {
		return nil, st, err
	}
	verts, tri := completeEdges(rm.Vertices, rm.Triangles)
	// Counter-clockwise seen from above: east is +column, north is -row.
	for t := 0; t+2 < len(tri); t += 3 {
		a, b, c := verts[tri[t]], verts[tri[t+1]], verts[tri[t+2]]
		if (b[0]-a[0])*(a[1]-c[1])-(c[0]-a[0])*(a[1]-b[1]) < 0 {
			tri[t+1], tri[t+2] = tri[t+2], tri[t+1]
		}
	}
	// Renumber in order of first use: the high-water-mark index code needs it.
	order := make([]int32, len(verts))
	for i := range order {
		order[i] = -1
	}
	m := &mesh{}
	for _, i := range tri {
		if order[i] < 0 {
			order[i] = int32(len(m.u))
			p := verts[i]
			lon, lat := lons[p[0]], lats[p[1]]
			h := float64(heights[p[1]*grid+p[0]])
			m.u = append(m.u, uint16(math.Round(float64(p[0])*32767/(grid-1))))
			m.v = append(m.v, uint16(math.Round(float64(grid-1-p[1])*32767/(grid-1))))
			m.h = append(m.h, h)
			m.ecef = append(m.ecef, ecef(lon, lat, h))
		}
		m.tri = append(m.tri, uint32(order[i]))
	}

	st.Vertices, st.Triangles = len(m.u), len(m.tri)/3
	return m, st, nil
}

// undulation is N at lon, lat, with the point moved onto the grid when it
// lies outside it (the embedded grid covers Germany with a margin; beyond
// it the nearest border value keeps the globe continuous).
func undulation(g *geoid.Model, lon, lat float64) float64 {
	if v, ok := g.Undulation(lon, lat); ok {
		return v
	}
	w, s, e, n := g.Extent()
	if v, ok := g.Undulation(math.Min(math.Max(lon, w), e), math.Min(math.Max(lat, s), n)); ok {
		return v
	}
	return 0
}

// completeEdges splits every triangle with an edge on the tile border that
// skips border lattice points, at the skipped point nearest the edge's
// middle, until every border lattice point is a vertex. Vertices are
// lattice points (column, row); triangles keep their winding.
func completeEdges(verts [][2]int, tri []uint32) ([][2]int, []uint32) {
	index := make(map[[2]int]uint32, len(verts))
	for i, v := range verts {
		index[v] = uint32(i)
	}
	vertex := func(p [2]int) uint32 {
		if i, ok := index[p]; ok {
			return i
		}
		i := uint32(len(verts))
		verts = append(verts, p)
		index[p] = i
		return i
	}
	onBorder := func(a, b [2]int) bool {
		return (a[0] == b[0] && (a[0] == 0 || a[0] == grid-1)) || (a[1] == b[1] && (a[1] == 0 || a[1] == grid-1))
	}
	var out []uint32
	stack := make([][3]uint32, 0, len(tri)/3)
	for t := 0; t+2 < len(tri); t += 3 {
		stack = append(stack, [3]uint32{tri[t], tri[t+1], tri[t+2]})
	}
	for len(stack) > 0 {
		tr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		split := false
		for k := range 3 {
			a, b, c := tr[k], tr[(k+1)%3], tr[(k+2)%3]
			pa, pb := verts[a], verts[b]
			span := max(abs(pa[0]-pb[0]), abs(pa[1]-pb[1]))
			if span <= 1 || !onBorder(pa, pb) {
				continue
			}
			m := vertex([2]int{(pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2})
			stack = append(stack, [3]uint32{a, m, c}, [3]uint32{m, b, c})
			split = true
			break
		}
		if !split {
			out = append(out, tr[0], tr[1], tr[2])
		}
	}
	return verts, out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
