package cql2

import (
	"bytes"
	"fmt"
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
// SpatiaLite's (GEOS) ST_* on 2,000 random pairs of points, lines and polygons
// (with and without holes) on a small integer grid.
func TestSpatialGEOS(t *testing.T) {
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	r := rand.New(rand.NewPCG(25, 2))
	type pair struct{ a, b string }
	var pairs []pair
	var sql strings.Builder
	for i := 0; i < 2000; i++ {
		p := pair{randomWKT(r), randomWKT(r)}
		switch i % 10 {
		case 0: // the same geometry: S_EQUALS, S_WITHIN and S_CONTAINS hold
			p.b = p.a
		case 1: // a triangle in general position (float coordinates)
			x := func() float64 { return r.Float64() * 8 }
			x0, y0, x1, y1, x2, y2 := x(), x(), x(), x(), x(), x()
			p.b = fmt.Sprintf("POLYGON((%g %g, %g %g, %g %g, %g %g))", x0, y0, x1, y1, x2, y2, x0, y0)
		}
		pairs = append(pairs, p)
		fmt.Fprintf(&sql, "SELECT %d", i)
		for _, op := range spatialOps {
			fmt.Fprintf(&sql, ", ST_%s(GeomFromText('%s'), GeomFromText('%s'))", strings.TrimPrefix(op, "s_"), p.a, p.b)
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
	wrong := 0
	trues := make([]int, len(spatialOps))
	for i, p := range pairs {
		geos := strings.Split(lines[i], "|")[1:]
		for j, op := range spatialOps {
			filter := fmt.Sprintf("%s(%s, %s)", strings.ToUpper(op), p.a, p.b)
			e, err := ParseText(filter)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Match(Feature{})
			if err != nil {
				t.Fatal(err)
			}
			if got {
				trues[j]++
			}
			if want := geos[j] == "1"; got != want {
				wrong++
				if wrong <= 20 {
					t.Errorf("%s: ours %v, GEOS %v", filter, got, want)
				}
			}
		}
	}
	t.Logf("%d pairs x %d predicates, %d disagreements with GEOS; true per predicate %v: %v", len(pairs), len(spatialOps), wrong, spatialOps, trues)
	for j, n := range trues {
		if n == 0 {
			t.Errorf("%s never true: the random pairs do not exercise it", spatialOps[j])
		}
	}
}
