package osmdata

// assemble builds the polygons of a multipolygon relation from its outer
// and inner member ways, which OSM stores unordered and split anywhere:
// ways are joined end to end (either direction) until each ring closes.
// It fails (the relation is skipped) when a member way is missing from the
// extract, a node is missing, or a ring does not close. Each inner ring
// goes to the first outer ring that contains its first point.
func assemble(outer, inner []int64, nodesOf func(int64) ([]int64, bool), line func([]int64) ([][2]float64, bool)) ([][][][2]float64, bool) {
	outerRings, ok := rings(outer, nodesOf, line)
	if !ok || len(outerRings) == 0 {
		return nil, false
	}
	innerRings, ok := rings(inner, nodesOf, line)
	if !ok {
		return nil, false
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
	return polys, true
}

// rings joins ways into closed rings.
func rings(ids []int64, nodesOf func(int64) ([]int64, bool), line func([]int64) ([][2]float64, bool)) ([][][2]float64, bool) {
	var parts [][]int64
	for _, id := range ids {
		n, ok := nodesOf(id)
		if !ok || len(n) < 2 {
			return nil, false
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
				break
			}
			if !grown {
				return nil, false
			}
		}
		if len(ring) < 4 {
			return nil, false
		}
		pts, ok := line(ring)
		if !ok {
			return nil, false
		}
		out = append(out, pts)
	}
	return out, true
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
