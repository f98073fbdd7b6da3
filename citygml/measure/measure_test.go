package measure

import (
	"math"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/citygml"
)

type pt = citygml.Point

// poly builds a polygon from an exterior ring (closed here) and holes.
func poly(ext []pt, holes ...[]pt) citygml.Polygon {
	p := citygml.Polygon{Exterior: closeRing(ext)}
	for _, h := range holes {
		p.Interiors = append(p.Interiors, closeRing(h))
	}
	return p
}

func closeRing(r []pt) citygml.Ring { return append(citygml.Ring(r), r[0]) }

func surf(owner string, c citygml.Class, ps ...citygml.Polygon) citygml.Surface {
	return citygml.Surface{OwnerID: owner, Class: c, Polygons: ps}
}

// gabled returns the surfaces of a house at (x0, y0, z0): a w × d (x × y)
// box of eaves height h with a gable roof of ridge height h+r along x, all
// polygons oriented outwards. With splitFront, the front wall (y = y0) is
// two polygons meeting at x0+w/2, a T-junction on the ground edge.
func gabled(owner string, x0, y0, z0, w, d, h, r float64, splitFront bool) []citygml.Surface {
	X, Y, Z := x0+w, y0+d, z0+h
	ym, zr := y0+d/2, z0+h+r
	front := []citygml.Polygon{poly([]pt{{x0, y0, z0}, {X, y0, z0}, {X, y0, Z}, {x0, y0, Z}})}
	if splitFront {
		xm := x0 + w/2
		front = []citygml.Polygon{
			poly([]pt{{x0, y0, z0}, {xm, y0, z0}, {xm, y0, Z}, {x0, y0, Z}}),
			poly([]pt{{xm, y0, z0}, {X, y0, z0}, {X, y0, Z}, {xm, y0, Z}}),
		}
	}
	return []citygml.Surface{
		surf(owner, citygml.Ground, poly([]pt{{x0, y0, z0}, {x0, Y, z0}, {X, Y, z0}, {X, y0, z0}})),
		surf(owner, citygml.Wall, front...),
		surf(owner, citygml.Wall, poly([]pt{{X, Y, z0}, {x0, Y, z0}, {x0, Y, Z}, {X, Y, Z}})),
		surf(owner, citygml.Wall, poly([]pt{{x0, Y, z0}, {x0, y0, z0}, {x0, y0, Z}, {x0, ym, zr}, {x0, Y, Z}})),
		surf(owner, citygml.Wall, poly([]pt{{X, y0, z0}, {X, Y, z0}, {X, Y, Z}, {X, ym, zr}, {X, y0, Z}})),
		surf(owner, citygml.Roof, poly([]pt{{x0, y0, Z}, {X, y0, Z}, {X, ym, zr}, {x0, ym, zr}})),
		surf(owner, citygml.Roof, poly([]pt{{X, Y, Z}, {x0, Y, Z}, {x0, ym, zr}, {X, ym, zr}})),
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestGabledHouse checks every measure against the analytic values of a
// 20 m × 10 m house in UTM coordinates, eaves 6 m and ridge 9 m above a
// ground at 35 m: footprint 200 m², walls 2·120 + 2·(60+15) m², two roof
// planes of 20·√34 m² tilted atan(3/5) = 30.96° (medium), volume 200·6 +
// 10·3/2·20 = 1500 m³; with a T-junction, inverted, opened and with parts.
func TestGabledHouse(t *testing.T) {
	t.Parallel()
	const x0, y0, z0 = 391660.5, 5817696.25, 35.0
	roofHalf := 20 * math.Sqrt(34)
	tests := []struct {
		name      string
		surfaces  []citygml.Surface
		volume    float64
		reason    string
		footprint float64
		walls     float64
		roof      float64
	}{
		{"house", gabled("B", x0, y0, z0, 20, 10, 6, 3, false), 1500, "", 200, 390, 2 * roofHalf},
		{"T-junction in the front wall", gabled("B", x0, y0, z0, 20, 10, 6, 3, true), 1500, "", 200, 390, 2 * roofHalf},
		{"inward oriented", invert(gabled("B", x0, y0, z0, 20, 10, 6, 3, false)), 1500, "", 200, 390, 2 * roofHalf},
		{"roof plane missing", gabled("B", x0, y0, z0, 20, 10, 6, 3, false)[:6], 0,
			"building: shell not closed (4 edges without an opposite edge)", 200, 390, roofHalf},
		{"building and part", append(gabled("B", x0, y0, z0, 20, 10, 6, 3, false), gabled("P", x0+20, y0, z0, 20, 10, 6, 3, false)...),
			3000, "", 400, 780, 4 * roofHalf},
		{"open part", append(gabled("B", x0, y0, z0, 20, 10, 6, 3, false), gabled("P", x0+20, y0, z0, 20, 10, 6, 3, false)[1:]...),
			0, `building part "P": shell not closed (4 edges without an opposite edge)`, 200, 780, 4 * roofHalf},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := Of(&citygml.Building{ID: "B", Surfaces: tc.surfaces})
			if !near(m.VolumeM3, tc.volume) || m.Closed != (tc.reason == "") || m.VolumeReason != tc.reason {
				t.Errorf("volume %.9g closed %v %q; want %g %q", m.VolumeM3, m.Closed, m.VolumeReason, tc.volume, tc.reason)
			}
			if !near(m.FootprintAreaM2, tc.footprint) || m.FootprintSource != FromGround {
				t.Errorf("footprint %.9g from %s, want %g from ground", m.FootprintAreaM2, m.FootprintSource, tc.footprint)
			}
			if !near(m.WallAreaM2, tc.walls) || !near(m.RoofAreaTotalM2, tc.roof) || !near(m.RoofAreaM2[Medium], tc.roof) {
				t.Errorf("walls %.9g roof %.9g %v; want %g, %g all medium", m.WallAreaM2, m.RoofAreaTotalM2, m.RoofAreaM2, tc.walls, tc.roof)
			}
			if m.GroundZM != z0 || m.EavesZM != z0+6 || m.RidgeZM != z0+9 {
				t.Errorf("ground %g eaves %g ridge %g, want %g %g %g", m.GroundZM, m.EavesZM, m.RidgeZM, z0, z0+6., z0+9.)
			}
		})
	}
}

