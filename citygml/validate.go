package citygml

import (
	"math"
	"strings"
)

// Validation tolerances. The planarity tolerance is a parameter of Validate;
// DefaultPlanarityTolM is what the importer should pass.
const (
	// DefaultPlanarityTolM is the largest distance (m) of a vertex from its
	// polygon's plane for the polygon to count as planar. val3dity uses
	// 0.01 m; German LoD2 roofs are fitted to laser points and often bend a
	// few centimetres, so 0.05 m keeps the check meaningful without failing
	// a large share of real buildings (see the package tests for the rates
	// on real NRW and Berlin tiles).
	DefaultPlanarityTolM = 0.05
	// PointTolM is the distance (m) below which two points are the same
	// (ring closure, repeated and distinct points), as val3dity's snap
	// tolerance.
	PointTolM = 0.001
	// MinAreaM2 is the smallest area (m², 3D, of the exterior ring) of a
	// non-degenerate polygon.
	MinAreaM2 = 0.01
)

// Issue is a set of polygon defects, as bit flags.
type Issue uint8

// The defects found by CheckPolygon.
const (
	// IssueNotClosed: a ring's last point is not its first.
	IssueNotClosed Issue = 1 << iota
	// IssueTooFewPoints: a ring has fewer than 3 distinct points, or the
	// polygon has no exterior ring.
	IssueTooFewPoints
	// IssueRepeatedPoints: a ring repeats a point consecutively.
	IssueRepeatedPoints
	// IssueNonPlanar: a vertex lies farther than the tolerance from the
	// polygon's plane.
	IssueNonPlanar
	// IssueDegenerate: the exterior ring encloses less than MinAreaM2.
	IssueDegenerate
	numIssues = 5
)

var issueNames = [numIssues]string{"not closed", "too few points", "repeated points", "non-planar", "degenerate"}

// String lists the defects, for example "not closed, non-planar"; "" when
// there are none.
func (i Issue) String() string {
	var parts []string
	for k := range numIssues {
		if i&(1<<k) != 0 {
			parts = append(parts, issueNames[k])
		}
	}
	return strings.Join(parts, ", ")
}

// Report is the result of validating one building.
type Report struct {
	// Polygons is the number of polygons checked; Failed those with an issue.
	Polygons, Failed int
	// Issues is the union of all polygons' issues.
	Issues Issue
	// Counts counts the polygons having each issue, indexed by bit number
	// (Counts[0] for IssueNotClosed, ...).
	Counts [numIssues]int
	// MaxPlaneDistM is the largest vertex distance from its polygon's
	// plane (m) over the polygons with a measurable plane.
	MaxPlaneDistM float64
}

// OK reports whether the building passes: it has at least one polygon and
// every polygon passes.
func (r Report) OK() bool { return r.Polygons > 0 && r.Failed == 0 }

// Validate checks every polygon of b with CheckPolygon and the planarity
// tolerance tolM (m). A building with no polygon does not pass.
func Validate(b *Building, tolM float64) Report {
	var rep Report
	for _, s := range b.Surfaces {
		for _, p := range s.Polygons {
			iss, d := CheckPolygon(p, tolM)
			rep.Polygons++
			rep.MaxPlaneDistM = max(rep.MaxPlaneDistM, d)
			if iss == 0 {
				continue
			}
			rep.Failed++
			rep.Issues |= iss
			for k := range numIssues {
				if iss&(1<<k) != 0 {
					rep.Counts[k]++
				}
			}
		}
	}
	return rep
}

// CheckPolygon validates one polygon: every ring closed, with at least 3
// distinct points and no consecutive repeated point (PointTolM); the
// exterior ring's area at least MinAreaM2; every vertex within tolM (m) of
// the plane through the vertices' centroid with the exterior's Newell
// normal. It returns the issues and the largest plane distance (0 when the
// polygon is degenerate). Self-intersection and holes outside the shell are
// not checked.
func CheckPolygon(p Polygon, tolM float64) (Issue, float64) {
	iss, d, _ := checkPolygon(p, tolM)
	return iss, d
}

