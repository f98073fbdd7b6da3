package citygml

import (
	"strings"
	"testing"
)

func TestDefects(t *testing.T) {
	t.Parallel()
	sq := func(z3 float64) Ring { // 10 m square at 1000/2000, one corner lifted by z3
		return Ring{{1000, 2000, 50}, {1010, 2000, 50}, {1010, 2010, 50 + z3}, {1000, 2010, 50}, {1000, 2000, 50}}
	}
	for _, tc := range []struct {
		name   string
		ring   Ring
		issues Issue
		at     Point
		text   []string
	}{
		{"valid", sq(0), 0, Point{}, nil},
		{"non-planar", Ring{{1000, 2000, 50}, {1010, 2000, 50}, {1020, 2000, 50}, {1020, 2010, 50}, {1020, 2020, 50}, {1010, 2020, 50},
			{1000, 2020, 50}, {1000, 2010, 50.3}, {1000, 2000, 50}}, IssueNonPlanar, Point{1000, 2010, 50.3},
			[]string{"RoofSurface R1 of B1_part polygon 0: non-planar (a vertex 0.187 m off the plane, tolerance 0.01 m) at 1000.000 2010.000 50.300"}},
		{"not closed", sq(0)[:4], IssueNotClosed, Point{1000, 2000, 50}, []string{"not closed", "at 1000.000 2000.000 50.000"}},
		{"degenerate", Ring{{1000, 2000, 50}, {1000.02, 2000, 50}, {1000.02, 2000.02, 50}, {1000, 2000, 50}}, IssueDegenerate,
			Point{1000, 2000, 50}, []string{"degenerate (area 0.0002 m², less than 0.01 m²)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Building{ID: "B1", Surfaces: []Surface{{ID: "R1", OwnerID: "B1_part", Class: Roof, Polygons: []Polygon{{Exterior: tc.ring}}}}}
			d := Defects(b, 0.01)
			if tc.issues == 0 {
				if d != nil {
					t.Fatalf("defects %v", d)
				}
				return
			}
			if len(d) != 1 || d[0].Issues != tc.issues || d[0].At != tc.at || d[0].SurfaceID != "R1" {
				t.Fatalf("defects %+v, want issues %v at %v", d, tc.issues, tc.at)
			}
			for _, s := range tc.text {
				if !strings.Contains(d[0].String(), s) {
					t.Errorf("%q lacks %q", d[0].String(), s)
				}
			}
		})
	}
	if d := Defects(&Building{ID: "E"}, 0.01); len(d) != 1 || d[0].String() != "no polygon: too few points" {
		t.Errorf("empty building: %v", d)
	}
}
