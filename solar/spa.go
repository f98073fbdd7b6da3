package solar

import (
	"math"
	"time"
)

// DefaultDeltaTS is ΔT = TT − UT1 in seconds used when SPAOptions.DeltaTS is
// zero: 69.2 s, the observed value for 2020-2026 (IERS Bulletin A, 69.2 ±
// 0.2 s over those years). A wrong ΔT of 1 s moves the sun by 1/240° in
// hour angle (0.004°), inside the 0.01° the model is judged at.
const DefaultDeltaTS = 69.2

// Standard atmosphere for refraction (DefaultSPAOptions).
const (
	DefaultPressureHPa  = 1013.25 // mean sea-level pressure
	DefaultTemperatureC = 12.0    // annual mean air temperature in Germany (and pvlib's default)
	// atmosRefractDeg is the refraction at sunrise/sunset (SPA's default
	// 0.5667°); below −(0.26667° + it) the refraction correction is zero.
	atmosRefractDeg = 0.5667
)

// Site is an observer on the ellipsoid: latitude and longitude in WGS84
// degrees (east and north positive), height above sea level in metres.
type Site struct {
	LatDeg, LonDeg, ElevationM float64
}

// SPAOptions are the parameters of the SPA beside time and site, used as
// given (a zero pressure means no refraction); DefaultSPAOptions fills them.
type SPAOptions struct {
	DeltaTS      float64 // TT − UT1, seconds
	PressureHPa  float64 // local air pressure for refraction, hPa (= mbar)
	TemperatureC float64 // local air temperature for refraction, °C
}

// DefaultSPAOptions returns ΔT for the 2020s and the standard atmosphere.
func DefaultSPAOptions() SPAOptions {
	return SPAOptions{DeltaTS: DefaultDeltaTS, PressureHPa: DefaultPressureHPa, TemperatureC: DefaultTemperatureC}
}

// Position is the topocentric position of the sun's centre seen from a Site.
// Azimuth is measured from north, eastward (navigators' convention, as
// pvlib), in [0, 360).
type Position struct {
	ZenithDeg         float64 // geometric topocentric zenith, no refraction
	ApparentZenithDeg float64 // zenith with atmospheric refraction
	AzimuthDeg        float64
	EquationOfTimeMin float64 // apparent minus mean solar time, minutes
	EarthSunAU        float64 // Earth-sun distance, astronomical units
}

// SunPosition computes the sun's position at t for site with the NREL Solar
// Position Algorithm (Reda & Andreas 2004, Solar Energy 76(5) 577-589;
// NREL/TP-560-34302 rev. 2008), stated accurate to ±0.0003° for years
// −2000..6000. t is converted to UTC (taken as UT1; |UT1−UTC| < 0.9 s).
// It is NewEphemeris(t, opt.DeltaTS).Topocentric(site, opt).
func SunPosition(t time.Time, site Site, opt SPAOptions) Position {
	return NewEphemeris(t, opt.DeltaTS).Topocentric(site, opt)
}

// Ephemeris is the geocentric part of the SPA at one instant (SPA steps
// 1-9: the periodic terms, nutation, aberration, sidereal time), the same
// for every site; it is 95 % of the work. Compute it once per time step and
// call Topocentric for each location cell.
type Ephemeris struct {
	nu, alpha, delta float64 // apparent sidereal time, geocentric right ascension and declination, degrees
	r                float64 // Earth-sun distance, AU
	eot              float64 // equation of time, minutes
}

// NewEphemeris computes the geocentric sun at t with ΔT = deltaTS seconds.
func NewEphemeris(t time.Time, deltaTS float64) Ephemeris {
	unix := float64(t.Unix()) + float64(t.Nanosecond())*1e-9
	jd := unix/86400 + 2440587.5   // eq. 4 via the Unix epoch
	jde := jd + deltaTS/86400      // eq. 5
	jc := (jd - 2451545) / 36525   // eq. 6
	jce := (jde - 2451545) / 36525 // eq. 7
	jme := jce / 10                // eq. 8
	lDeg := mod360(rad2deg(earthSum(jme, spaL0, spaL1, spaL2, spaL3, spaL4, spaL5) / 1e8))
	bDeg := rad2deg(earthSum(jme, spaB0, spaB1) / 1e8)
	r := earthSum(jme, spaR0, spaR1, spaR2, spaR3, spaR4) / 1e8
	theta := mod360(lDeg + 180) // geocentric longitude, eq. 13
	beta := -bDeg               // geocentric latitude, eq. 14

	dPsi, dEps := nutation(jce)
	u := jme / 10
	eps0 := 84381.448 + u*(-4680.93+u*(-1.55+u*(1999.25+u*(-51.38+u*(-249.67+
		u*(-39.05+u*(7.12+u*(27.87+u*(5.79+u*2.45))))))))) // eq. 24, arc seconds
	eps := eps0/3600 + dEps                   // eq. 25
	lambda := theta + dPsi - 20.4898/(3600*r) // eqs. 26, 27
	nu0 := mod360(280.46061837 + 360.98564736629*(jd-2451545) +
		jc*jc*(0.000387933-jc/38710000)) // eq. 28
	alpha := mod360(rad2deg(math.Atan2(sind(lambda)*cosd(eps)-tand(beta)*sind(eps), cosd(lambda)))) // eq. 30
	return Ephemeris{
		nu:    nu0 + dPsi*cosd(eps), // eq. 29
		alpha: alpha,
		delta: rad2deg(math.Asin(sind(beta)*cosd(eps) + cosd(beta)*sind(eps)*sind(lambda))), // eq. 31
		r:     r,
		eot:   equationOfTime(jme, alpha, dPsi, eps),
	}
}

