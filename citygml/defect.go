package citygml

import (
	"fmt"
	"math"
	"strings"
)

// Defect is one polygon of a building that failed validation: which
// surface it belongs to, which checks failed and where.
type Defect struct {
	SurfaceID string // gml:id of the surface (see Surface.ID); may be empty
	OwnerID   string // gml:id of the Building or BuildingPart it bounds
	Class     Class
	Polygon   int   // index of the polygon within the surface, from 0
	Issues    Issue // the failed checks
	// PlaneDistM is the largest distance (m) of a vertex from the
	// polygon's plane, 0 when it has no plane.
	PlaneDistM float64
	TolM       float64 // the planarity tolerance (m) it was checked with
	AreaM2     float64 // area of the exterior ring (m², 3D)
	// At is where to look (CRS of the building): the vertex farthest from
	// the plane, else the exterior ring's first point; zero without one.
	At Point
}

// Defects returns the polygons of b that fail CheckPolygon with the
// planarity tolerance tolM (m), in file order; nil for a valid building. A
// building without any polygon has one Defect with IssueTooFewPoints and no
// surface.
func Defects(b *Building, tolM float64) []Defect {
	var out []Defect
	n := 0
	for _, s := range b.Surfaces {
		for i, p := range s.Polygons {
			n++
			iss, d, at := checkPolygon(p, tolM)
			if iss != 0 {
				out = append(out, Defect{SurfaceID: s.ID, OwnerID: s.OwnerID, Class: s.Class, Polygon: i, Issues: iss,
					PlaneDistM: d, TolM: tolM, AreaM2: ringArea(p.Exterior), At: at})
			}
		}
	}
	if n == 0 {
		out = append(out, Defect{OwnerID: b.ID, Issues: IssueTooFewPoints})
	}
	return out
}

// String describes the defect in one line, for example "RoofSurface
// GEOM_12 polygon 0: non-planar (a vertex 0.083 m off the plane, tolerance
// 0.05 m) at 391234.120 5817654.330 45.200".
func (d Defect) String() string {
	var b strings.Builder
	if d.SurfaceID == "" && d.Class == Unclassified && d.Polygon == 0 && d.At == (Point{}) {
		return "no polygon: " + d.Issues.String()
	}
	cls := "polygon"
	if d.Class != Unclassified {
		cls = d.Class.String()
	}
	b.WriteString(cls)
	if d.SurfaceID != "" {
		b.WriteString(" " + d.SurfaceID)
	}
	if d.OwnerID != "" {
		b.WriteString(" of " + d.OwnerID)
	}
	fmt.Fprintf(&b, " polygon %d: %s", d.Polygon, d.Issues)
	if d.Issues&IssueNonPlanar != 0 {
		fmt.Fprintf(&b, " (a vertex %.3f m off the plane, tolerance %g m)", d.PlaneDistM, d.TolM)
	}
	if d.Issues&IssueDegenerate != 0 {
		fmt.Fprintf(&b, " (area %.4f m², less than %g m²)", d.AreaM2, MinAreaM2)
	}
	fmt.Fprintf(&b, " at %.3f %.3f %.3f", d.At[0], d.At[1], d.At[2])
	return b.String()
}

// ringArea is the 3D area (m²) a ring encloses; 0 for an empty ring.
func ringArea(r Ring) float64 {
	if len(r) == 0 {
		return 0
	}
	n := newell(r, r[0])
	return math.Sqrt(n[0]*n[0]+n[1]*n[1]+n[2]*n[2]) / 2
}
