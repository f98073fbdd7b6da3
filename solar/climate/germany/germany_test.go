package germany

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/solar"
	"github.com/svc-geodata/svc/solar/climate"
)

// hoursIn is the number of hours of month m (1-12) of Year.
func hoursIn(m int) float64 {
	a := time.Date(Year, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
	return a.AddDate(0, 1, 0).Sub(a).Hours()
}

// annualKWh is the yearly irradiation of monthly means in W/m², kWh/m².
func annualKWh(mo [12]float64) float64 {
	var s float64
	for m, v := range mo {
		s += v * hoursIn(m+1)
	}
	return s / 1000
}

func TestTable(t *testing.T) {
	tb, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if len(tableCSV) > 200<<10 {
		t.Errorf("embedded table %d bytes, want < 200 KB", len(tableCSV))
	}
	if len(tb.v) != nLat*nLon*12 {
		t.Fatalf("%d values", len(tb.v))
	}
	// The table's own header, Source and Attribution state the same period.
	period := fmt.Sprintf("%d-%d", FirstYear, LastYear)
	if !strings.Contains(string(tableCSV[:min(len(tableCSV), 1000)]), "monthly means "+period) || !strings.Contains(Source, period) ||
		!strings.Contains(Attribution, period) {
		t.Errorf("period %s not stated alike in the table header, Source %q and Attribution", period, Source)
	}
	// Germany's extreme points (VG5000) lie inside the grid with a step to spare.
	for _, p := range [][2]float64{{55.058, 8.417}, {47.270, 10.178}, {51.05, 5.866}, {51.27, 15.042}} {
		if _, err := Monthly(p[0], p[1], Bilinear); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
}

// TestCitiesReproduceSource is the judge of issue 27 item 3: the default
// climate's annual horizontal irradiation at German cities within 5 % of
// the published long-term means of its own source. The reference months
// are IWU's published long-term means (columns M_LTA_01..12, 2006-2025,
// rounded to 1 W/m²) of the CM SAF grid point nearest each city, as IWU
// publishes them in clidamonger 1.5.0, data.sol (rows "DE.MET.lat<lat*10>.
// lon<lon*10>.I_Hor"; the same table as IWU's workbook
// Gradtagzahlen-Deutschland.xlsx). The embedded table is read with bilinear
// interpolation at the city itself, so a wrong period, unit, grid order or
// interpolation shows.
func TestCitiesReproduceSource(t *testing.T) {
	cities := []struct {
		name      string
		lat, lon  float64
		iwuID     string
		published [12]float64 // W/m², January first
	}{
		{"Hamburg", 53.551, 9.994, "DE.MET.lat536.lon100.I_Hor", [12]float64{24, 51, 104, 175, 211, 228, 214, 178, 129, 69, 31, 18}},
		{"Potsdam", 52.381, 13.064, "DE.MET.lat524.lon130.I_Hor", [12]float64{29, 59, 110, 180, 218, 240, 226, 194, 141, 75, 37, 23}},
		{"Berlin", 52.520, 13.405, "DE.MET.lat526.lon134.I_Hor", [12]float64{28, 59, 110, 180, 220, 241, 225, 194, 140, 74, 36, 22}},
		{"Köln", 50.938, 6.960, "DE.MET.lat510.lon070.I_Hor", [12]float64{32, 61, 114, 178, 210, 229, 215, 185, 136, 76, 41, 26}},
		{"Frankfurt am Main", 50.111, 8.682, "DE.MET.lat502.lon086.I_Hor", [12]float64{35, 67, 124, 192, 222, 247, 236, 202, 148, 81, 41, 27}},
		{"München", 48.137, 11.575, "DE.MET.lat482.lon116.I_Hor", [12]float64{43, 77, 129, 190, 211, 241, 236, 204, 150, 93, 53, 38}},
		{"Freiburg im Breisgau", 47.999, 7.842, "DE.MET.lat480.lon078.I_Hor", [12]float64{44, 76, 129, 187, 211, 242, 241, 207, 157, 93, 51, 37}},
	}
	for _, c := range cities {
		t.Run(c.name, func(t *testing.T) {
			bil, err := Monthly(c.lat, c.lon, Bilinear)
			if err != nil {
				t.Fatal(err)
			}
			near, err := Monthly(c.lat, c.lon, Nearest)
			if err != nil {
				t.Fatal(err)
			}
			got, want := annualKWh(bil), annualKWh(c.published)
			d := (got - want) / want
			t.Logf("%s: default climate %.1f kWh/m²/a (bilinear), IWU/CM SAF %s %.1f: %+.2f %%", c.name, got, c.iwuID, want, 100*d)
			if math.Abs(d) > 0.05 {
				t.Errorf("annual %.1f kWh/m², published %.1f: %+.2f %% (limit 5 %%)", got, want, 100*d)
			}
			// The nearest grid point is the published point itself: every month
			// within the rounding of the published values (0.5 W/m²; February
			// 0.55, IWU weights leap-year Februaries by their days).
			for m := range near {
				if math.Abs(near[m]-c.published[m]) > 0.56 {
					t.Errorf("month %d at the grid point: %.2f W/m², published %g", m+1, near[m], c.published[m])
				}
			}
		})
	}
}

// TestGermanyMeanDWD compares the area mean of the table over Germany with
// DWD's: "Zwischen 2011 und 2020 trafen ... im Schnitt 1114
// Kilowattstunden pro Quadratmeter in Deutschland auf die Erde" (DWD, as
// reported by solarserver.de on 2023-01-12, "Sonneneinstrahlung in
// Deutschland im Dezember 2022"; DWD's grids combine its pyranometer network
// with CM SAF's satellite product). Our period is 2006-2025, so 5 % is the
// limit here too.
func TestGermanyMeanDWD(t *testing.T) {
	const dwd2011to2020 = 1114.0
	var sum, w float64
	n := 0
	for r := range nLat {
		for c := range nLon {
			cell := Cell{r, c}
			if _, in := bl.At(cell.LonDeg(), cell.LatDeg()); !in {
				continue
			}
			mo, err := MonthlyAt(cell)
			if err != nil {
				t.Fatal(err)
			}
			k := math.Cos(cell.LatDeg() * math.Pi / 180) // cell area
			sum += k * annualKWh(mo)
			w += k
			n++
		}
	}
	got := sum / w
	d := (got - dwd2011to2020) / dwd2011to2020
	t.Logf("Germany (%d grid points inside VG5000): %.1f kWh/m²/a, DWD 2011-2020 %.0f: %+.2f %%", n, got, dwd2011to2020, 100*d)
	if n < 1000 || math.Abs(d) > 0.05 {
		t.Errorf("Germany mean %.1f kWh/m² over %d points, DWD %.0f: %+.2f %% (limit 5 %%)", got, n, dwd2011to2020, 100*d)
	}
}

// TestSeriesSumsToMonthly: the synthesized year gives back the table's
// monthly irradiation, as records and as package solar sees it (the flat
// plane of a Sky built from the records).
func TestSeriesSumsToMonthly(t *testing.T) {
	for _, p := range []struct {
		name     string
		lat, lon float64
	}{{"Sylt", 54.9, 8.3}, {"Potsdam", 52.381, 13.064}, {"Garmisch", 47.5, 11.1}} {
		t.Run(p.name, func(t *testing.T) {
			cell, err := CellAt(p.lat, p.lon)
			if err != nil {
				t.Fatal(err)
			}
			mo, _ := MonthlyAt(cell)
			s, err := SeriesAt(context.Background(), cell)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Records) != 8760 || s.Format != climate.CMSAFMonthly || s.FirstYear != FirstYear || s.LastYear != LastYear {
				t.Fatalf("%d records, %s %d-%d", len(s.Records), s.Format, s.FirstYear, s.LastYear)
			}
			var sum [12]float64
			for _, r := range s.Records {
				pos := solar.SunPosition(r.Time, s.Site, solar.DefaultSPAOptions())
				if g := r.DNI*math.Cos(pos.ApparentZenithDeg*math.Pi/180) + r.DHI; math.Abs(g-r.GHI) > 1e-9*max(1, r.GHI) {
					t.Fatalf("%s: GHI %g, DNI cos z + DHI %g", r.Time, r.GHI, g)
				}
				sum[r.Time.Month()-1] += r.GHI
			}
			for m := range 12 {
				if want := mo[m] * hoursIn(m+1); math.Abs(sum[m]-want) > 1e-9*want {
					t.Errorf("month %d: %.6f Wh/m², table %.6f", m+1, sum[m], want)
				}
			}
			sky, err := solar.NewSky(context.Background(), s.Records, solar.SkyOptions{Site: s.Site, SPA: solar.DefaultSPAOptions(),
				Model: solar.HayDavies, StepH: 1, Albedo: 0.2})
			if err != nil {
				t.Fatal(err)
			}
			var res solar.Result
			if err := sky.Irradiation(solar.Facet{TiltDeg: 0, AzimuthDeg: 180, SkyView: 1}, nil, &res); err != nil {
				t.Fatal(err)
			}
			got, want := res.Annual().GlobalUnshaded()/1000, annualKWh(mo)
			t.Logf("%s (cell %.1f N %.1f E): flat plane %.3f kWh/m², table %.3f, dropped %.3f", p.name, cell.LatDeg(), cell.LonDeg(), got, want, sky.DroppedGHIWhM2()/1000)
			if math.Abs(got-want) > 1e-4*want || sky.DroppedGHIWhM2() != 0 {
				t.Errorf("flat plane %.4f kWh/m², table %.4f", got, want)
			}
		})
	}
}

func TestOutside(t *testing.T) {
	for _, p := range [][2]float64{{48.857, 2.352}, {46.9, 10}, {55.5, 10}, {52, 15.5}, {math.NaN(), 10}} {
		if _, err := Monthly(p[0], p[1], Bilinear); !errors.Is(err, ErrOutside) {
			t.Errorf("Monthly%v: %v, want ErrOutside", p, err)
		}
		if _, err := CellAt(p[0], p[1]); !errors.Is(err, ErrOutside) {
			t.Errorf("CellAt%v: %v, want ErrOutside", p, err)
		}
	}
	if _, err := MonthlyAt(Cell{Row: nLat}); !errors.Is(err, ErrOutside) {
		t.Errorf("MonthlyAt beyond the grid: %v", err)
	}
	if _, err := Series(context.Background(), solar.Site{LatDeg: 52, LonDeg: 13}, [12]float64{-1}); !errors.Is(err, climate.ErrFormat) {
		t.Errorf("negative mean: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Series(ctx, solar.Site{LatDeg: 52, LonDeg: 13}, [12]float64{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// newSky prepares a series for poaKWh (Perez, albedo 0.2).
func newSky(t *testing.T, s *climate.Series) *solar.Sky {
	t.Helper()
	sky, err := solar.NewSky(context.Background(), s.Records, solar.SkyOptions{Site: s.Site, SPA: solar.DefaultSPAOptions(),
		Model: solar.Perez, StepH: s.StepH, Albedo: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	return sky
}

// poaKWh is the annual unshaded irradiation of a plane, kWh/m².
func poaKWh(t *testing.T, sky *solar.Sky, tilt, az float64) float64 {
	t.Helper()
	var res solar.Result
	if err := sky.Irradiation(solar.Facet{TiltDeg: tilt, AzimuthDeg: az, SkyView: 1}, nil, &res); err != nil {
		t.Fatal(err)
	}
	return res.Annual().GlobalUnshaded() / 1000
}

// TestLinkeSensitivity: the Linke turbidity sets the clear days' beam and
// their number; the plane-of-array year depends on it a little.
func TestLinkeSensitivity(t *testing.T) {
	saved := linkeByMonth
	t.Cleanup(func() { linkeByMonth = saved })
	site := solar.Site{LatDeg: 52.4, LonDeg: 13.0}
	mo, err := Monthly(site.LatDeg, site.LonDeg, Nearest)
	if err != nil {
		t.Fatal(err)
	}
	var poa [2]float64
	for i, tl := range []float64{3, 5} {
		for m := range linkeByMonth {
			linkeByMonth[m] = tl
		}
		s, err := Series(context.Background(), site, mo)
		if err != nil {
			t.Fatal(err)
		}
		poa[i] = poaKWh(t, newSky(t, s), 35, 180)
	}
	d := (poa[1] - poa[0]) / poa[0]
	t.Logf("south 35°: TL 3 %.1f kWh/m², TL 5 %.1f: %+.2f %%", poa[0], poa[1], 100*d)
	if math.Abs(d) > 0.05 {
		t.Errorf("TL 3 -> 5 moves the south 35° plane by %+.2f %% (limit 5 %%)", 100*d)
	}
}

// TestDiffuseShare checks the Erbs et al. (1982) monthly correlation
// against its own bounds: continuous in K̄T, falling with K̄T, held to the
// correlation's range.
func TestDiffuseShare(t *testing.T) {
	for _, ws := range []float64{70, 100} {
		prev := 2.0
		for kt := 0.3; kt <= 0.8+1e-9; kt += 0.01 {
			f := DiffuseShare(kt, ws)
			if !(f > 0 && f < 1) || f > prev {
				t.Errorf("ωs %g K̄T %.2f: %g (previous %g)", ws, kt, f, prev)
			}
			prev = f
		}
		if DiffuseShare(0.1, ws) != DiffuseShare(0.3, ws) || DiffuseShare(0.95, ws) != DiffuseShare(0.8, ws) {
			t.Errorf("ωs %g: K̄T not held to 0.3-0.8", ws)
		}
	}
	// The summer cubic at K̄T 0.5 (ωs > 81.4°), by hand: 1.311 - 1.511 +
	// 0.85675 - 0.227625 = 0.429125.
	if f := DiffuseShare(0.5, 100); math.Abs(f-0.429125) > 1e-9 {
		t.Errorf("DiffuseShare(0.5, 100°) = %g", f)
	}
	if ws := SunsetHourAngleDeg(52.4, time.June); !(ws > 81.4 && ws < 130) {
		t.Errorf("June sunset hour angle at 52.4 N: %g", ws)
	}
	if ws := SunsetHourAngleDeg(52.4, time.December); !(ws < 81.4 && ws > 50) {
		t.Errorf("December sunset hour angle at 52.4 N: %g", ws)
	}
}

// readNSRDB reads testdata/nsrdb_potsdam_2019.csv (scripts/climate/
// nsrdb_hourly.py): the hourly means of NREL's NSRDB at Potsdam in 2019.
func readNSRDB(t *testing.T) (*climate.Series, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "nsrdb_potsdam_2019.csv"))
	if err != nil {
		return nil, err
	}
	s := &climate.Series{Site: solar.Site{LatDeg: 52.41, LonDeg: 13.06, ElevationM: 42}, StepH: 1, Source: "NREL NSRDB 2019"}
	t0 := time.Date(2019, 1, 1, 0, 30, 0, 0, time.UTC)
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || l[0] == '#' || strings.HasPrefix(l, "ghi") {
			continue
		}
		var g, n, d float64
		if _, err := fmt.Sscanf(l, "%g,%g,%g", &g, &n, &d); err != nil {
			return nil, fmt.Errorf("%q: %w", l, err)
		}
		s.Records = append(s.Records, solar.Record{Time: t0.Add(time.Duration(len(s.Records)) * time.Hour), Irradiance: solar.Irradiance{GHI: g, DNI: n, DHI: d}})
	}
	if len(s.Records) != 8760 {
		return nil, fmt.Errorf("%d records", len(s.Records))
	}
	return s, nil
}

// TestPOAAgainstMeasuredYear is the judge of the hourly synthesis: the
// plane-of-array year (Perez, albedo 0.2) of the default climate against
// that of a real hourly series at the same site, over tilts and
// azimuths. The reference is NREL's NSRDB at Potsdam, 2019 (15-minute
// satellite-derived GHI/DNI/DHI averaged to hours; no full-year PVGIS TMY is
// in the repository). 2019 is one year, the default climate 20, so the
// levels differ; what the synthesis decides - how the month's irradiation
// splits into beam and diffuse and spreads over the hours - shows in the
// gain of each plane over the horizontal, POA/GHI, which must agree within
// 5 % on roofs (tilt up to 50°) and 10 % on walls (one year of one site:
// 2019's afternoons were sunnier than its mornings, which a climatology
// cannot know; the west wall is 8.6 % below, the east wall 4.8 %).
func TestPOAAgainstMeasuredYear(t *testing.T) {
	ref, err := readNSRDB(t)
	if err != nil {
		t.Fatal(err)
	}
	mo, err := Monthly(ref.Site.LatDeg, ref.Site.LonDeg, Bilinear)
	if err != nil {
		t.Fatal(err)
	}
	syn, err := Series(context.Background(), ref.Site, mo)
	if err != nil {
		t.Fatal(err)
	}
	skyRef, skySyn := newSky(t, ref), newSky(t, syn)
	ghiRef, ghiSyn := poaKWh(t, skyRef, 0, 180), poaKWh(t, skySyn, 0, 180)
	t.Logf("horizontal: NSRDB 2019 %.1f kWh/m², default climate %.1f (%+.1f %%)", ghiRef, ghiSyn, 100*(ghiSyn/ghiRef-1))
	worst := 0.0
	for _, tilt := range []float64{20, 35, 50, 90} {
		for _, az := range []float64{90, 135, 180, 225, 270} {
			pr, ps := poaKWh(t, skyRef, tilt, az), poaKWh(t, skySyn, tilt, az)
			gr, gs := pr/ghiRef, ps/ghiSyn
			d := gs/gr - 1
			worst = max(worst, math.Abs(d))
			t.Logf("tilt %2.0f az %3.0f: NSRDB %6.1f kWh/m² (gain %.3f), default %6.1f (gain %.3f): gain %+.2f %%", tilt, az, pr, gr, ps, gs, 100*d)
			limit := 0.05
			if tilt > 50 {
				limit = 0.10
			}
			if math.Abs(d) > limit {
				t.Errorf("tilt %g az %g: gain over the horizontal %.3f, NSRDB %.3f: %+.2f %% (limit %.0f %%)", tilt, az, gs, gr, 100*d, 100*limit)
			}
		}
	}
	t.Logf("largest gain difference %.2f %%", 100*worst)
}
