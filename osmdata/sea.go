package osmdata

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// CoastLine is one natural=coastline way or the piece of it the extract
// has, in projected metres, land on its left (the OSM convention).
type CoastLine struct {
	WayID  int64
	Points [][2]float64
	// CutStart and CutEnd: the way goes on beyond this end, with nodes the
	// extract does not have (cut by osmium's simple or smart strategy).
	CutStart, CutEnd bool
}

// Sea is the sea an extract's coastline encloses within its region.
type Sea struct {
	// Polygons: each an exterior ring (clockwise) then its holes.
	Polygons [][][][2]float64
	// Chains is the number of coastline chains (after cutting to the
	// region); Closed of them were closed along the region's boundary.
	Chains, Closed int
	// Snapped chain ends stopped short of the boundary (a way cut by the
	// extract, its next node missing) and were carried to the nearest
	// boundary point, at most MaxSnapM away.
	Snapped  int
	MaxSnapM float64
	// Unclosed chains could not be closed: left out of the sea.
	Unclosed []UnclosedChain
}

// UnclosedChain is a coastline chain left out of the sea, and why.
type UnclosedChain struct {
	Ways   []int64    `json:"ways"`
	AtUTM  [2]float64 `json:"-"`
	Reason string     `json:"reason"`
}

// SnapMaxM is how far inside the extract's boundary a coastline chain may
// end and still be closed along it: a way cut by the extract (`osmium
// extract -s simple|smart`) ends at its last node inside, at most one
// segment from the boundary; coastline segments in Germany are mostly
// under 100 m, long dike segments a few hundred. A chain ending farther
// inside is a gap in the data, not a cut: it is reported, not guessed.
const SnapMaxM = 1000

// SeaPolygons is the sea within box from coastline lines (see seaIn).
func SeaPolygons(coast [][][2]float64, box Box) [][][][2]float64 {
	lines := make([]CoastLine, len(coast))
	for i, l := range coast {
		lines[i] = CoastLine{Points: l}
	}
	return seaIn(lines, newRegion([][][2]float64{boxRing(box)})).Polygons
}

