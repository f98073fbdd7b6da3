package solar

import "math"

// perezEpsilonBins are the lower bounds of the eight sky-clearness classes
// ε of Perez et al. (1990), Table 1.
var perezEpsilonBins = [8]float64{1, 1.065, 1.23, 1.5, 1.95, 2.8, 4.5, 6.2}

// perez1990 are the 'allsitescomposite1990' coefficients f11 f12 f13 f21
// f22 f23 per clearness class (Perez et al. 1990, Table 6; as pvlib).
var perez1990 = [8][6]float64{
	{-0.0080, 0.5880, -0.0620, -0.0600, 0.0720, -0.0220},
	{0.1300, 0.6830, -0.1510, -0.0190, 0.0660, -0.0290},
	{0.3300, 0.4870, -0.2210, 0.0550, -0.0640, -0.0260},
	{0.5680, 0.1870, -0.2950, 0.1090, -0.1520, -0.0140},
	{0.8730, -0.3920, -0.3620, 0.2260, -0.4620, 0.0010},
	{1.1320, -1.2370, -0.4120, 0.2880, -0.8230, 0.0560},
	{1.0600, -1.6000, -0.3590, 0.2640, -1.1270, 0.1310},
	{0.6780, -0.3270, -0.2500, 0.1560, -1.3770, 0.2510},
}

// perezKappa is κ of the clearness ε with the zenith in radians.
const perezKappa = 1.041

// diffuseCoefficients returns, for one step, the factors of the sky diffuse
// irradiance on a plane of tilt β at angle of incidence θ:
//
//	I_d = iso·(1+cos β)/2 + cs·max(cos θ, 0) + hz·sin β
//
// Perez: iso = DHI(1−F1), cs = DHI·F1/max(cos z, cos 85°), hz = DHI·F2.
// Hay-Davies: iso = DHI(1−A), cs = DHI·A/max(cos z, 0.01745), hz = 0, with
// the anisotropy index A = DNI/DNI_extra. Zero without diffuse light.
func diffuseCoefficients(m SkyModel, irr Irradiance, zenithDeg, dniExtra float64) (iso, cs, hz float64) {
	if irr.DHI <= 0 {
		return 0, 0, 0
	}
	cosZ := cosd(zenithDeg)
	if m == HayDavies {
		a := irr.DNI / dniExtra
		return math.Max(irr.DHI*(1-a), 0), irr.DHI * a / math.Max(cosZ, 0.01745), 0
	}
	z := deg2rad(zenithDeg)
	kz3 := perezKappa * z * z * z
	eps := ((irr.DHI+irr.DNI)/irr.DHI + kz3) / (1 + kz3)
	delta := irr.DHI * RelativeAirmass(zenithDeg) / dniExtra // sky brightness Δ
	bin := 0
	for bin < len(perezEpsilonBins)-1 && eps >= perezEpsilonBins[bin+1] {
		bin++
	}
	f := perez1990[bin]
	f1 := math.Max(f[0]+f[1]*delta+f[2]*z, 0)
	f2 := f[3] + f[4]*delta + f[5]*z
	return irr.DHI * (1 - f1), irr.DHI * f1 / math.Max(cosZ, cosd(85)), irr.DHI * f2
}
