package germany

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/svc-geodata/svc/solar"
	"github.com/svc-geodata/svc/solar/climate"
)

// Year is the calendar year the synthesized records are stamped with: a
// climatology has no year of its own; LastYear is the latest one it stands
// for and is not a leap year (a February of 28 days, as in a TMY).
const Year = LastYear

// linkeByMonth is the Linke turbidity of the clear-sky days, January
// first: the typical range of Germany (about 3 in winter, 4.5 in summer;
// package solar's ClearSky). The monthly sums are fixed by the table; the
// turbidity sets how much beam a clear day brings and so how many clear
// days a month has: TL 3 instead of 5 in every month moves the annual
// irradiation of a south-facing 35° plane by 3.5 % (TestLinkeSensitivity).
var linkeByMonth = [12]float64{3.0, 3.0, 3.5, 4.0, 4.5, 4.5, 4.5, 4.5, 4.0, 3.5, 3.0, 3.0}

// Method names how Series turns monthly means into hours, for answers.
const Method = "hourly year synthesized from the monthly means: the month's diffuse share by Erbs, Klein & Duffie (1982, monthly-average " +
	"correlation); the month's beam on clear days (Ineichen-Perez clear sky, Linke turbidity 3-4.5) spread evenly over the month, " +
	"the rest of the diffuse on overcast days shaped like the clear-sky global"

// Source is the Series.Source of the default climate.
const Source = "CM SAF SIS monthly means 2006-2025, " + Resolution + " grid (IWU clidamonger " + clidamongerVersion + ")"

// Series returns a year of hourly records at site (the sun at HH:30 UTC of
// Year) whose global horizontal irradiation in every month equals the
// monthly mean monthlyWM2[m] (W/m², the mean over all hours) times the hours
// of the month, to rounding:
//
//  1. K̄T = H / H0, H the month's irradiation, H0 the sum of the
//     extraterrestrial irradiance on the horizontal over the month's hours;
//  2. the month's diffuse share Hd/H by the monthly-average correlation of
//     Erbs, Klein & Duffie (1982, Solar Energy 28(4) 293-302; Duffie &
//     Beckman, Solar Engineering of Thermal Processes, eq. 2.12.1): a cubic
//     in K̄T, one for sunset hour angles ωs ≤ 81.4° of the month's mean day
//     (Klein 1977) and one above; K̄T is held to the correlation's range
//     0.3-0.8 and the share to 0-1;
//  3. a month is made of clear and overcast days, as skies mostly are: the
//     month's beam H - Hd comes on clear days, as many as the Ineichen-Perez
//     clear sky (linkeByMonth) needs to bring it (its beam scaled to the
//     exact sum), spread evenly over the month, with their clear-sky
//     diffuse; the rest of Hd falls on the overcast days, shaped like the
//     clear-sky global of the hour.
//
// Spreading the beam and diffuse over every day instead (an "average day")
// gives each hour a bright sky with much diffuse light, which the Perez
// model largely counts as circumsolar: against a measured year it raised
// the gain of south-facing planes by 5.6-10.9 %; clear and overcast days
// keep south-facing roofs within 2.2 % and all roofs within 4.8 %
// (TestPOAAgainstMeasuredYear, docs/solar.md).
//
// It returns climate.ErrFormat for a mean outside 0-500 W/m², solar's
// ErrInvalid for a site out of range, and ctx's error when cancelled.
func Series(ctx context.Context, site solar.Site, monthlyWM2 [12]float64) (*climate.Series, error) {
	for m, v := range monthlyWM2 {
		if !(v >= 0 && v < 500) {
			return nil, fmt.Errorf("germany: month %d mean %g W/m² (want 0..500): %w", m+1, v, climate.ErrFormat)
		}
	}
	if !(site.LatDeg >= -66 && site.LatDeg <= 66) {
		return nil, fmt.Errorf("germany: latitude %g beyond the polar circles: %w", site.LatDeg, solar.ErrInvalid)
	}
	spa := solar.DefaultSPAOptions()
	s := &climate.Series{Format: climate.CMSAFMonthly, Site: site, Source: Source, FirstYear: FirstYear, LastYear: LastYear, StepH: 1,
		Records: make([]solar.Record, 0, 8760)}
	for m := range 12 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		recs, err := month(site, spa, time.Month(m+1), monthlyWM2[m])
		if err != nil {
			return nil, err
		}
		s.Records = append(s.Records, recs...)
	}
	return s, nil
}

