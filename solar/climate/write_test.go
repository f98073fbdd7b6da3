package climate

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-geodata/svc/solar"
)

// The test files are constructed here, following the formats exactly as
// pvlib's readers and the PVGIS/EnergyPlus samples lay them out, from a
// clear-sky year at Potsdam (52.38 N, 13.06 E, 81 m) dimmed by a seeded
// cloud factor, stamped with the year PVGIS would list per month.

var testSite = solar.Site{LatDeg: 52.381, LonDeg: 13.064, ElevationM: 81}

// hourly returns a year of hourly (hour start UTC, irradiance) rows, each
// month taken from a different year as in a TMY, days 1..lastDay of each
// month kept (all when lastDay is 0). Computed once per lastDay.
func hourly(t testing.TB, lastDay int) (starts []time.Time, irr []solar.Irradiance) {
	t.Helper()
	v, _ := hourlyCache.LoadOrStore(lastDay, sync.OnceValue(func() hourlyRows { return makeHourly(lastDay) }))
	rows := v.(func() hourlyRows)()
	return rows.starts, rows.irr
}

type hourlyRows struct {
	starts []time.Time
	irr    []solar.Irradiance
}

var hourlyCache sync.Map // lastDay -> func() hourlyRows

func makeHourly(lastDay int) (rows hourlyRows) {
	rng := rand.New(rand.NewPCG(27, 3))
	linke := [12]float64{3, 3.2, 3.6, 4, 4.2, 4.3, 4.5, 4.4, 4, 3.6, 3.2, 3}
	spa := solar.DefaultSPAOptions()
	for m := time.January; m <= time.December; m++ {
		year := 2005 + int(m)%7
		cs := solar.ClearSky{LinkeTurbidity: linke[m-1], AltitudeM: testSite.ElevationM}
		for h := time.Date(year, m, 1, 0, 0, 0, 0, time.UTC); h.Month() == m; h = h.Add(time.Hour) {
			if (lastDay > 0 && h.Day() > lastDay) || (m == time.February && h.Day() == 29) {
				continue
			}
			mid := h.Add(30 * time.Minute)
			c := cs.At(solar.SunPosition(mid, testSite, spa).ApparentZenithDeg, solar.Extraterrestrial(mid))
			k := rng.Float64()
			// Rounded as PVGIS does (2 decimals); a cloud factor k dims the beam.
			rows.irr = append(rows.irr, solar.Irradiance{GHI: round2(c.GHI * (0.3 + 0.7*k)), DNI: round2(c.DNI * k), DHI: round2(c.DHI * (1 + (1-k)*0.8))})
			rows.starts = append(rows.starts, h)
		}
	}
	return rows
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

func num(x float64) string {
	if x == 0 {
		return "0.0"
	}
	return fmt.Sprintf("%.2f", x)
}

// pvgisCSV writes a PVGIS 5.3 TMY CSV (with the time offset line when
// offsetH is not 0).
func pvgisCSV(starts []time.Time, irr []solar.Irradiance, offsetH float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Latitude (decimal degrees): %.3f\r\nLongitude (decimal degrees): %.3f\r\nElevation (m): %.1f\r\n", testSite.LatDeg, testSite.LonDeg, testSite.ElevationM)
	if offsetH != 0 {
		fmt.Fprintf(&b, "Irradiance Time Offset (h): %.4f\r\n", offsetH)
	}
	b.WriteString("month,year\r\n")
	for m := 1; m <= 12; m++ {
		fmt.Fprintf(&b, "%d,%d\r\n", m, 2005+m%7)
	}
	b.WriteString("time(UTC),T2m,RH,G(h),Gb(n),Gd(h),IR(h),WS10m,WD10m,SP\r\n")
	for i, t := range starts {
		dni := num(irr[i].DNI)
		if irr[i].DNI == 0 {
			dni = "-0.0" // as PVGIS writes a zero beam
		}
		fmt.Fprintf(&b, "%s,8.5,75.2,%s,%s,%s,300.1,3.2,240.0,101000.0\r\n", t.Format("20060102:1504"), num(irr[i].GHI), dni, num(irr[i].DHI))
	}
	b.WriteString("\r\nT2m: 2-m air temperature (degree Celsius)\r\nRH: relative humidity (%)\r\n" +
		"G(h): Global irradiance on the horizontal plane (W/m2)\r\n" +
		"Gb(n): Beam/direct irradiance on a plane always normal to sun rays (W/m2)\r\n" +
		"Gd(h): Diffuse irradiance on the horizontal plane (W/m2)\r\n" +
		"IR(h): Surface infrared (thermal) irradiance on a horizontal plane (W/m2)\r\n" +
		"WS10m: 10-m total wind speed (m/s)\r\nWD10m: 10-m wind direction (0 = N, 90 = E) (degree)\r\n" +
		"SP: Surface (air) pressure (Pa)\r\n\r\nPVGIS (c) European Union, 2001-2024\r\n")
	return b.String()
}

// pvgisJSONDoc writes a PVGIS 5.3 TMY JSON.
func pvgisJSONDoc(starts []time.Time, irr []solar.Irradiance, offsetH float64) string {
	type row map[string]any
	rows := make([]row, len(starts))
	for i, t := range starts {
		rows[i] = row{"time(UTC)": t.Format("20060102:1504"), "T2m": 8.5, "RH": 75.2, "G(h)": irr[i].GHI, "Gb(n)": irr[i].DNI,
			"Gd(h)": irr[i].DHI, "IR(h)": 300.1, "WS10m": 3.2, "WD10m": 240.0, "SP": 101000.0}
	}
	months := make([]row, 12)
	for m := range months {
		months[m] = row{"month": m + 1, "year": 2005 + (m+1)%7}
	}
	doc := row{
		"inputs": row{
			"location":   row{"latitude": testSite.LatDeg, "longitude": testSite.LonDeg, "elevation": testSite.ElevationM, "irradiance_time_offset": offsetH},
			"meteo_data": row{"radiation_db": "PVGIS-SARAH3", "meteo_db": "ERA5", "year_min": 2005, "year_max": 2023, "use_horizon": true, "horizon_db": "DEM-calculated"},
		},
		"outputs": row{"months_selected": months, "tmy_hourly": rows},
		"meta":    row{"inputs": row{"location": row{"description": "Selected location"}}, "outputs": row{"tmy_hourly": row{"type": "time series"}}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// epwDoc writes an EPW in local standard time UTC+1 (hour h ends at h:00).
func epwDoc(starts []time.Time, irr []solar.Irradiance) string {
	var b strings.Builder
	fmt.Fprintf(&b, "LOCATION,Potsdam,BB,DEU,SRC-TMYx,103790,%.3f,%.3f,1.0,%.1f\n", testSite.LatDeg, testSite.LonDeg, testSite.ElevationM)
	b.WriteString("DESIGN CONDITIONS,0\nTYPICAL/EXTREME PERIODS,0\nGROUND TEMPERATURES,0\nHOLIDAYS/DAYLIGHT SAVING,No,0,0,0\n" +
		"COMMENTS 1,constructed for svc's tests\nCOMMENTS 2\nDATA PERIODS,1,1,Data,Sunday, 1/ 1,12/31\n")
	cet := time.FixedZone("UTC+1", 3600)
	for i, t := range starts {
		end := t.Add(time.Hour).In(cet)
		y, m, d, h := end.Year(), int(end.Month()), end.Day(), end.Hour()
		if h == 0 { // 24:00 of the previous day
			prev := end.Add(-time.Hour)
			y, m, d, h = prev.Year(), int(prev.Month()), prev.Day(), 24
		}
		fmt.Fprintf(&b, "%d,%d,%d,%d,0,?9?9?9?9E0?9?9?9?9?9?9?9?9?9?9?9?9?9?9?9*9*9?9?9?9,8.5,4.2,75,101000,9999,9999,300,%s,%s,%s,999999,999999,999999,9999,240,3.2,5,5,9999,99999,9,999999999,999,0.999,999,99,999,999,99\n",
			y, m, d, h, num(irr[i].GHI), num(irr[i].DNI), num(irr[i].DHI))
	}
	return b.String()
}
