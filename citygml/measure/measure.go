// Package measure derives per-building measures from the LoD2 geometry of a
// citygml.Building: footprint area, ground, eaves and ridge heights, roof
// area by tilt class, wall area and, for closed shells, the volume. The
// functions are pure; docs/buildings-attributes.md defines each measure.
//
// Coordinates are those of the file: x, y in the building's UTM CRS
// (metres), z normal heights (DHHN2016 in LoD2-DE files). Areas are in m²,
// volumes in m³, heights in metres in the file's height system.
package measure

import (
	"math"

	"github.com/svc-geodata/svc/citygml"
)

// TiltClass is a class of roof slope.
type TiltClass uint8

// The roof tilt classes, by the angle between a roof polygon's plane and the
// horizontal: Flat below 10°, Low 10° to below 30°, Medium 30° to below 45°,
// Steep 45° and more.
const (
	Flat TiltClass = iota
	Low
	Medium
	Steep
	numTilt
)

// Tilt class bounds (degrees): a polygon tilted t° is in the first class
// whose upper bound exceeds t.
const (
	FlatMaxDeg   = 10.0
	LowMaxDeg    = 30.0
	MediumMaxDeg = 45.0
)

// String returns "flat", "low", "medium" or "steep".
func (c TiltClass) String() string {
	return [...]string{"flat", "low", "medium", "steep", "?"}[min(c, numTilt)]
}

// ClassOf returns the tilt class of a slope of deg degrees.
func ClassOf(deg float64) TiltClass {
	switch {
	case deg < FlatMaxDeg:
		return Flat
	case deg < LowMaxDeg:
		return Low
	case deg < MediumMaxDeg:
		return Medium
	}
	return Steep
}

// FootprintSource says which surfaces the footprint area comes from.
type FootprintSource uint8

// The footprint sources.
const (
	// NoFootprint: the building has neither ground nor roof surfaces.
	NoFootprint FootprintSource = iota
	// FromGround: the horizontal area of the GroundSurfaces.
	FromGround
	// FromRoof: the roof surfaces projected on the horizontal plane (a
	// building without GroundSurfaces).
	FromRoof
)

// String returns "none", "ground" or "roof".
func (s FootprintSource) String() string {
	return [...]string{"none", "ground", "roof"}[min(s, FromRoof)]
}

// Measures are the derived measures of one building (with all its parts).
type Measures struct {
	// FootprintAreaM2 is the area of the footprint projected on the
	// horizontal plane (m²), from FootprintSource; 0 with NoFootprint.
	FootprintAreaM2 float64
	FootprintSource FootprintSource
	// GroundZM is the lowest z of the GroundSurfaces (else of all
	// surfaces); EavesZM the lowest z of the RoofSurfaces, RidgeZM their
	// highest z. NaN when there are no such points. Heights above ground are
	// EavesZM-GroundZM and RidgeZM-GroundZM.
	GroundZM, EavesZM, RidgeZM float64
	// RoofAreaM2 is the 3D area of the RoofSurface polygons per tilt class
	// (index a TiltClass); RoofAreaTotalM2 their sum.
	RoofAreaM2      [numTilt]float64
	RoofAreaTotalM2 float64
	// WallAreaM2 is the 3D area of the WallSurface polygons (ClosureSurfaces
	// are not walls and not counted).
	WallAreaM2 float64
	// VolumeM3 is the enclosed volume (m³) when Closed, else 0.
	VolumeM3 float64
	// Closed reports whether every Building or BuildingPart with surfaces
	// has a closed, consistently oriented shell; VolumeReason says why not
	// ("" when Closed).
	Closed       bool
	VolumeReason string
}

// Of returns the measures of b. A building without surfaces has zero areas,
// NaN heights and no volume.
func Of(b *citygml.Building) Measures {
	m := Measures{GroundZM: math.NaN(), EavesZM: math.NaN(), RidgeZM: math.NaN()}
	var groundA, roofPlanA float64
	hasGround, hasRoof := false, false
	lowAll := math.Inf(1)
	for _, s := range b.Surfaces {
		for _, p := range s.Polygons {
			lo, hi := zRange(p)
			lowAll = math.Min(lowAll, lo)
			switch s.Class {
			case citygml.Ground:
				hasGround = true
				groundA += math.Abs(PlanArea(p))
				m.GroundZM = nanMin(m.GroundZM, lo)
			case citygml.Roof:
				hasRoof = true
				roofPlanA += math.Abs(PlanArea(p))
				m.EavesZM = nanMin(m.EavesZM, lo)
				m.RidgeZM = nanMax(m.RidgeZM, hi)
				a, tilt := AreaTilt(p)
				m.RoofAreaM2[ClassOf(tilt)] += a
				m.RoofAreaTotalM2 += a
			case citygml.Wall:
				a, _ := AreaTilt(p)
				m.WallAreaM2 += a
			}
		}
	}
	switch {
	case hasGround:
		m.FootprintAreaM2, m.FootprintSource = groundA, FromGround
	case hasRoof:
		m.FootprintAreaM2, m.FootprintSource = roofPlanA, FromRoof
	}
	if math.IsNaN(m.GroundZM) && !math.IsInf(lowAll, 1) {
		m.GroundZM = lowAll
	}
	m.VolumeM3, m.Closed, m.VolumeReason = Volume(b)
	return m
}

// zRange returns the lowest and highest z of a polygon's exterior ring
// (+Inf, -Inf for an empty ring).
func zRange(p citygml.Polygon) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, q := range p.Exterior {
		lo, hi = math.Min(lo, q[2]), math.Max(hi, q[2])
	}
	return lo, hi
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || b < a {
		return b
	}
	return a
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}
