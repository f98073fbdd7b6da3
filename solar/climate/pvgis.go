package climate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/svc-geodata/svc/solar"
)

// PVGIS typical meteorological years (EU JRC, re.jrc.ec.europa.eu, tool
// "tmy"): hourly rows stamped "YYYYMMDD:HHMM" in UTC, each month from the
// year listed in "months_selected"; G(h), Gb(n), Gd(h) are GHI, DNI, DHI in
// W/m². Since PVGIS 5.3 the file states an "irradiance time offset" in hours:
// the irradiance belongs to the stamp plus the offset (0.5 h for ERA5, the
// satellite scan time for SARAH, ~0.17 h over Germany). The sun is placed
// there; a file without the offset (PVGIS ≤ 5.2) is taken at its stamps,
// as PVGIS documents them.

// ReadPVGISCSV parses a PVGIS TMY CSV (outputformat=csv) as pvlib's
// read_pvgis_tmy(pvgis_format='csv') does: latitude, longitude, elevation
// lines, the optional "Irradiance Time Offset (h)" line, the month,year table,
// the header "time(UTC),...", the rows up to a blank line, the variable
// descriptions. It returns ErrFormat naming the line at fault.
func ReadPVGISCSV(r io.Reader) (*Series, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxBytes))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff")), true
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("climate: PVGIS CSV line %d: %s: %w", line, fmt.Sprintf(format, a...), ErrFormat)
	}
	s := &Series{Format: PVGISCSV, Source: "PVGIS TMY"}
	offsetH, cols, err := s.pvgisCSVHeader(next)
	if err != nil {
		return nil, bad("%v", err)
	}
	iT, iG, iB, iD := index(cols, "time(UTC)"), index(cols, "G(h)"), index(cols, "Gb(n)"), index(cols, "Gd(h)")
	for {
		l, ok := next()
		if !ok || l == "" {
			break
		}
		f := strings.Split(l, ",")
		if len(f) != len(cols) {
			return nil, bad("%d fields, header has %d", len(f), len(cols))
		}
		rec, err := pvgisRecord(f[iT], f[iG], f[iB], f[iD], offsetH)
		if err != nil {
			return nil, bad("%v", err)
		}
		if len(s.Records) == MaxRecords {
			return nil, bad("more than %d records", MaxRecords)
		}
		s.Records = append(s.Records, rec)
	}
	for sc.Scan() { // trailer: variable descriptions and the copyright line
		line++
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Radiation database") {
			s.Source = "PVGIS TMY, " + strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("climate: PVGIS CSV after line %d: %v: %w", line, err, ErrFormat)
	}
	return s.finish()
}

// pvgisCSVHeader reads the lines before the rows: the site, the optional
// irradiance time offset, the month,year table and the column header.
func (s *Series) pvgisCSVHeader(next func() (string, bool)) (offsetH float64, cols []string, err error) {
	for _, f := range []struct {
		prefix string
		dst    *float64
	}{{"Latitude", &s.Site.LatDeg}, {"Longitude", &s.Site.LonDeg}, {"Elevation", &s.Site.ElevationM}} {
		l, ok := next()
		v, err := headerValue(l, f.prefix)
		if !ok || err != nil {
			return 0, nil, fmt.Errorf("want %q header", f.prefix)
		}
		*f.dst = v
	}
	if err := checkSite(s.Site); err != nil {
		return 0, nil, err
	}
	l, _ := next()
	if strings.HasPrefix(l, "Irradiance Time Offset") {
		v, err := headerValue(l, "Irradiance Time Offset")
		if err != nil || !(v >= -1 && v <= 1) {
			return 0, nil, fmt.Errorf("irradiance time offset %q (want -1..1 h)", l)
		}
		offsetH = v
		l, _ = next()
	}
	if l != "month,year" {
		return 0, nil, fmt.Errorf("want \"month,year\", got %.40q", l)
	}
	for range 12 {
		if l, _ = next(); !monthYear(l) {
			return 0, nil, fmt.Errorf("want month,year row, got %.40q", l)
		}
	}
	l, _ = next()
	cols = strings.Split(l, ",")
	if index(cols, "time(UTC)") != 0 || index(cols, "G(h)") < 0 || index(cols, "Gb(n)") < 0 || index(cols, "Gd(h)") < 0 {
		return 0, nil, fmt.Errorf("header %.80q lacks time(UTC), G(h), Gb(n) or Gd(h)", l)
	}
	return offsetH, cols, nil
}

// pvgisJSON is the part of PVGIS's TMY JSON (outputformat=json) we read.
type pvgisJSON struct {
	Inputs struct {
		Location struct {
			Latitude, Longitude, Elevation *float64
			IrradianceTimeOffset           *float64 `json:"irradiance_time_offset"`
		} `json:"location"`
		MeteoData struct {
			RadiationDB string `json:"radiation_db"`
			MeteoDB     string `json:"meteo_db"`
			YearMin     int    `json:"year_min"`
			YearMax     int    `json:"year_max"`
		} `json:"meteo_data"`
	} `json:"inputs"`
	Outputs struct {
		TMYHourly []map[string]json.RawMessage `json:"tmy_hourly"`
	} `json:"outputs"`
}