// checkPolygon is CheckPolygon that also returns the vertex farthest from
// the plane (the first exterior vertex when there is no plane).
func checkPolygon(p Polygon, tolM float64) (Issue, float64, Point) {
	var iss Issue
	var worst Point
	if len(p.Exterior) > 0 {
		worst = p.Exterior[0]
	}
	if len(p.Exterior) == 0 {
		iss |= IssueTooFewPoints
	}
	iss |= checkRing(p.Exterior)
	for _, r := range p.Interiors {
		iss |= checkRing(r)
	}
	if iss&IssueTooFewPoints != 0 {
		return iss, 0, worst
	}
	o := p.Exterior[0]
	n := newell(p.Exterior, o)
	area := math.Sqrt(n[0]*n[0]+n[1]*n[1]+n[2]*n[2]) / 2
	if !(area >= MinAreaM2) {
		return iss | IssueDegenerate, 0, worst
	}
	for k := range n {
		n[k] /= 2 * area
	}
	c, cnt := [3]float64{}, 0
	forVertices(p, func(q Point) {
		for k := range c {
			c[k] += q[k] - o[k]
		}
		cnt++
	})
	for k := range c {
		c[k] /= float64(cnt)
	}
	maxD := 0.0
	forVertices(p, func(q Point) {
		d := math.Abs(n[0]*(q[0]-o[0]-c[0]) + n[1]*(q[1]-o[1]-c[1]) + n[2]*(q[2]-o[2]-c[2]))
		if d > maxD {
			maxD, worst = d, q
		}
	})
	if maxD > tolM {
		iss |= IssueNonPlanar
	}
	return iss, maxD, worst
}

// forVertices calls fn for each vertex of every ring, without the closing
// repeat.
func forVertices(p Polygon, fn func(Point)) {
	each := func(r Ring) {
		if len(r) > 1 && near(r[0], r[len(r)-1]) {
			r = r[:len(r)-1]
		}
		for _, q := range r {
			fn(q)
		}
	}
	each(p.Exterior)
	for _, r := range p.Interiors {
		each(r)
	}
}

// checkRing checks closure, distinct points and consecutive repeats.
func checkRing(r Ring) Issue {
	if len(r) == 0 {
		return IssueTooFewPoints
	}
	var iss Issue
	if !near(r[0], r[len(r)-1]) || len(r) == 1 {
		iss |= IssueNotClosed
	}
	for i := 1; i < len(r); i++ {
		if near(r[i-1], r[i]) {
			iss |= IssueRepeatedPoints
			break
		}
	}
	// At least 3 distinct points: find a, then b apart from a, then c apart
	// from both, in one pass each.
	a := r[0]
	bi := -1
	for i := range r {
		if !near(r[i], a) {
			bi = i
			break
		}
	}
	if bi < 0 {
		return iss | IssueTooFewPoints
	}
	for _, q := range r[bi:] {
		if !near(q, a) && !near(q, r[bi]) {
			return iss
		}
	}
	return iss | IssueTooFewPoints
}

// near reports whether two points are within PointTolM.
func near(a, b Point) bool {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return dx*dx+dy*dy+dz*dz <= PointTolM*PointTolM
}

// newell returns the Newell normal of a ring (length = twice the enclosed
// area), computed relative to o for precision with UTM coordinates.
func newell(r Ring, o Point) [3]float64 {
	var n [3]float64
	for i := range r {
		a, b := r[i], r[(i+1)%len(r)]
		ax, ay, az := a[0]-o[0], a[1]-o[1], a[2]-o[2]
		bx, by, bz := b[0]-o[0], b[1]-o[1], b[2]-o[2]
		n[0] += (ay - by) * (az + bz)
		n[1] += (az - bz) * (ax + bx)
		n[2] += (ax - bx) * (ay + by)
	}
	return n
}
