package measure

import (
	"fmt"
	"math"

	"github.com/svc-geodata/svc/citygml"
)

// SnapM is the distance (m) under which two vertices are the same when
// shells are checked for closure (citygml.PointTolM, val3dity's snap
// tolerance).
const SnapM = citygml.PointTolM

// maxCheckWork caps unmatched edges × vertices of one shell for the
// T-junction search, so a hostile building cannot take quadratic time; a
// larger shell is reported as not checked.
const maxCheckWork = 16 << 20

// Volume returns the volume (m³) enclosed by the shells of b, one per
// Building or BuildingPart that has surfaces, summed; closed is false, with
// the reason, when a shell is not closed or not consistently oriented, and
// the volume is then 0. A shell is closed when, after splitting edges at
// vertices lying on them (T-junctions, within SnapM), every directed edge
// is matched by the same edge in the opposite direction. The volume of a
// closed shell is the divergence theorem over its polygons, Σ (c−o)·A / 3
// with A the polygon's vector area and c its vertex centroid; an inward
// oriented shell gives the same magnitude.
func Volume(b *citygml.Building) (volumeM3 float64, closed bool, reason string) {
	owners, byOwner := ownersOf(b)
	if len(owners) == 0 {
		return 0, false, "no surfaces"
	}
	total := 0.0
	for _, id := range owners {
		polys := byOwner[id]
		if n, err := openEdges(polys); err != nil || n > 0 {
			what := "building"
			if id != b.ID {
				what = "building part " + quote(id)
			}
			if err != nil {
				return 0, false, fmt.Sprintf("%s: %v", what, err)
			}
			return 0, false, fmt.Sprintf("%s: shell not closed (%d edges without an opposite edge)", what, n)
		}
		total += math.Abs(shellVolume(polys))
	}
	return total, true, ""
}

// ownersOf groups the polygons of b by owner, owners in order of first
// appearance.
func ownersOf(b *citygml.Building) ([]string, map[string][]citygml.Polygon) {
	var owners []string
	by := map[string][]citygml.Polygon{}
	for _, s := range b.Surfaces {
		if _, ok := by[s.OwnerID]; !ok {
			owners = append(owners, s.OwnerID)
		}
		by[s.OwnerID] = append(by[s.OwnerID], s.Polygons...)
	}
	return owners, by
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// shellVolume is the signed divergence-theorem volume of a set of
// polygons.
func shellVolume(polys []citygml.Polygon) float64 {
	var o citygml.Point
	found := false
	for _, p := range polys {
		if len(p.Exterior) > 0 {
			o, found = p.Exterior[0], true
			break
		}
	}
	if !found {
		return 0
	}
	v := 0.0
	for _, p := range polys {
		if len(p.Exterior) == 0 {
			continue
		}
		a := AreaVector(p)
		var c [3]float64
		ring := openRing(p.Exterior)
		for _, q := range ring {
			for k := range c {
				c[k] += q[k] - o[k]
			}
		}
		for k := range c {
			c[k] /= float64(len(ring))
		}
		v += dot(c, a) / 3
	}
	return v
}

// openRing drops the closing repeat of the first point.
func openRing(r citygml.Ring) citygml.Ring {
	if len(r) > 1 && r[0] == r[len(r)-1] {
		return r[:len(r)-1]
	}
	return r
}

type vkey [3]int64

func keyOf(p citygml.Point) vkey {
	return vkey{int64(math.Round(p[0] / SnapM)), int64(math.Round(p[1] / SnapM)), int64(math.Round(p[2] / SnapM))}
}

// openEdges returns the number of directed edges of the shell without an
// opposite partner, after T-junction splitting.
func openEdges(polys []citygml.Polygon) (int, error) {
	ids := map[vkey]int32{}
	var verts []citygml.Point
	id := func(p citygml.Point) int32 {
		k := keyOf(p)
		if i, ok := ids[k]; ok {
			return i
		}
		ids[k] = int32(len(verts))
		verts = append(verts, p)
		return int32(len(verts) - 1)
	}
	type edge struct{ a, b int32 }
	var edges []edge
	addRing := func(r citygml.Ring, reverse bool) {
		r = openRing(r)
		for i := range r {
			a, b := id(r[i]), id(r[(i+1)%len(r)])
			if reverse {
				a, b = b, a
			}
			if a != b {
				edges = append(edges, edge{a, b})
			}
		}
	}
	for _, p := range polys {
		if len(p.Exterior) == 0 {
			continue
		}
		addRing(p.Exterior, false)
		ne := newell(p.Exterior, p.Exterior[0])
		for _, h := range p.Interiors {
			// A hole runs against its exterior; one written the same way
			// round is taken reversed.
			addRing(h, dot(newell(h, p.Exterior[0]), ne) > 0)
		}
	}
	count := make(map[edge]int, len(edges))
	for _, e := range edges {
		count[e]++
	}
	unmatched := func() []edge {
		var out []edge
		for e, n := range count {
			for d := n - count[edge{e.b, e.a}]; d > 0; d-- {
				out = append(out, e)
			}
		}
		return out
	}
	open := unmatched()
	if len(open) == 0 {
		return 0, nil
	}
	// T-junctions: an edge of one polygon that runs along two or more
	// edges of its neighbour is matched once split at the vertices on it.
	// Only unmatched edges need splitting.
	if len(open)*len(verts) > maxCheckWork {
		return 0, fmt.Errorf("shell too large to check (%d open edges, %d vertices)", len(open), len(verts))
	}
	for _, e := range open {
		subs := split(e.a, e.b, verts)
		if len(subs) == 1 {
			continue
		}
		count[e]--
		for _, s := range subs {
			count[edge{s[0], s[1]}]++
		}
	}
	return len(unmatched()), nil
}

// split returns edge a→b as the chain of sub-edges through the vertices
// that lie on it (within SnapM), in order from a.
func split(a, b int32, verts []citygml.Point) [][2]int32 {
	pa, pb := verts[a], verts[b]
	d := [3]float64{pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]}
	l2 := dot(d, d)
	type hit struct {
		t float64
		v int32
	}
	var hits []hit
	for i, q := range verts {
		if int32(i) == a || int32(i) == b {
			continue
		}
		w := [3]float64{q[0] - pa[0], q[1] - pa[1], q[2] - pa[2]}
		t := dot(w, d) / l2
		if t <= 0 || t >= 1 {
			continue
		}
		e := [3]float64{w[0] - t*d[0], w[1] - t*d[1], w[2] - t*d[2]}
		if dot(e, e) <= SnapM*SnapM {
			hits = append(hits, hit{t, int32(i)})
		}
	}
	if len(hits) == 0 {
		return [][2]int32{{a, b}}
	}
	for i := 1; i < len(hits); i++ { // few hits: insertion sort
		for j := i; j > 0 && hits[j].t < hits[j-1].t; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	out := make([][2]int32, 0, len(hits)+1)
	prev := a
	for _, h := range hits {
		out = append(out, [2]int32{prev, h.v})
		prev = h.v
	}
	return append(out, [2]int32{prev, b})
}
