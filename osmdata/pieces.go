package osmdata

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/svc-geodata/svc/geo"
)

// noCoord marks a node the extract lacks in the coordinate table.
const noCoord = math.MinInt32

// appendIDs appends a list of ids, its length then zigzag varint gaps.
func appendIDs(b []byte, ids []int64) []byte {
	b = binary.AppendUvarint(b, uint64(len(ids)))
	prev := int64(0)
	for _, id := range ids {
		b = binary.AppendVarint(b, id-prev)
		prev = id
	}
	return b
}

// readIDs reads a list appendIDs wrote.
func readIDs(b []byte) []int64 {
	n, k := binary.Uvarint(b)
	b = b[k:]
	out := make([]int64, 0, min(n, uint64(len(b))))
	prev := int64(0)
	for range n {
		d, k := binary.Varint(b)
		if k <= 0 {
			break
		}
		b = b[k:]
		prev += d
		out = append(out, prev)
	}
	return out
}

// keepProbes is how many points of a feature Options.Keep is asked about.
const keepProbes = 8

// keeps reports whether keep keeps any of up to keepProbes points spread
// over the feature's outer rings and lines.
func keeps(f Feature, z geo.Zone, keep func(lon, lat float64) bool) bool {
	var pts [][2]float64
	for _, p := range f.Polygons {
		if len(p) > 0 {
			pts = append(pts, p[0]...)
		}
	}
	for _, l := range f.Lines {
		pts = append(pts, l...)
	}
	if len(pts) == 0 {
		return false
	}
	step := max(1, len(pts)/keepProbes)
	for i := 0; i < len(pts); i += step {
		if keep(geo.FromUTM(z, pts[i][0], pts[i][1])) {
			return true
		}
	}
	return false
}

type countingReader struct {
	r io.Reader
	n int64
	// seen, when set, is told base+n after each read (Options.Progress).
	seen func(int64)
	base int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.seen != nil && n > 0 {
		c.seen(c.base + c.n)
	}
	return n, err
}

// bufferLine turns a polyline into one polygon per segment, half wide on
// each side (hedges are metres wide; the segments overlap at the joints,
// which a flat cover does not show).
func bufferLine(pts [][2]float64, half float64) [][][][2]float64 {
	var out [][][][2]float64
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*half, dx/l*half
		ring := [][2]float64{{a[0] + nx, a[1] + ny}, {a[0] - nx, a[1] - ny}, {b[0] - nx, b[1] - ny}, {b[0] + nx, b[1] + ny}, {a[0] + nx, a[1] + ny}}
		out = append(out, [][][2]float64{ring})
	}
	return out
}

// coastRuns is a coastline way as CoastLines: whole, or its runs of
// present nodes, each end flagged when a missing node (the extract's cut)
// ends it.
func coastRuns(id int64, ids []int64, line func([]int64) ([][2]float64, bool)) []CoastLine {
	var out []CoastLine
	cur := CoastLine{WayID: id}
	for _, n := range ids {
		p, ok := line([]int64{n})
		if !ok {
			if len(cur.Points) >= 2 {
				cur.CutEnd = true
				out = append(out, cur)
			}
			cur = CoastLine{WayID: id, CutStart: true}
			continue
		}
		cur.Points = append(cur.Points, p[0])
	}
	if len(cur.Points) >= 2 {
		out = append(out, cur)
	}
	return out
}

// runs splits a way into its pieces of at least two consecutive nodes
// that the extract has.
func runs(ids []int64, line func([]int64) ([][2]float64, bool)) [][][2]float64 {
	var out [][][2]float64
	var cur [][2]float64
	for _, id := range ids {
		p, ok := line([]int64{id})
		if !ok {
			if len(cur) >= 2 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, p[0])
	}
	if len(cur) >= 2 {
		out = append(out, cur)
	}
	return out
}