// ReadPVGISJSON parses a PVGIS TMY JSON (outputformat=json) as pvlib's
// read_pvgis_tmy(pvgis_format='json'): inputs.location, inputs.meteo_data
// and outputs.tmy_hourly. It returns ErrFormat naming the row at fault.
func ReadPVGISJSON(r io.Reader) (*Series, error) {
	var doc pvgisJSON
	dec := json.NewDecoder(io.LimitReader(r, MaxBytes))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("climate: PVGIS JSON: %v: %w", err, ErrFormat)
	}
	loc := doc.Inputs.Location
	if loc.Latitude == nil || loc.Longitude == nil || loc.Elevation == nil {
		return nil, fmt.Errorf("climate: PVGIS JSON: inputs.location lacks latitude, longitude or elevation: %w", ErrFormat)
	}
	s := &Series{Format: PVGISJSON, Site: solar.Site{LatDeg: *loc.Latitude, LonDeg: *loc.Longitude, ElevationM: *loc.Elevation}}
	if err := checkSite(s.Site); err != nil {
		return nil, fmt.Errorf("climate: PVGIS JSON: %v: %w", err, ErrFormat)
	}
	var offsetH float64
	if loc.IrradianceTimeOffset != nil {
		if offsetH = *loc.IrradianceTimeOffset; !(offsetH >= -1 && offsetH <= 1) {
			return nil, fmt.Errorf("climate: PVGIS JSON: irradiance time offset %g (want -1..1 h): %w", offsetH, ErrFormat)
		}
	}
	m := doc.Inputs.MeteoData
	s.Source = "PVGIS TMY"
	if m.RadiationDB != "" {
		s.Source += ", " + m.RadiationDB
		if m.MeteoDB != "" {
			s.Source += " / " + m.MeteoDB
		}
	}
	if m.YearMin > 0 && m.YearMax >= m.YearMin {
		s.Source += fmt.Sprintf(", %d-%d", m.YearMin, m.YearMax)
	}
	if len(doc.Outputs.TMYHourly) > MaxRecords {
		return nil, fmt.Errorf("climate: PVGIS JSON: more than %d records: %w", MaxRecords, ErrFormat)
	}
	s.Records = make([]solar.Record, 0, len(doc.Outputs.TMYHourly))
	for i, row := range doc.Outputs.TMYHourly {
		rec, err := pvgisJSONRecord(row, offsetH)
		if err != nil {
			return nil, fmt.Errorf("climate: PVGIS JSON: tmy_hourly[%d]: %v: %w", i, err, ErrFormat)
		}
		s.Records = append(s.Records, rec)
	}
	return s.finish()
}

// pvgisJSONRecord parses one object of tmy_hourly.
func pvgisJSONRecord(row map[string]json.RawMessage, offsetH float64) (solar.Record, error) {
	var f [4]string
	for j, k := range [...]string{"time(UTC)", "G(h)", "Gb(n)", "Gd(h)"} {
		raw, ok := row[k]
		if !ok {
			return solar.Record{}, fmt.Errorf("lacks %q", k)
		}
		f[j] = string(raw)
	}
	if err := json.Unmarshal([]byte(f[0]), &f[0]); err != nil {
		return solar.Record{}, fmt.Errorf("time: %v", err)
	}
	return pvgisRecord(f[0], f[1], f[2], f[3], offsetH)
}

// pvgisRecord parses one row: the UTC stamp "YYYYMMDD:HHMM" and GHI, DNI,
// DHI; the record is placed at the stamp plus offsetH hours.
func pvgisRecord(stamp, ghi, dni, dhi string, offsetH float64) (solar.Record, error) {
	t, err := time.Parse("20060102:1504", strings.TrimSpace(stamp))
	if err != nil {
		return solar.Record{}, fmt.Errorf("time %.20q: want YYYYMMDD:HHMM", stamp)
	}
	var v [3]float64
	for i, s := range [...]string{ghi, dni, dhi} {
		if v[i], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return solar.Record{}, fmt.Errorf("irradiance %.20q: not a number", s)
		}
	}
	if err := checkIrradiance(v[:]...); err != nil {
		return solar.Record{}, err
	}
	t = t.Add(time.Duration(math.Round(offsetH * float64(time.Hour))))
	return solar.Record{Time: t, Irradiance: solar.Irradiance{GHI: v[0], DNI: v[1], DHI: v[2]}}, nil
}

// headerValue parses "Prefix ...: number".
func headerValue(l, prefix string) (float64, error) {
	k, v, ok := strings.Cut(l, ":")
	if !ok || !strings.HasPrefix(k, prefix) {
		return 0, ErrFormat
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, ErrFormat
	}
	return x, nil
}

func monthYear(l string) bool {
	m, y, ok := strings.Cut(l, ",")
	mi, err1 := strconv.Atoi(m)
	yi, err2 := strconv.Atoi(y)
	return ok && err1 == nil && err2 == nil && mi >= 1 && mi <= 12 && yi > 1900 && yi < 2200
}

func index(cols []string, name string) int {
	for i, c := range cols {
		if strings.TrimSpace(c) == name {
			return i
		}
	}
	return -1
}
