package osmdata

import "fmt"

// unassembled says why a multipolygon relation could not be assembled and,
// when known, the id of a node of it next to the trouble (0: none).
type unassembled struct {
	why  string
	node int64
}

// assemble builds the polygons of a multipolygon relation from its outer
// and inner member ways, which OSM stores unordered and split anywhere:
// ways are joined end to end (either direction) until each ring closes.
// It fails (the relation is skipped) when a member way is missing from the
// extract, a node is missing, or a ring does not close, and says which.
// Each inner ring goes to the first outer ring that contains its first
// point.
func assemble(outer, inner []int64, nodesOf func(int64) ([]int64, bool), line func([]int64) ([][2]float64, bool)) ([][][][2]float64, *unassembled) {
	outerRings, fail := rings(outer, nodesOf, line)
	if fail != nil {
		return nil, fail
	}
	if len(outerRings) == 0 {
		return nil, &unassembled{why: "no outer ring"}
	}
	innerRings, fail := rings(inner, nodesOf, line)
	if fail != nil {
		return nil, fail
	}
	polys := make([][][][2]float64, len(outerRings))
	for i, r := range outerRings {
		polys[i] = [][][2]float64{r}
	}
	for _, h := range innerRings {
		for i, r := range outerRings {
			if pointInRing(h[0], r) {
				polys[i] = append(polys[i], h)
				break
			}
		}
	}
	return polys, nil
}

// rings joins ways into closed rings.
func rings(ids []int64, nodesOf func(int64) ([]int64, bool), line func([]int64) ([][2]float64, bool)) ([][][2]float64, *unassembled) {
	var parts [][]int64
	for _, id := range ids {
		n, ok := nodesOf(id)
		if !ok {
			return nil, &unassembled{why: fmt.Sprintf("member way %d is not in the extract", id)}
		}
		if len(n) < 2 {
			return nil, &unassembled{why: fmt.Sprintf("member way %d has fewer than 2 nodes", id)}
		}
		parts = append(parts, n)
	}
	var out [][][2]float64
	used := make([]bool, len(parts))
	for i := range parts {
		if used[i] {
			continue
		}
		used[i] = true
		in := []int{i} // the parts the ring is made of
		ring := append([]int64(nil), parts[i]...)
		for ring[0] != ring[len(ring)-1] {
			grown := false
			for j := range parts {
				if used[j] {
					continue
				}
				p := parts[j]
				end := ring[len(ring)-1]
				switch {
				case p[0] == end:
					ring = append(ring, p[1:]...)
				case p[len(p)-1] == end:
					for k := len(p) - 2; k >= 0; k-- {
						ring = append(ring, p[k])
					}
				default:
					continue
				}
				used[j], grown = true, true
				in = append(in, j)
				break
			}
			if !grown {
				end := ring[len(ring)-1]
				return nil, &unassembled{why: fmt.Sprintf("its ring through member way %d does not close: no member way goes on from node %d", ids[i], end), node: end}
			}
		}
		if len(ring) < 4 {
			return nil, &unassembled{why: fmt.Sprintf("its ring through member way %d has fewer than 3 nodes", ids[i])}
		}
		pts, ok := line(ring)
		if !ok {
			// A member cut by the extract: name it and a node next to the
			// cut (looked for only now: most relations are whole).
			for _, j := range in {
				if missing, near := cutOf(parts[j], line); missing > 0 {
					return nil, &unassembled{why: fmt.Sprintf("member way %d is cut by the extract: %d of its %d nodes missing", ids[j], missing, len(parts[j])), node: near}
				}
			}
			return nil, &unassembled{why: fmt.Sprintf("its ring through member way %d lacks nodes", ids[i])}
		}
		out = append(out, pts)
	}
	return out, nil
}

// cutOf counts the nodes of a way the extract lacks and returns a present
// node next to the first missing one (0 when none is present).
func cutOf(ids []int64, line func([]int64) ([][2]float64, bool)) (missing int, near int64) {
	prev := int64(0)
	for _, id := range ids {
		if _, ok := line([]int64{id}); ok {
			if missing > 0 && near == 0 {
				near = id
			}
			prev = id
			continue
		}
		if missing == 0 && prev != 0 {
			near = prev
		}
		missing++
	}
	return missing, near
}

// pointInRing is the even-odd rule.
func pointInRing(p [2]float64, ring [][2]float64) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}
