package solar

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrInvalid marks an argument outside its domain (a Linke turbidity below
// 1, a latitude beyond ±90°, an empty time series...).
var ErrInvalid = errors.New("solar: invalid argument")

// SolarConstant is the mean extraterrestrial normal irradiance at 1 AU in
// W/m² used by Extraterrestrial (1366.1, the ASTM E-490 value, as pvlib).
const SolarConstant = 1366.1

// Extraterrestrial returns the normal irradiance outside the atmosphere in
// W/m² on the UTC day of t, by Spencer's Fourier series for (R0/R)²
// (Spencer 1971, Search 2(5) 172; the day angle from the integer day of the
// year, as pvlib's get_extra_radiation(method='spencer')). It varies
// ±3.4 % over the year.
func Extraterrestrial(t time.Time) float64 {
	b := 2 * math.Pi / 365 * float64(t.UTC().YearDay()-1)
	return SolarConstant * (1.00011 + 0.034221*math.Cos(b) + 0.00128*math.Sin(b) +
		0.000719*math.Cos(2*b) + 7.7e-05*math.Sin(2*b))
}

// RelativeAirmass returns the relative optical air mass at sea level for a
// (refraction-corrected) zenith angle by Kasten & Young (1989, Applied
// Optics 28(22) 4735): 1 at the zenith, 38.1 at the horizon, NaN for a
// zenith beyond 90°.
func RelativeAirmass(zenithDeg float64) float64 {
	if zenithDeg > 90 || math.IsNaN(zenithDeg) {
		return math.NaN()
	}
	return 1 / (cosd(zenithDeg) + 0.50572*math.Pow(96.07995-zenithDeg, -1.6364))
}

// AbsoluteAirmass returns the relative air mass scaled to the air pressure
// (pressurePa / 101325), as pvlib's get_absolute_airmass.
func AbsoluteAirmass(relative, pressurePa float64) float64 { return relative * pressurePa / 101325 }

// PressureAtAltitude returns the mean air pressure in Pa at altitudeM above
// sea level (the ICAO standard atmosphere as pvlib's alt2pres).
func PressureAtAltitude(altitudeM float64) float64 {
	return 100 * math.Pow((44331.514-altitudeM)/11880.516, 1/0.1902632)
}

// Irradiance is one instant's solar irradiance on the horizontal in W/m²:
// global (GHI), direct normal (DNI) and diffuse (DHI); GHI = DNI·cos z + DHI.
type Irradiance struct {
	GHI, DNI, DHI float64
}

// ClearSky is the Ineichen-Perez clear-sky model (Ineichen & Perez 2002,
// Solar Energy 73(3) 151-157; Perez et al. 2002, Solar Energy 73(5)
// 307-317) at one site: the Linke turbidity TL (air mass 2) and the
// altitude.
type ClearSky struct {
	LinkeTurbidity float64 // TL at air mass 2, ≥ 1 (Germany: about 3 in winter to 5 in summer)
	AltitudeM      float64 // site height above sea level
}

// Validate reports ErrInvalid when the turbidity is below 1 or not finite.
func (c ClearSky) Validate() error {
	if !(c.LinkeTurbidity >= 1) || math.IsInf(c.LinkeTurbidity, 0) {
		return fmt.Errorf("solar: Linke turbidity %g (want >= 1): %w", c.LinkeTurbidity, ErrInvalid)
	}
	if !(c.AltitudeM > -500 && c.AltitudeM < 9000) {
		return fmt.Errorf("solar: altitude %g m (want -500..9000): %w", c.AltitudeM, ErrInvalid)
	}
	return nil
}

// At returns the clear-sky irradiance for the sun at apparentZenithDeg
// (refraction included) with dniExtra W/m² outside the atmosphere; zero with
// the sun below the horizon. The air mass is Kasten-Young's, made absolute
// with the pressure of the site's altitude (as pvlib's Location.get_clearsky
// with clearsky.ineichen, perez_enhancement=False).
func (c ClearSky) At(apparentZenithDeg, dniExtra float64) Irradiance {
	am := RelativeAirmass(apparentZenithDeg)
	if math.IsNaN(am) {
		return Irradiance{}
	}
	am = AbsoluteAirmass(am, PressureAtAltitude(c.AltitudeM))
	cosZ := math.Max(cosd(apparentZenithDeg), 0)
	tl, h := c.LinkeTurbidity, c.AltitudeM
	fh1, fh2 := math.Exp(-h/8000), math.Exp(-h/1250)
	cg1, cg2 := 5.09e-05*h+0.868, 3.92e-05*h+0.0387
	ghi := cg1 * dniExtra * cosZ * math.Max(math.Exp(-cg2*am*(fh1+fh2*(tl-1))), 0)
	// Beam: Ineichen & Perez eq. 8 with b = 0.664 + 0.163/fh1, bounded by the
	// empirical correction of their eq. 9 (pvlib PR 808).
	bnci := dniExtra * math.Max((0.664+0.163/fh1)*math.Exp(-0.09*am*(tl-1)), 0)
	var bnci2 float64
	if cosZ > 0 {
		bnci2 = ghi * math.Min(math.Max((1-(0.1-0.2*math.Exp(-tl))/(0.1+0.882/fh1))/cosZ, 0), 1e20)
	}
	dni := math.Min(bnci, bnci2)
	return Irradiance{GHI: ghi, DNI: dni, DHI: ghi - dni*cosZ}
}