// seaIn builds the sea within a region from coastline lines, which OSM
// draws with the land on the left: the lines are cut to the region and
// joined end to end. A chain ending short of the boundary by at most
// SnapMaxM is carried to the nearest boundary point. Each open chain then
// runs from boundary to boundary with the sea on its right, so a sea ring
// follows a chain, then the ring it ends on forward (the region on the
// right; an outer ring or a hole) to the start of the next chain on that
// ring, and so on until closed. Closed rings counter-clockwise are
// islands, holes of the sea that holds them; clockwise ones are sea
// enclosed by land. A boundary ring with islands and no open chain is all
// sea; a hole of the region no chain crosses is cut out of the sea that
// holds it. Chains that cannot be closed are listed in Unclosed with the
// reason.
func seaIn(coast []CoastLine, r *region) Sea {
	var s Sea
	if r == nil {
		return s
	}
	var pieces []chain
	for _, l := range coast {
		first, last := l.Points[0], l.Points[len(l.Points)-1]
		for _, p := range r.clipLine(l.Points) {
			pieces = append(pieces, chain{pts: p, ways: []int64{l.WayID},
				cut: [2]bool{l.CutStart && p[0] == first, l.CutEnd && p[len(p)-1] == last}})
		}
	}
	chains := joinChains(pieces)
	s.Chains = len(chains)
	var islands, pockets [][][2]float64
	var open []chain
	var starts, ends []boundaryAt
	for _, c := range chains {
		pts := c.pts
		if len(pts) >= 4 && pts[0] == pts[len(pts)-1] {
			if signedArea(pts) > 0 {
				islands = append(islands, pts)
			} else {
				pockets = append(pockets, pts)
			}
			continue
		}
		var e [2]boundaryAt
		ok := true
		for k, p := range [2][2]float64{pts[0], pts[len(pts)-1]} {
			ring, pos, at, d := r.nearest(p)
			what := [2]string{"starts", "ends"}[k]
			switch {
			case d > 1e-6 && !c.cut[k]:
				s.Unclosed = append(s.Unclosed, UnclosedChain{Ways: c.ways, AtUTM: p,
					Reason: fmt.Sprintf("%s %.0f m inside the extract's boundary where its way %s: the coastline goes on in a way the extract lacks (a gap, not a cut)", what, d, what)})
				ok = false
			case d > SnapMaxM:
				s.Unclosed = append(s.Unclosed, UnclosedChain{Ways: c.ways, AtUTM: p,
					Reason: fmt.Sprintf("is cut %.0f m inside the extract's boundary (more than %d m)", d, SnapMaxM)})
				ok = false
			}
			if !ok {
				break
			}
			if d > 1e-6 {
				s.Snapped++
				s.MaxSnapM = math.Max(s.MaxSnapM, d)
				if k == 0 {
					pts = append([][2]float64{at}, pts...)
				} else {
					pts = append(pts, at)
				}
			}
			e[k] = boundaryAt{ring, pos}
		}
		if !ok {
			continue
		}
		open = append(open, chain{pts: pts, ways: c.ways})
		starts, ends = append(starts, e[0]), append(ends, e[1])
	}
	s.Closed = len(open)
	seas, hasOpen := walkBoundary(r, open, starts, ends)
	// A ring no chain crosses is all sea or all land: an outer ring holding
	// an island is sea (Helgoland uncut, or the Düne cut as a ring of its
	// own); a hole is cut out of the sea ring that holds it, unless it lies
	// on an island.
	var cutouts [][][2]float64
	for k, rg := range r.rings {
		switch {
		case hasOpen[k]:
		case signedArea(rg) > 0:
			cutouts = append(cutouts, rg)
		default:
			for _, is := range islands {
				if pointInRing(is[0], rg) {
					seas = append(seas, rg)
					break
				}
			}
		}
	}
	seas = append(seas, pockets...)
	s.Polygons = make([][][][2]float64, len(seas))
	for i, sr := range seas {
		s.Polygons[i] = [][][2]float64{sr}
	}
	addHoles(s.Polygons, seas, islands, cutouts)
	return s
}

// boundaryAt is a point on a region's boundary: its ring and the arc
// length along it.
type boundaryAt struct {
	ring int
	pos  float64
}

// walkBoundary closes open chains (each from starts[i] to ends[i] on the
// boundary, the sea on its right) into sea rings: a ring follows a chain,
// then the boundary ring it ends on forward to the start of the next chain
// on that ring, and so on until it is back at its first chain. It also
// reports which boundary rings the chains meet.
func walkBoundary(r *region, open []chain, starts, ends []boundaryAt) (seas [][][2]float64, hasOpen []bool) {
	hasOpen = make([]bool, len(r.rings))
	for i := range starts {
		hasOpen[starts[i].ring], hasOpen[ends[i].ring] = true, true
	}
	used := make([]bool, len(open))
	for i := range open {
		if used[i] {
			continue
		}
		var ring [][2]float64
		for cur := i; !used[cur]; {
			used[cur] = true
			ring = append(ring, open[cur].pts...)
			// Walk forward along the ring the chain ends on (an outer ring
			// or a hole: a chain may run from one to another) to the next
			// chain starting on it. Along each ring starts and ends
			// alternate, as the side of the coastline does.
			k := ends[cur].ring
			rg, cum := r.rings[k], r.cum[k]
			total := cum[len(cum)-1]
			from := ends[cur].pos
			next, best := -1, math.Inf(1)
			for j := range open {
				if starts[j].ring != k || (used[j] && j != i) {
					continue
				}
				if d := math.Mod(starts[j].pos-from+total, total); d < best {
					next, best = j, d
				}
			}
			if next < 0 {
				break
			}
			// The boundary vertices passed on the way, in order.
			type vp struct {
				d float64
				p [2]float64
			}
			var pass []vp
			for v := 0; v < len(rg)-1; v++ {
				if d := math.Mod(cum[v]-from+total, total); d > 0 && d < best {
					pass = append(pass, vp{d, rg[v]})
				}
			}
			sort.Slice(pass, func(a, z int) bool { return pass[a].d < pass[z].d })
			for _, v := range pass {
				ring = append(ring, v.p)
			}
			cur = next
		}
		if len(ring) >= 3 {
			seas = append(seas, append(ring, ring[0]))
		}
	}
	return seas, hasOpen
}

