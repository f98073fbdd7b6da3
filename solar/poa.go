package solar

import (
	"fmt"
	"math"
)

// Facet is a plane surface: tilt from the horizontal (0 = flat, 90 =
// vertical wall), azimuth of its downslope normal from north, eastward (180 =
// facing south), and the sky-view factor.
type Facet struct {
	TiltDeg    float64
	AzimuthDeg float64
	// SkyView is the fraction of the sky the unobstructed plane would see
	// that remains visible past terrain, buildings and trees (1 = nothing in
	// the way); it scales the isotropic and horizon-band diffuse parts.
	SkyView float64
}

// Components are irradiation sums on a plane in Wh/m².
type Components struct {
	Beam   float64 // direct beam reaching the plane
	Sky    float64 // sky diffuse reaching the plane (circumsolar, isotropic, horizon band)
	Ground float64 // reflected from the ground in front of the plane
	// BeamUnshaded and SkyUnshaded are Beam and Sky with every beam
	// visibility 1 and SkyView 1: their difference to Beam and Sky is the
	// loss by shading.
	BeamUnshaded, SkyUnshaded float64
}

// Global is the sum reaching the plane: beam + sky + ground, Wh/m².
func (c Components) Global() float64 { return c.Beam + c.Sky + c.Ground }

// GlobalUnshaded is Global without shading, Wh/m².
func (c Components) GlobalUnshaded() float64 { return c.BeamUnshaded + c.SkyUnshaded + c.Ground }

func (c *Components) add(o Components) {
	c.Beam += o.Beam
	c.Sky += o.Sky
	c.Ground += o.Ground
	c.BeamUnshaded += o.BeamUnshaded
	c.SkyUnshaded += o.SkyUnshaded
}

// Result is the irradiation of one facet per calendar month (UTC) of the
// Sky's series.
type Result struct {
	Monthly [12]Components
}

// Annual sums the months.
func (r *Result) Annual() Components {
	var a Components
	for _, m := range r.Monthly {
		a.add(m)
	}
	return a
}

// Irradiation sums the plane-of-array irradiation of facet over the Sky's
// steps into out (overwritten), allocating nothing. beamVisibility is nil
// (no beam shading) or holds, per daylight step of s (Sky.Step), the
// fraction of the beam reaching the facet: 0 behind terrain or a building,
// the crown's transmissivity behind a tree, 1 in the open. It scales the
// beam and the circumsolar diffuse, which comes from around the sun's disc.
//
// Per step, with θ the angle of incidence and β the tilt (pvlib's
// get_total_irradiance for the unshaded plane):
//
//	beam   = DNI · max(cos θ, 0) · v
//	sky    = max(kIso·(1+cos β)/2·SVF + kHz·sin β·SVF + kCs·max(cos θ, 0)·v, 0)
//	ground = GHI · albedo · (1−cos β)/2
//
// It returns ErrInvalid for a tilt outside 0..180°, a sky view outside 0..1
// or a visibility slice of the wrong length.
func (s *Sky) Irradiation(f Facet, beamVisibility []float32, out *Result) error {
	if !(f.TiltDeg >= 0 && f.TiltDeg <= 180) || !(f.SkyView >= 0 && f.SkyView <= 1) || math.IsNaN(f.AzimuthDeg) {
		return fmt.Errorf("solar: facet tilt %g, azimuth %g, sky view %g: %w", f.TiltDeg, f.AzimuthDeg, f.SkyView, ErrInvalid)
	}
	if beamVisibility != nil && len(beamVisibility) != len(s.unix) {
		return fmt.Errorf("solar: %d beam visibilities for %d steps: %w", len(beamVisibility), len(s.unix), ErrInvalid)
	}
	sinB, cosB := math.Sincos(deg2rad(f.TiltDeg))
	sinG, cosG := math.Sincos(deg2rad(f.AzimuthDeg))
	p := plane{
		nE: float32(sinB * sinG), nN: float32(sinB * cosG), nU: float32(cosB),
		iso: float32((1 + cosB) / 2), hz: float32(sinB), svf: float32(f.SkyView),
	}
	ground := s.albedo * (1 - cosB) / 2 * s.stepH
	for m := range 12 {
		from, to := s.monthStart[m], s.monthStart[m+1]
		c := s.sum(p, beamVisibility, from, to)
		c.Beam *= s.stepH
		c.BeamUnshaded *= s.stepH
		c.Sky *= s.stepH
		c.SkyUnshaded *= s.stepH
		c.Ground = s.ghiMonth[m] * ground
		out.Monthly[m] = c
	}
	return nil
}

// plane is a facet's constants in the precision of the inner loop.
type plane struct {
	nE, nN, nU   float32 // unit normal: east, north, up
	iso, hz, svf float32 // (1+cos β)/2, sin β, sky-view factor
}

// sum is the inner loop over steps [from, to): irradiance sums in W/m²
// (times the step length gives Wh/m²). Sums run in float64: ~750 float32
// steps per month would lose 4 digits otherwise. The loop without beam
// visibility is separate so neither carries a branch per step.
func (s *Sky) sum(p plane, vis []float32, from, to int) Components {
	var beam, beamU, sky, skyU float64
	sunE, sunN, sunU := s.sunE[from:to], s.sunN[from:to], s.sunU[from:to]
	dni, kIso, kCs, kHz := s.dni[from:to], s.kIso[from:to], s.kCs[from:to], s.kHz[from:to]
	if vis == nil {
		for i := range sunE {
			c := p.nE*sunE[i] + p.nN*sunN[i] + p.nU*sunU[i]
			if c < 0 {
				c = 0
			}
			b := dni[i] * c
			diffuse := kIso[i]*p.iso + kHz[i]*p.hz
			cs := kCs[i] * c
			su, ss := diffuse+cs, diffuse*p.svf+cs
			if su < 0 {
				su = 0
			}
			if ss < 0 {
				ss = 0
			}
			beamU += float64(b)
			skyU += float64(su)
			sky += float64(ss)
		}
		return Components{Beam: beamU, BeamUnshaded: beamU, Sky: sky, SkyUnshaded: skyU}
	}
	vis = vis[from:to]
	for i := range sunE {
		c := p.nE*sunE[i] + p.nN*sunN[i] + p.nU*sunU[i]
		if c < 0 {
			c = 0
		}
		v := vis[i]
		b := dni[i] * c
		diffuse := kIso[i]*p.iso + kHz[i]*p.hz
		cs := kCs[i] * c
		su, ss := diffuse+cs, diffuse*p.svf+cs*v
		if su < 0 {
			su = 0
		}
		if ss < 0 {
			ss = 0
		}
		beamU += float64(b)
		beam += float64(b * v)
		skyU += float64(su)
		sky += float64(ss)
	}
	return Components{Beam: beam, BeamUnshaded: beamU, Sky: sky, SkyUnshaded: skyU}
}

// AngleOfIncidence returns the angle in degrees between the facet's normal
// and the direction to the sun at pos (apparent zenith): 0 facing the sun,
// beyond 90 with the sun behind the plane.
func AngleOfIncidence(f Facet, pos Position) float64 {
	z, a := pos.ApparentZenithDeg, pos.AzimuthDeg
	c := cosd(f.TiltDeg)*cosd(z) + sind(f.TiltDeg)*sind(z)*cosd(a-f.AzimuthDeg)
	return rad2deg(math.Acos(max(-1, min(1, c))))
}