func invert(ss []citygml.Surface) []citygml.Surface {
	out := make([]citygml.Surface, len(ss))
	for i, s := range ss {
		out[i] = s
		out[i].Polygons = nil
		for _, p := range s.Polygons {
			r := append(citygml.Ring(nil), p.Exterior...)
			for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
				r[a], r[b] = r[b], r[a]
			}
			out[i].Polygons = append(out[i].Polygons, citygml.Polygon{Exterior: r})
		}
	}
	return out
}

// TestAreas covers holes, tilt classes and the footprint fallbacks.
func TestAreas(t *testing.T) {
	t.Parallel()
	// A 10 × 10 ground with a 2 × 3 courtyard; the hole written the same
	// way round as the exterior still counts against it.
	ground := poly([]pt{{0, 0, 0}, {0, 10, 0}, {10, 10, 0}, {10, 0, 0}}, []pt{{2, 2, 0}, {2, 5, 0}, {4, 5, 0}, {4, 2, 0}})
	if a, tilt := AreaTilt(ground); !near(a, 94) || tilt != 0 {
		t.Errorf("ground with hole: %g m² tilt %g, want 94, 0", a, tilt)
	}
	if a := PlanArea(ground); !near(a, -94) {
		t.Errorf("clockwise ground: plan area %g, want -94", a)
	}
	for _, tc := range []struct {
		deg  float64
		want TiltClass
	}{{0, Flat}, {9.99, Flat}, {10.001, Low}, {29.99, Low}, {30.001, Medium}, {44.99, Medium}, {45.001, Steep}, {90, Steep}} {
		rise := 10 * math.Tan(tc.deg*math.Pi/180)
		p := poly([]pt{{0, 0, 0}, {10, 0, 0}, {10, 10, rise}, {0, 10, rise}})
		if tc.deg == 90 {
			p = poly([]pt{{0, 0, 0}, {10, 0, 0}, {10, 0, 10}, {0, 0, 10}})
		}
		_, tilt := AreaTilt(p)
		if got := ClassOf(tilt); got != tc.want || math.Abs(tilt-tc.deg) > 1e-9 {
			t.Errorf("%g°: tilt %.12g class %s, want %s", tc.deg, tilt, got, tc.want)
		}
	}
	roofOnly := gabled("B", 0, 0, 0, 20, 10, 6, 3, false)[5:]
	m := Of(&citygml.Building{ID: "B", Surfaces: roofOnly})
	if m.FootprintSource != FromRoof || !near(m.FootprintAreaM2, 200) || m.GroundZM != 6 || m.Closed {
		t.Errorf("roof only: %+v", m)
	}
	m = Of(&citygml.Building{ID: "B"})
	if m.FootprintSource != NoFootprint || !math.IsNaN(m.GroundZM) || !math.IsNaN(m.RidgeZM) || m.Closed || m.VolumeReason != "no surfaces" {
		t.Errorf("empty: %+v", m)
	}
	if !strings.Contains(Flat.String()+Steep.String()+FromRoof.String(), "flatsteeproof") {
		t.Errorf("names %s %s %s", Flat, Steep, FromRoof)
	}
}