// addHoles makes each island a hole of the smallest sea ring (polys[i]
// has seas[i] as its exterior) that holds it; so is each hole of the
// region no chain crosses (cutouts), unless an island holds it more
// closely (it lies on land).
func addHoles(polys [][][][2]float64, seas, islands, cutouts [][][2]float64) {
	smallest := func(p [2]float64, rings [][][2]float64) (int, float64) {
		best, bestA := -1, math.Inf(1)
		for i, sr := range rings {
			if a := math.Abs(signedArea(sr)); a < bestA && pointInRing(p, sr) {
				best, bestA = i, a
			}
		}
		return best, bestA
	}
	for _, is := range islands {
		if best, _ := smallest(is[0], seas); best >= 0 {
			polys[best] = append(polys[best], is)
		}
	}
	for _, h := range cutouts {
		best, a := smallest(h[0], seas)
		if _, onLand := smallest(h[0], islands); best >= 0 && onLand > a {
			polys[best] = append(polys[best], h)
		}
	}
}

// chain is a run of joined coastline pieces and the ways it comes from.
type chain struct {
	pts  [][2]float64
	ways []int64
	cut  [2]bool // its start, its end is where the extract cut a way
}

// joinChains joins lines that continue one another (end point equals the
// next start point) into chains.
func joinChains(lines []chain) []chain {
	used := make([]bool, len(lines))
	// Index the pieces by their first point.
	byStart := make(map[[2]float64][]int, len(lines))
	byEnd := make(map[[2]float64][]int, len(lines))
	for i, l := range lines {
		byStart[l.pts[0]] = append(byStart[l.pts[0]], i)
		byEnd[l.pts[len(l.pts)-1]] = append(byEnd[l.pts[len(l.pts)-1]], i)
	}
	take := func(m map[[2]float64][]int, p [2]float64) int {
		for _, j := range m[p] {
			if !used[j] {
				return j
			}
		}
		return -1
	}
	var out []chain
	for i := range lines {
		if used[i] {
			continue
		}
		used[i] = true
		c := chain{pts: slices.Clone(lines[i].pts), ways: []int64{lines[i].ways[0]}, cut: lines[i].cut}
		for c.pts[0] != c.pts[len(c.pts)-1] {
			j := take(byStart, c.pts[len(c.pts)-1])
			if j < 0 {
				break
			}
			used[j] = true
			c.pts = append(c.pts, lines[j].pts[1:]...)
			c.ways = appendWay(c.ways, lines[j].ways[0])
			c.cut[1] = lines[j].cut[1]
		}
		for c.pts[0] != c.pts[len(c.pts)-1] {
			j := take(byEnd, c.pts[0])
			if j < 0 {
				break
			}
			used[j] = true
			l := lines[j].pts
			c.pts = append(slices.Clone(l[:len(l)-1]), c.pts...)
			c.ways = appendWay(c.ways, lines[j].ways[0])
			c.cut[0] = lines[j].cut[0]
		}
		out = append(out, c)
	}
	return out
}

func appendWay(ws []int64, id int64) []int64 {
	if slices.Contains(ws, id) {
		return ws
	}
	return append(ws, id)
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
