package cql2

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

var spatialOps = []string{"s_intersects", "s_disjoint", "s_equals", "s_touches", "s_within", "s_contains", "s_overlaps", "s_crosses"}

// randomWKT returns a valid geometry on the integer grid 0..8, where
// touching, shared edges and collinear overlaps are frequent.
func randomWKT(r *rand.Rand) string {
	c := func() int { return r.IntN(9) }
	switch r.IntN(7) {
	case 0:
		return fmt.Sprintf("POINT(%d %d)", c(), c())
	case 1:
		return fmt.Sprintf("MULTIPOINT((%d %d), (%d %d))", c(), c(), c(), c())
	case 2:
		for {
			x0, y0, x1, y1 := c(), c(), c(), c()
			if x0 != x1 || y0 != y1 {
				return fmt.Sprintf("LINESTRING(%d %d, %d %d)", x0, y0, x1, y1)
			}
		}
	case 3:
		for {
			x0, y0, x1, y1, x2, y2 := c(), c(), c(), c(), c(), c()
			if (x1-x0)*(y2-y0)-(y1-y0)*(x2-x0) != 0 {
				return fmt.Sprintf("LINESTRING(%d %d, %d %d, %d %d)", x0, y0, x1, y1, x2, y2)
			}
		}
	case 4:
		for {
			x0, y0, x1, y1, x2, y2 := c(), c(), c(), c(), c(), c()
			if (x1-x0)*(y2-y0)-(y1-y0)*(x2-x0) != 0 {
				return fmt.Sprintf("POLYGON((%d %d, %d %d, %d %d, %d %d))", x0, y0, x1, y1, x2, y2, x0, y0)
			}
		}
	case 5:
		x0, y0 := r.IntN(4), r.IntN(4)
		x1, y1 := x0+4+r.IntN(2), y0+4+r.IntN(2)
		return fmt.Sprintf("POLYGON((%d %d, %d %d, %d %d, %d %d, %d %d), (%d %d, %d %d, %d %d, %d %d, %d %d))",
			x0, y0, x1, y0, x1, y1, x0, y1, x0, y0,
			x0+1, y0+1, x0+1, y1-1, x1-1, y1-1, x1-1, y0+1, x0+1, y0+1)
	}
	for {
		x0, y0, x1, y1 := c(), c(), c(), c()
		if x0 < x1 && y0 < y1 {
			return fmt.Sprintf("POLYGON((%d %d, %d %d, %d %d, %d %d, %d %d))", x0, y0, x1, y0, x1, y1, x0, y1, x0, y0)
		}
	}
}

// TestSpatialGEOS compares the eight spatial predicates of Match with
// SpatiaLite's (GEOS) ST_* on 2,000 random pairs of points, lines and
// polygons (with and without holes) on a small integer grid, placed in three
// frames: the grid itself, UTM 32N magnitudes (0.5 m cells at 500 km E,
// 5,800 km N) and longitude/latitude (1e-5 degree cells near Berlin).
func TestSpatialGEOS(t *testing.T) {
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	frames := []struct {
		name string
		f    func(x, y float64) (float64, float64)
	}{
		{"grid", nil},
		{"utm", func(x, y float64) (float64, float64) { return 500000 + 0.5*x, 5800000 + 0.5*y }},
		{"lonlat", func(x, y float64) (float64, float64) { return 13.4 + 1e-5*x, 52.5 + 1e-5*y }},
	}
	for _, fr := range frames {
		t.Run(fr.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(25, 2))
			var pairs [][2]*Expr
			for i := 0; i < 2000; i++ {
				a, b := randomWKT(r), randomWKT(r)
				switch i % 10 {
				case 0: // the same geometry: S_EQUALS, S_WITHIN and S_CONTAINS hold
					b = a
				case 1: // a triangle in general position (float coordinates)
					x := func() float64 { return r.Float64() * 8 }
					x0, y0, x1, y1, x2, y2 := x(), x(), x(), x(), x(), x()
					b = fmt.Sprintf("POLYGON((%g %g, %g %g, %g %g, %g %g))", x0, y0, x1, y1, x2, y2, x0, y0)
				}
				e, err := ParseText("S_INTERSECTS(" + a + ", " + b + ")")
				if err != nil {
					t.Fatal(err)
				}
				if fr.f != nil {
					e = e.Transform(fr.f)
				}
				pairs = append(pairs, [2]*Expr{e.Args[0], e.Args[1]})
			}
			compareGEOS(t, bin, pairs)
		})
	}
}

