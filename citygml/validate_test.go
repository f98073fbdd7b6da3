package citygml

import (
	"math"
	"testing"
)

// square returns a closed axis-aligned square ring of side s at height z,
// offset to UTM-like coordinates to exercise precision.
func square(s, z float64) Ring {
	const x, y = 391000, 5817000
	return Ring{{x, y, z}, {x + s, y, z}, {x + s, y + s, z}, {x, y + s, z}, {x, y, z}}
}

func TestCheckPolygon(t *testing.T) {
	t.Parallel()
	bent := square(10, 50)
	bent[2][2] += 0.4
	slightly := square(10, 50)
	slightly[2][2] += 0.02
	open := square(10, 50)
	open = open[:4]
	repeated := append(Ring{}, square(10, 50)[:2]...)
	repeated = append(repeated, repeated[1])
	repeated = append(repeated, square(10, 50)[2:]...)
	line := Ring{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 0, 0}}
	twoPts := Ring{{0, 0, 0}, {1, 0, 0}, {1, 0, 0}, {0, 0, 0}}
	tests := []struct {
		name string
		p    Polygon
		want Issue
	}{
		{"square", Polygon{Exterior: square(10, 50)}, 0},
		{"square with hole", Polygon{Exterior: square(10, 50), Interiors: []Ring{square(2, 50)}}, 0},
		{"within tolerance", Polygon{Exterior: slightly}, 0},
		{"non-planar", Polygon{Exterior: bent}, IssueNonPlanar},
		{"hole off plane", Polygon{Exterior: square(10, 50), Interiors: []Ring{square(2, 51)}}, IssueNonPlanar},
		{"not closed", Polygon{Exterior: open}, IssueNotClosed},
		{"hole not closed", Polygon{Exterior: square(10, 50), Interiors: []Ring{square(2, 50)[:4]}}, IssueNotClosed},
		{"repeated point", Polygon{Exterior: repeated}, IssueRepeatedPoints},
		{"collinear", Polygon{Exterior: line}, IssueDegenerate},
		{"two distinct points", Polygon{Exterior: twoPts}, IssueTooFewPoints | IssueRepeatedPoints},
		{"tiny", Polygon{Exterior: square(0.05, 50)}, IssueDegenerate},
		{"no exterior", Polygon{}, IssueTooFewPoints},
		{"single point", Polygon{Exterior: Ring{{1, 2, 3}}}, IssueTooFewPoints | IssueNotClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := CheckPolygon(tc.p, DefaultPlanarityTolM)
			if got != tc.want {
				t.Fatalf("CheckPolygon = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPlaneDistance(t *testing.T) {
	t.Parallel()
	r := square(10, 50)
	r[2][2] += 0.2
	_, d := CheckPolygon(Polygon{Exterior: r}, 1)
	// One corner lifted by h off a square: the best plane through the
	// centroid leaves every vertex h/4 away.
	if math.Abs(d-0.05) > 1e-4 {
		t.Fatalf("plane distance %g, want 0.05", d)
	}
}

func TestValidateBuilding(t *testing.T) {
	t.Parallel()
	good := Surface{Class: Roof, Polygons: []Polygon{{Exterior: square(10, 50)}}}
	bad := Surface{Class: Wall, Polygons: []Polygon{{Exterior: square(10, 50)[:4]}, {Exterior: square(0.01, 1)}}}
	tests := []struct {
		name   string
		b      Building
		ok     bool
		failed int
	}{
		{"all good", Building{Surfaces: []Surface{good, good}}, true, 0},
		{"one bad", Building{Surfaces: []Surface{good, bad}}, false, 2},
		{"no geometry", Building{}, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := Validate(&tc.b, DefaultPlanarityTolM)
			if rep.OK() != tc.ok || rep.Failed != tc.failed {
				t.Fatalf("Validate = %+v, want ok %v failed %d", rep, tc.ok, tc.failed)
			}
		})
	}
	rep := Validate(&Building{Surfaces: []Surface{bad}}, DefaultPlanarityTolM)
	if rep.Issues != IssueNotClosed|IssueDegenerate || rep.Counts[0] != 1 || rep.Counts[4] != 1 {
		t.Fatalf("report %+v", rep)
	}
	if s := rep.Issues.String(); s != "not closed, degenerate" {
		t.Fatalf("Issues.String() = %q", s)
	}
}

// TestSamplePassRates pins the validation_pass_pct of the real samples at
// several tolerances, which is how DefaultPlanarityTolM was chosen.
func TestSamplePassRates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		tol  float64
		pass int
	}{
		{sampleNW, 0.01, 98}, {sampleNW, DefaultPlanarityTolM, 100}, {sampleNW, 0.5, 104},
		{sampleBE, 0.01, 161}, {sampleBE, DefaultPlanarityTolM, 165}, {sampleBE, 0.5, 165},
	}
	cache := map[string][]*Building{}
	for _, tc := range tests {
		bs, ok := cache[tc.path]
		if !ok {
			bs = readFile(t, samplePath(t, tc.path))
			cache[tc.path] = bs
		}
		pass := 0
		for _, b := range bs {
			if Validate(b, tc.tol).OK() {
				pass++
			}
		}
		if pass != tc.pass {
			t.Errorf("%s at %g m: %d of %d pass, want %d", tc.path, tc.tol, pass, len(bs), tc.pass)
		}
	}
}