// Topocentric returns the sun seen from site (SPA steps 10-15: parallax,
// refraction with opt's pressure and temperature, azimuth); opt.DeltaTS is
// not used here.
func (e Ephemeris) Topocentric(site Site, opt SPAOptions) Position {
	h := mod360(e.nu + site.LonDeg - e.alpha) // eq. 32
	// Topocentric correction for parallax (eqs. 33-39).
	xi := 8.794 / (3600 * e.r)
	uu := math.Atan(0.99664719 * tand(site.LatDeg))
	x := math.Cos(uu) + site.ElevationM/6378140*cosd(site.LatDeg)
	y := 0.99664719*math.Sin(uu) + site.ElevationM/6378140*sind(site.LatDeg)
	dAlpha := rad2deg(math.Atan2(-x*sind(xi)*sind(h), cosd(e.delta)-x*sind(xi)*cosd(h)))
	deltaP := rad2deg(math.Atan2((sind(e.delta)-y*sind(xi))*cosd(dAlpha), cosd(e.delta)-x*sind(xi)*cosd(h)))
	hP := h - dAlpha

	e0 := rad2deg(math.Asin(sind(site.LatDeg)*sind(deltaP) + cosd(site.LatDeg)*cosd(deltaP)*cosd(hP))) // eq. 41
	var de float64                                                                                     // eq. 42
	if e0 >= -(0.26667 + atmosRefractDeg) {
		de = opt.PressureHPa / 1010 * 283 / (273 + opt.TemperatureC) * 1.02 / (60 * tand(e0+10.3/(e0+5.11)))
	}
	gamma := mod360(rad2deg(math.Atan2(sind(hP), cosd(hP)*sind(site.LatDeg)-tand(deltaP)*cosd(site.LatDeg)))) // eq. 45
	return Position{
		ZenithDeg:         90 - e0,
		ApparentZenithDeg: 90 - (e0 + de),
		AzimuthDeg:        mod360(gamma + 180),
		EquationOfTimeMin: e.eot,
		EarthSunAU:        e.r,
	}
}

// earthSum evaluates Σ_i (Σ_k A cos(B + C·jme)) · jme^i over the series
// L0..L5 (or B, R) of SPA eqs. 9-11.
func earthSum(jme float64, series ...[][3]float64) float64 {
	var total, pow float64 = 0, 1
	for _, s := range series {
		var sum float64
		for _, t := range s {
			sum += t[0] * math.Cos(t[1]+t[2]*jme)
		}
		total += sum * pow
		pow *= jme
	}
	return total
}

// nutation returns the nutation in longitude Δψ and obliquity Δε in degrees
// (SPA eqs. 15-23).
func nutation(jce float64) (dPsi, dEps float64) {
	x := [5]float64{
		297.85036 + jce*(445267.111480+jce*(-0.0019142+jce/189474)), // mean elongation of the moon
		357.52772 + jce*(35999.050340+jce*(-0.0001603-jce/300000)),  // mean anomaly of the sun
		134.96298 + jce*(477198.867398+jce*(0.0086972+jce/56250)),   // mean anomaly of the moon
		93.27191 + jce*(483202.017538+jce*(-0.0036825+jce/327270)),  // moon's argument of latitude
		125.04452 + jce*(-1934.136261+jce*(0.0020708+jce/450000)),   // ascending node of the moon
	}
	for i, y := range nutationY {
		arg := deg2rad(y[0]*x[0] + y[1]*x[1] + y[2]*x[2] + y[3]*x[3] + y[4]*x[4])
		c := nutationABCD[i]
		dPsi += (c[0] + c[1]*jce) * math.Sin(arg)
		dEps += (c[2] + c[3]*jce) * math.Cos(arg)
	}
	return dPsi / 36000000, dEps / 36000000
}

// equationOfTime returns E in minutes (SPA appendix A.1, eqs. A1-A2),
// limited to ±20 min as there.
func equationOfTime(jme, alpha, dPsi, eps float64) float64 {
	m := 280.4664567 + jme*(360007.6982779+jme*(0.03032028+jme*(1.0/49931+jme*(-1.0/15300-jme/2000000))))
	e := mod360(m-0.0057183-alpha+dPsi*cosd(eps)) * 4
	switch {
	case e > 20:
		e -= 1440
	case e < -20:
		e += 1440
	}
	return e
}

func mod360(d float64) float64 {
	d = math.Mod(d, 360)
	if d < 0 {
		d += 360
	}
	return d
}

func deg2rad(d float64) float64 { return d * (math.Pi / 180) }
func rad2deg(r float64) float64 { return r * (180 / math.Pi) }
func sind(d float64) float64    { return math.Sin(deg2rad(d)) }
func cosd(d float64) float64    { return math.Cos(deg2rad(d)) }
func tand(d float64) float64    { return math.Tan(deg2rad(d)) }
