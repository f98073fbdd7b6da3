package osmdata

import (
	"math"
	"sort"
)

// SeaPolygons builds the sea within box from coastline lines, which OSM
// draws with the land on the left: the lines are clipped to the box and
// joined end to end; each open chain runs from box edge to box edge and the
// sea lies on its right, so sea rings follow a chain, then the box edge
// clockwise to the start of the next chain, and so on until closed. Closed
// rings counter-clockwise are islands (holes of the sea that holds them);
// with no open chain the sea is the box around its islands. Chains that end
// inside the box (coastline missing from the extract) are left out. Each
// polygon is an exterior ring then its holes.
func SeaPolygons(coast [][][2]float64, box Box) [][][][2]float64 {
	var pieces [][][2]float64
	for _, l := range coast {
		pieces = append(pieces, box.Line(l)...)
	}
	chains := joinChains(pieces)
	var islands, open [][][2]float64
	for _, c := range chains {
		switch {
		case len(c) >= 4 && c[0] == c[len(c)-1]:
			if signedArea(c) > 0 {
				islands = append(islands, c)
			} // a clockwise closed coastline (land outside): a lake of sea, rare; left out
		case box.onEdge(c[0]) && box.onEdge(c[len(c)-1]):
			open = append(open, c)
		}
	}
	var seas [][][2]float64
	if len(open) == 0 {
		if len(islands) == 0 {
			return nil
		}
		seas = [][][2]float64{{{box.MinX, box.MinY}, {box.MaxX, box.MinY}, {box.MaxX, box.MaxY}, {box.MinX, box.MaxY}, {box.MinX, box.MinY}}}
	} else {
		seas = box.closeChains(open)
	}
	polys := make([][][][2]float64, len(seas))
	for i, s := range seas {
		polys[i] = [][][2]float64{s}
	}
	for _, is := range islands {
		for i, s := range seas {
			if pointInRing(is[0], s) {
				polys[i] = append(polys[i], is)
				break
			}
		}
	}
	return polys
}

// joinChains joins lines that continue one another (end point equals the
// next start point) into chains.
func joinChains(lines [][][2]float64) [][][2]float64 {
	used := make([]bool, len(lines))
	var out [][][2]float64
	for i := range lines {
		if used[i] {
			continue
		}
		used[i] = true
		c := append([][2]float64(nil), lines[i]...)
		for grown := true; grown && c[0] != c[len(c)-1]; {
			grown = false
			for j := range lines {
				if used[j] {
					continue
				}
				switch l := lines[j]; {
				case l[0] == c[len(c)-1]:
					c = append(c, l[1:]...)
				case l[len(l)-1] == c[0]:
					c = append(append([][2]float64(nil), l[:len(l)-1]...), c...)
				default:
					continue
				}
				used[j], grown = true, true
			}
		}
		out = append(out, c)
	}
	return out
}

func signedArea(r [][2]float64) float64 {
	a := 0.0
	for i := 1; i < len(r); i++ {
		a += r[i-1][0]*r[i][1] - r[i][0]*r[i-1][1]
	}
	return a / 2
}

const edgeEps = 1e-6

func (b Box) onEdge(p [2]float64) bool {
	return math.Abs(p[0]-b.MinX) < edgeEps || math.Abs(p[0]-b.MaxX) < edgeEps || math.Abs(p[1]-b.MinY) < edgeEps || math.Abs(p[1]-b.MaxY) < edgeEps
}

// perim is the position of an edge point along the boundary, clockwise
// from the top-left corner (y grows north).
func (b Box) perim(p [2]float64) float64 {
	w, h := b.MaxX-b.MinX, b.MaxY-b.MinY
	switch {
	case math.Abs(p[1]-b.MaxY) < edgeEps:
		return p[0] - b.MinX
	case math.Abs(p[0]-b.MaxX) < edgeEps:
		return w + (b.MaxY - p[1])
	case math.Abs(p[1]-b.MinY) < edgeEps:
		return w + h + (b.MaxX - p[0])
	}
	return 2*w + h + (p[1] - b.MinY)
}

// closeChains links open chains along the box boundary clockwise (the sea
// on the right of each chain) into closed sea rings.
func (b Box) closeChains(open [][][2]float64) [][][2]float64 {
	w, h := b.MaxX-b.MinX, b.MaxY-b.MinY
	total := 2 * (w + h)
	corners := []struct {
		s float64
		p [2]float64
	}{{w, [2]float64{b.MaxX, b.MaxY}}, {w + h, [2]float64{b.MaxX, b.MinY}}, {2*w + h, [2]float64{b.MinX, b.MinY}}, {total, [2]float64{b.MinX, b.MaxY}}}
	starts := make([]float64, len(open))
	for i, c := range open {
		starts[i] = b.perim(c[0])
	}
	used := make([]bool, len(open))
	var rings [][][2]float64
	for i := range open {
		if used[i] {
			continue
		}
		var ring [][2]float64
		cur := i
		for !used[cur] {
			used[cur] = true
			ring = append(ring, open[cur]...)
			end := b.perim(open[cur][len(open[cur])-1])
			// The next chain start clockwise from the end.
			next, best := -1, math.Inf(1)
			for j := range open {
				d := math.Mod(starts[j]-end+total, total)
				if d < best && (!used[j] || j == i) {
					next, best = j, d
				}
			}
			if next < 0 {
				break
			}
			// The box corners passed on the way.
			type cp struct {
				d float64
				p [2]float64
			}
			var pass []cp
			for _, c := range corners {
				d := math.Mod(c.s-end+total, total)
				if d > 0 && d < best {
					pass = append(pass, cp{d, c.p})
				}
			}
			sort.Slice(pass, func(a, z int) bool { return pass[a].d < pass[z].d })
			for _, c := range pass {
				ring = append(ring, c.p)
			}
			cur = next
		}
		if len(ring) >= 3 {
			rings = append(rings, append(ring, ring[0]))
		}
	}
	return rings
}