// month synthesizes the hours of month mo (see Series).
func month(site solar.Site, spa solar.SPAOptions, mo time.Month, meanWM2 float64) ([]solar.Record, error) {
	start := time.Date(Year, mo, 1, 0, 30, 0, 0, time.UTC)
	days := time.Date(Year, mo+1, 0, 0, 0, 0, 0, time.UTC).Day()
	n := 24 * days
	recs := make([]solar.Record, n)
	beam, diff, cosZ := make([]float64, n), make([]float64, n), make([]float64, n)
	dayBeam, dayDiff, dayGlobal := make([]float64, days), make([]float64, days), make([]float64, days)
	cs := solar.ClearSky{LinkeTurbidity: linkeByMonth[mo-1], AltitudeM: site.ElevationM}
	if err := cs.Validate(); err != nil {
		return nil, err
	}
	var h0 float64
	for i := range n {
		t := start.Add(time.Duration(i) * time.Hour)
		recs[i].Time = t
		pos := solar.SunPosition(t, site, spa)
		e0 := solar.Extraterrestrial(t)
		if pos.ZenithDeg < 90 {
			h0 += e0 * math.Cos(pos.ZenithDeg*math.Pi/180)
		}
		irr := cs.At(pos.ApparentZenithDeg, e0)
		if irr.GHI <= 0 {
			continue
		}
		cosZ[i] = math.Cos(pos.ApparentZenithDeg * math.Pi / 180)
		beam[i], diff[i] = irr.DNI*cosZ[i], irr.DHI
		dayBeam[i/24] += beam[i]
		dayDiff[i/24] += diff[i]
		dayGlobal[i/24] += irr.GHI
	}
	h := meanWM2 * float64(n) // Wh/m² over the month
	if h == 0 {
		return recs, nil
	}
	var clearBeam float64
	for _, b := range dayBeam {
		clearBeam += b
	}
	if clearBeam <= 0 || h0 <= 0 {
		return nil, fmt.Errorf("germany: %s: no daylight at %g N: %w", mo, site.LatDeg, solar.ErrInvalid)
	}
	hd := h * DiffuseShare(h/h0, SunsetHourAngleDeg(site.LatDeg, mo))
	clear := clearDays(days, (h-hd)/clearBeam)
	var cb, cd, og float64 // clear days' beam and diffuse, overcast days' global, clear sky
	for d, c := range clear {
		if c {
			cb, cd = cb+dayBeam[d], cd+dayDiff[d]
		} else {
			og += dayGlobal[d]
		}
	}
	// Clear days: the clear sky with its beam scaled to the month's beam.
	// Overcast days: the rest of the diffuse, shaped like the clear-sky
	// global. Without overcast days, or when the clear days' diffuse alone
	// exceeds the month's, the clear days carry all the diffuse.
	kb := 0.0
	if cb > 0 {
		kb = (h - hd) / cb
	}
	kcd, kod := kb, 0.0
	if og > 0 && hd-kb*cd >= 0 {
		kod = (hd - kb*cd) / og
	} else if cd > 0 {
		kcd = hd / cd
	}
	for i := range recs {
		if cosZ[i] <= 0 {
			continue
		}
		var b, d float64
		if clear[i/24] {
			b, d = beam[i]*kb, diff[i]*kcd
		} else {
			d = (beam[i] + diff[i]) * kod
		}
		recs[i].DHI, recs[i].GHI, recs[i].DNI = d, b+d, b/cosZ[i]
	}
	return recs, nil
}

// clearDays marks round(share x days) days of a month clear (at least one
// when share > 0, all when share >= 1), spread evenly over the month.
func clearDays(days int, share float64) []bool {
	out := make([]bool, days)
	share = math.Max(0, math.Min(1, share))
	n := 0
	for d := range out {
		out[d] = math.Floor(float64(d+1)*share+0.5) > math.Floor(float64(d)*share+0.5)
		if out[d] {
			n++
		}
	}
	if n == 0 && share > 0 {
		out[days/2] = true
	}
	return out
}

// meanDay is the day of the year whose declination is closest to the
// month's mean (Klein 1977, Solar Energy 19(4) 325; Duffie & Beckman table
// 1.6.1).
var meanDay = [12]int{17, 47, 75, 105, 135, 162, 198, 228, 258, 288, 318, 344}

// SunsetHourAngleDeg is ωs = acos(-tan φ tan δ) of the month's mean day,
// δ by Cooper (1969): 23.45° sin(360° (284 + n) / 365).
func SunsetHourAngleDeg(latDeg float64, mo time.Month) float64 {
	decl := 23.45 * math.Sin(2*math.Pi*float64(284+meanDay[mo-1])/365)
	x := -math.Tan(latDeg*math.Pi/180) * math.Tan(decl*math.Pi/180)
	return math.Acos(math.Max(-1, math.Min(1, x))) * 180 / math.Pi
}

// DiffuseShare is the monthly-average diffuse fraction H̄d/H̄ of Erbs, Klein
// & Duffie (1982) for the monthly clearness index kt and the sunset hour
// angle ωs in degrees; kt is held to 0.3-0.8 (the correlation's range) and
// the share to 0-1.
func DiffuseShare(kt, sunsetHourAngleDeg float64) float64 {
	k := math.Max(0.3, math.Min(0.8, kt))
	var f float64
	if sunsetHourAngleDeg <= 81.4 {
		f = 1.391 - 3.560*k + 4.189*k*k - 2.137*k*k*k
	} else {
		f = 1.311 - 3.022*k + 3.427*k*k - 1.821*k*k*k
	}
	return math.Max(0, math.Min(1, f))
}

// SeriesAt returns the default climate of the cell: its monthly means and
// a Series at the grid point (at sea level: the clear-sky shapes depend on
// the altitude only through the air mass, and a cell spans all heights).
func SeriesAt(ctx context.Context, c Cell) (*climate.Series, error) {
	mo, err := MonthlyAt(c)
	if err != nil {
		return nil, err
	}
	return Series(ctx, solar.Site{LatDeg: c.LatDeg(), LonDeg: c.LonDeg()}, mo)
}
