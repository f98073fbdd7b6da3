package climate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/svc-geodata/svc/solar"
)

// epwHeaderLines is the number of header lines before the data (LOCATION
// ... DATA PERIODS), EnergyPlus Auxiliary Programs, "Weather Converter":
// EPW data dictionary.
const epwHeaderLines = 8

// ReadEPW parses an EnergyPlus weather file as pvlib's read_epw does: the
// LOCATION line (latitude, longitude, time zone in hours from UTC,
// elevation), seven more header lines, then one row per hour: year, month,
// day, hour 1-24 (the hour ending then, local standard time), minute, flags,
// and GHI, DNI, DHI as fields 14-16, Wh/m² received during the hour (= the
// hour's mean W/m²). The record is placed at the centre of its hour in UTC.
// Sub-hourly files and missing irradiance (9999) return ErrFormat.
func ReadEPW(r io.Reader) (*Series, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxBytes))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	line := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("climate: EPW line %d: %s: %w", line, fmt.Sprintf(format, a...), ErrFormat)
	}
	s := &Series{Format: EPW}
	var tzH float64
	for line < epwHeaderLines {
		if !sc.Scan() {
			return nil, bad("header ends early")
		}
		line++
		l := strings.TrimPrefix(sc.Text(), "\ufeff")
		switch {
		case line == 1:
			if err := s.epwLocation(l, &tzH); err != nil {
				return nil, bad("%v", err)
			}
		case strings.HasPrefix(l, "DATA PERIODS"):
			f := strings.Split(l, ",")
			if len(f) < 3 || strings.TrimSpace(f[2]) != "1" {
				return nil, bad("only hourly files (one record per hour) are supported")
			}
		}
	}
	for sc.Scan() {
		line++
		l := sc.Text()
		if strings.TrimSpace(l) == "" {
			continue
		}
		rec, err := epwRecord(l, tzH)
		if err != nil {
			return nil, bad("%v", err)
		}
		if len(s.Records) == MaxRecords {
			return nil, bad("more than %d records", MaxRecords)
		}
		s.Records = append(s.Records, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("climate: EPW after line %d: %v: %w", line, err, ErrFormat)
	}
	return s.finish()
}

// epwLocation parses the LOCATION line into s.Site, s.Source and the time
// zone in hours.
func (s *Series) epwLocation(l string, tzH *float64) error {
	f := strings.Split(l, ",")
	if len(f) < 10 || f[0] != "LOCATION" {
		return errors.New("want LOCATION,city,state,country,source,WMO,lat,lon,tz,elevation")
	}
	var v [4]float64
	for i := range v {
		x, err := strconv.ParseFloat(strings.TrimSpace(f[6+i]), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("LOCATION field %d %.20q: not a number", 7+i, f[6+i])
		}
		v[i] = x
	}
	s.Site = solar.Site{LatDeg: v[0], LonDeg: v[1], ElevationM: v[3]}
	if *tzH = v[2]; !(*tzH >= -12 && *tzH <= 14) {
		return fmt.Errorf("time zone %g h (want -12..14)", *tzH)
	}
	if err := checkSite(s.Site); err != nil {
		return err
	}
	s.Source = "EPW: " + strings.Join(nonEmpty(f[1], f[3], f[4]), ", ")
	return nil
}

// epwRecord parses one data row: date, hour ending (local standard time,
// UTC+tzH) and GHI, DNI, DHI; the record is the centre of the hour in UTC.
func epwRecord(l string, tzH float64) (solar.Record, error) {
	f := strings.SplitN(l, ",", 17)
	if len(f) < 16 {
		return solar.Record{}, fmt.Errorf("%d fields, want at least 16", len(f))
	}
	var d [4]int
	for i := range d {
		x, err := strconv.Atoi(strings.TrimSpace(f[i]))
		if err != nil {
			return solar.Record{}, fmt.Errorf("field %d %.20q: not an integer", i+1, f[i])
		}
		d[i] = x
	}
	year, month, day, hour := d[0], d[1], d[2], d[3]
	if year < 1800 || year > 2200 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour < 1 || hour > 24 {
		return solar.Record{}, fmt.Errorf("date %d-%d-%d hour %d", year, month, day, hour)
	}
	var v [3]float64
	for i := range v {
		x, err := strconv.ParseFloat(strings.TrimSpace(f[13+i]), 64)
		if err != nil {
			return solar.Record{}, fmt.Errorf("field %d %.20q: not a number", 14+i, f[13+i])
		}
		v[i] = x
	}
	if err := checkIrradiance(v[:]...); err != nil {
		return solar.Record{}, fmt.Errorf("%v (9999 marks a missing value)", err)
	}
	// Hour h is (h-1):00..h:00 local standard time; its centre in UTC.
	lst := time.Date(year, time.Month(month), day, hour-1, 30, 0, 0, time.UTC)
	t := lst.Add(-time.Duration(math.Round(tzH * float64(time.Hour))))
	return solar.Record{Time: t, Irradiance: solar.Irradiance{GHI: v[0], DNI: v[1], DHI: v[2]}}, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func nonEmpty(ss ...string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" && s != "-" && s != "unknown" {
			out = append(out, s)
		}
	}
	return out
}
