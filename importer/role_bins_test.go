package importer

import (
	"math"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/raster"
)

// TestRoleStatsBounded feeds the role check the samples of 200 tiles: the
// memory held is the distinct centimetre (millimetre) bins, not the 1.6
// million samples, and the medians equal the exact ones to half a bin.
func TestRoleStatsBounded(t *testing.T) {
	s := newRoleStats()
	var vals, diffs []float64
	for k := range 200 {
		g := raster.Grid{Width: 256, Height: 256, Data: make([]float32, 256*256)}
		for i := range g.Data {
			x, y := float64(i%256+k*256), float64(i/256)
			g.Data[i] = float32(120 + 15*math.Sin(x/97)*math.Cos(y/131) + 3*math.Sin((x+2*y)/23))
		}
		s.addGrid(g)
		for _, rc := range samplePositions(256, 256) {
			a, b := float64(g.Data[rc[0]*256+rc[1]]), float64(g.Data[rc[0]*256+rc[1]+1])
			vals = append(vals, a)
			diffs = append(diffs, float64(float32(math.Abs(a-b))))
		}
	}
	slices.Sort(vals)
	slices.Sort(diffs)
	if s.vals.n != len(vals) || len(s.vals.count) > 5000 || len(s.diffs.count) > 5000 {
		t.Errorf("%d samples held in %d + %d bins", s.vals.n, len(s.vals.count), len(s.diffs.count))
	}
	if m := s.vals.median(); math.Abs(m-vals[len(vals)/2]) > 0.005+1e-9 {
		t.Errorf("median %.4f, exact %.4f", m, vals[len(vals)/2])
	}
	if m := s.diffs.median(); math.Abs(m-diffs[len(diffs)/2]) > 0.0005+1e-9 {
		t.Errorf("median difference %.5f, exact %.5f", m, diffs[len(diffs)/2])
	}
}
