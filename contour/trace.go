package contour

import (
	"math"
)

// Line is one contour line on a grid: XY holds x, y pairs in grid
// coordinates, where node (i, j) - the centre of pixel column i, row j - is
// at x = i, y = j. A closed line repeats its first point at the end.
type Line struct {
	Level float64
	XY    []float64
}

// tolerance is GDAL's: a value within it of a level counts as above the
// level, moved up by it (marching_squares/utility.h, fudge).
const tolerance = 1e-6

func fudge(v, level float64) float64 {
	if math.Abs(v-level) < tolerance {
		return v + tolerance
	}
	return v
}

// Trace returns the contour lines of a grid of w x h values (row by row,
// NaN for no data) at every multiple of interval, as gdal_contour -i
// interval draws them: marching squares over the cells between four
// pixel centres, a corner is above a level when its value (moved up by
// 1e-6 when within 1e-6 of the level) is greater, the crossing is linear
// along the cell edge, a saddle is resolved by the mean of its corners,
// and a cell with a NaN corner draws nothing, so no data breaks a line.
// Lines are joined across cells; they are ordered by level, then by their
// first segment in row order. An empty or all-NaN grid gives no lines.
func Trace(data []float32, w, h int, interval float64) []Line {
	if w < 2 || h < 2 || len(data) < w*h || !(interval > 0) {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range data[:w*h] {
		if v == v {
			lo, hi = min(lo, float64(v)), max(hi, float64(v))
		}
	}
	if lo > hi {
		return nil
	}
	k0 := int64(math.Ceil((lo - tolerance) / interval))
	k1 := int64(math.Floor((hi + tolerance) / interval))
	if k1-k0 > maxLevels {
		k1 = k0 + maxLevels
	}
	t := tracer{data: data, w: w, interval: interval, k0: k0, segs: make([][]int64, k1-k0+1)}
	for j := 0; j+1 < h; j++ {
		for i := 0; i+1 < w; i++ {
			t.cell(i, j)
		}
	}
	var out []Line
	for k, s := range t.segs {
		if len(s) > 0 {
			out = t.join(out, float64(k0+int64(k))*interval, s)
		}
	}
	return out
}

// maxLevels bounds the levels one grid is traced at (a DGM spans a few
// hundred metres in a tile; this only guards against absurd values).
const maxLevels = 1 << 14

type tracer struct {
	data     []float32
	w        int
	interval float64
	k0       int64 // the level number of segs[0]
	// segs holds, per level number k0+k (level (k0+k)*interval), the segments as
	// pairs of edge ids: (node index)*2, +1 for the vertical edge below
	// the node, +0 for the horizontal edge to its right.
	segs [][]int64
}

func (t *tracer) cell(i, j int) {
	n := j*t.w + i
	a, b := float64(t.data[n]), float64(t.data[n+1])
	d, c := float64(t.data[n+t.w]), float64(t.data[n+t.w+1])
	top, bottom := int64(n)*2, int64(n+t.w)*2
	left, right := int64(n)*2+1, int64(n+1)*2+1
	na, nb, nc, nd := math.IsNaN(a), math.IsNaN(b), math.IsNaN(c), math.IsNaN(d)
	switch {
	case na && nb && nc && nd:
		return
	case !na && !nb && !nc && !nd:
		t.square(a, b, c, d, top, right, bottom, left)
		return
	}
	// A cell with NoData corners is split in four, as GDAL does: each
	// valid corner's quarter, with the edge centres and the cell centre
	// valued from the valid corners only, so a line ends half a pixel
	// into the gap instead of at the last full cell.
	uc, lc, rc, bc, cc := t.centres(n)
	if !na {
		t.square(a, uc, cc, lc, top, inner(n, 0), inner(n, 1), left)
	}
	if !nb {
		t.square(uc, b, rc, cc, top, right, inner(n, 2), inner(n, 0))
	}
	if !nd {
		t.square(lc, cc, bc, d, inner(n, 1), inner(n, 3), bottom, left)
	}
	if !nc {
		t.square(cc, rc, c, bc, inner(n, 2), right, bottom, inner(n, 3))
	}
}

// inner is the id of half-line k inside cell n (0 from the top edge's
// centre to the cell centre, 1 from the left's, 2 from the right's, 3
// from the bottom's); negative, apart from the grid edges' ids.
func inner(n int, k int64) int64 { return -(int64(n)*4 + k + 1) }

// centres are the values GDAL gives the edge centres (top, left, right,
// bottom) and the centre of the cell whose top-left node is n: the mean of
// the valid corners.
func (t *tracer) centres(n int) (uc, lc, rc, bc, cc float64) {
	a, b := float64(t.data[n]), float64(t.data[n+1])
	d, c := float64(t.data[n+t.w]), float64(t.data[n+t.w+1])
	mid := func(p, q float64) float64 {
		switch {
		case math.IsNaN(p):
			return q
		case math.IsNaN(q):
			return p
		}
		return (p + q) / 2
	}
	sum, k := 0.0, 0
	for _, v := range [4]float64{a, b, c, d} {
		if !math.IsNaN(v) {
			sum += v
			k++
		}
	}
	return mid(a, b), mid(a, d), mid(b, c), mid(d, c), sum / float64(k)
}

// square emits the segments of one square (a cell or a quarter of one)
// with corner values ul, ur, lr, ll and edge ids top, right, bottom, left
// at every level between its lowest and highest value.
func (t *tracer) square(ul, ur, lr, ll float64, top, right, bottom, left int64) {
	lo, hi := min(ul, ur, lr, ll), max(ul, ur, lr, ll)
	k := max(int64(math.Ceil((lo-tolerance)/t.interval)), t.k0)
	for ; float64(k)*t.interval <= hi+tolerance && k-t.k0 < int64(len(t.segs)); k++ {
		l := float64(k) * t.interval
		code := 0
		for bit, v := range [4]float64{ll, lr, ur, ul} {
			if fudge(v, l) > l {
				code |= 1 << bit
			}
		}
		s := t.segs[k-t.k0]
		switch code {
		case 0, 15:
			continue
		case 1, 14:
			s = append(s, left, bottom)
		case 2, 13:
			s = append(s, bottom, right)
		case 3, 12:
			s = append(s, left, right)
		case 4, 11:
			s = append(s, top, right)
		case 6, 9:
			s = append(s, top, bottom)
		case 7, 8:
			s = append(s, left, top)
		case 5, 10:
			// Saddle: GDAL always cuts off the lower left and the upper
			// right corner, whatever the centre (marching_squares/square.h).
			s = append(s, left, bottom, right, top)
		}
		t.segs[k-t.k0] = s
	}
}

// vertex is where the level crosses edge e.
func (t *tracer) vertex(e int64, l float64) (x, y float64) {
	if e < 0 {
		return t.innerVertex(int((-e-1)/4), (-e-1)%4, l)
	}
	n := int(e >> 1)
	i, j := n%t.w, n/t.w
	other := n + 1
	if e&1 == 1 {
		other = n + t.w
	}
	f0, f1 := fudge(float64(t.data[n]), l), fudge(float64(t.data[other]), l)
	r := (l - f0) / (f1 - f0)
	if e&1 == 1 {
		return float64(i), float64(j) + r
	}
	return float64(i) + r, float64(j)
}

// innerVertex is where the level crosses half-line k of cell n.
func (t *tracer) innerVertex(n int, k int64, l float64) (x, y float64) {
	i, j := float64(n%t.w), float64(n/t.w)
	uc, lc, rc, bc, cc := t.centres(n)
	px, py, v := i+0.5, j, uc
	switch k {
	case 1:
		px, py, v = i, j+0.5, lc
	case 2:
		px, py, v = i+1, j+0.5, rc
	case 3:
		px, py, v = i+0.5, j+1, bc
	}
	f0, f1 := fudge(v, l), fudge(cc, l)
	r := (l - f0) / (f1 - f0)
	return px + r*(i+0.5-px), py + r*(j+0.5-py)
}

// join links the segments of one level into lines: each edge is shared by
// at most two segments (the cells on either side), so the lines are the
// paths and cycles of that graph.
func (t *tracer) join(out []Line, l float64, segs []int64) []Line {
	ns := len(segs) / 2
	at := make(map[int64][2]int32, len(segs))
	for s := range ns {
		for _, e := range segs[2*s : 2*s+2] {
			v := at[e]
			if v[0] == 0 {
				v[0] = int32(s + 1)
			} else {
				v[1] = int32(s + 1)
			}
			at[e] = v
		}
	}
	used := make([]bool, ns)
	walk := func(s int, from int64) {
		x, y := t.vertex(from, l)
		xy := []float64{x, y}
		e := from
		for s >= 0 && !used[s] {
			used[s] = true
			next := segs[2*s]
			if next == e {
				next = segs[2*s+1]
			}
			x, y := t.vertex(next, l)
			xy = append(xy, x, y)
			e = next
			v := at[e]
			s = -1
			for _, o := range v {
				if o != 0 && !used[o-1] {
					s = int(o - 1)
				}
			}
		}
		out = append(out, Line{Level: l, XY: xy})
	}
	// Open lines start at an edge only one segment holds.
	for s := range ns {
		for _, e := range segs[2*s : 2*s+2] {
			if !used[s] && at[e][1] == 0 {
				walk(s, e)
			}
		}
	}
	for s := range ns {
		if !used[s] {
			walk(s, segs[2*s])
		}
	}
	return out
}