func compareGEOS(t *testing.T, bin string, pairs [][2]*Expr) {
	t.Helper()
	var sql strings.Builder
	for i, p := range pairs {
		fmt.Fprintf(&sql, "SELECT %d", i)
		for _, op := range spatialOps {
			fmt.Fprintf(&sql, ", ST_%s(GeomFromText('%s'), GeomFromText('%s'))", strings.TrimPrefix(op, "s_"), p[0].Text(), p[1].Text())
		}
		sql.WriteString(";\n")
	}
	cmd := exec.CommandContext(t.Context(), bin, "-batch", "-bail", ":memory:")
	cmd.Stdin = strings.NewReader(sql.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spatialite: %v\n%s", err, stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Count(l, "|") == len(spatialOps) {
			lines = append(lines, l)
		}
	}
	if len(lines) != len(pairs) {
		t.Fatalf("spatialite printed %d result lines for %d pairs", len(lines), len(pairs))
	}
	wrong, nearPairs := 0, 0
	trues := make([]int, len(spatialOps))
	for i, p := range pairs {
		geos := strings.Split(lines[i], "|")[1:]
		var diffs []string
		for j, name := range spatialOps {
			e := op(name, -1, p[0], p[1])
			got, err := e.Match(Feature{})
			if err != nil {
				t.Fatal(err)
			}
			if got {
				trues[j]++
			}
			if want := geos[j] == "1"; got != want {
				diffs = append(diffs, fmt.Sprintf("%s: ours %v, GEOS %v", e.Text(), got, want))
			}
		}
		if len(diffs) == 0 {
			continue
		}
		// GEOS is exact on the float coordinates; we count a point within
		// the tolerance of a segment as on it (docs/cql2.md). A pair whose
		// parts are that close but apart is the documented difference.
		a, b := newShape(p[0].Geom), newShape(p[1].Geom)
		if minDistance(a, b) <= tolerance(a, b) {
			nearPairs++
			continue
		}
		for _, d := range diffs {
			wrong++
			if wrong <= 20 {
				t.Error(d)
			}
		}
	}
	t.Logf("%d pairs x %d predicates, %d disagreements with GEOS, %d pairs apart by less than the tolerance (GEOS: apart, ours: touching); true per predicate %v: %v",
		len(pairs), len(spatialOps), wrong, nearPairs, spatialOps, trues)
	for j, n := range trues {
		if n == 0 {
			t.Errorf("%s never true: the random pairs do not exercise it", spatialOps[j])
		}
	}
}

// minDistance is the distance between two shapes that do not cross: the
// least distance from a vertex of one to a segment or point of the other.
func minDistance(a, b *shape) float64 {
	d := math.Inf(1)
	for _, pair := range [2][2]*shape{{a, b}, {b, a}} {
		for _, v := range pair[0].vertices() {
			pair[1].segments(func(p, q pt) { d = math.Min(d, segmentDistance(v, p, q)) })
			for _, x := range pair[1].points {
				d = math.Min(d, math.Hypot(v.x-x.x, v.y-x.y))
			}
		}
	}
	return d
}

func (s *shape) vertices() []pt {
	out := append([]pt(nil), s.points...)
	for _, l := range s.lines {
		out = append(out, l...)
	}
	for _, poly := range s.polys {
		for _, r := range poly {
			out = append(out, r...)
		}
	}
	return out
}

func segmentDistance(v, p, q pt) float64 {
	dx, dy := q.x-p.x, q.y-p.y
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((v.x-p.x)*dx+(v.y-p.y)*dy)/l2))
	}
	return math.Hypot(v.x-(p.x+t*dx), v.y-(p.y+t*dy))
}
