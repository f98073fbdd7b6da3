// Package climate reads the hourly solar-radiation time series operators
// have (PVGIS typical meteorological years as CSV or JSON, EnergyPlus EPW)
// into records for package solar. It parses untrusted bytes: every input is
// bounded (MaxRecords, MaxBytes) and every value checked.
package climate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/svc-geodata/svc/solar"
)

// ErrFormat marks input that is not a well-formed file of the format.
var ErrFormat = errors.New("climate: invalid data")

// Limits on untrusted input: a year of 1-minute steps is 527,040 records;
// the largest legitimate file (a year of 10-min EPW) is far below MaxBytes.
const (
	MaxRecords = 527040
	MaxBytes   = 256 << 20
)

// Format names a supported file format.
type Format string

const (
	PVGISCSV  Format = "pvgis-tmy-csv"
	PVGISJSON Format = "pvgis-tmy-json"
	EPW       Format = "epw"
	// CMSAFMonthly is a year synthesized from long-term monthly means of
	// CM SAF (package solar/climate/germany, the default climate); it is
	// not a file format Read accepts.
	CMSAFMonthly Format = "cmsaf-monthly-means"
)

// Series is a climate time series at one site: hourly records of GHI, DNI
// and DHI in W/m² (the mean over the hour), each placed at the centre of its
// hour in UTC, ready for solar.NewSky with StepH.
type Series struct {
	Format Format
	Site   solar.Site
	// Source says where the data come from, as the file states it
	// ("PVGIS-SARAH3 / ERA5, 2005-2023", "EPW: Potsdam DEU, ECMWF/ERA").
	Source string
	// Years the records were taken from (a typical year mixes months of
	// several years), first and last.
	FirstYear, LastYear int
	StepH               float64
	Records             []solar.Record
}

// Read detects the format from the first bytes (a JSON object, an EPW
// LOCATION line, or PVGIS's "Latitude" header) and parses r.
func Read(r io.Reader) (*Series, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxBytes))
	head, _ := br.Peek(64)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("{")):
		return ReadPVGISJSON(br)
	case bytes.HasPrefix(head, []byte("LOCATION,")):
		return ReadEPW(br)
	case bytes.HasPrefix(head, []byte("Latitude")):
		return ReadPVGISCSV(br)
	}
	return nil, fmt.Errorf("climate: not a PVGIS TMY (CSV, JSON) or EPW file: %w", ErrFormat)
}

// checkIrradiance accepts finite values in [0, 2000) W/m² (PVGIS writes
// -0.0 for a zero beam).
func checkIrradiance(v ...float64) error {
	for _, x := range v {
		if !(x >= 0 && x < 2000) {
			return fmt.Errorf("irradiance %g W/m² (want 0..2000)", x)
		}
	}
	return nil
}

func checkSite(s solar.Site) error {
	if !(s.LatDeg >= -90 && s.LatDeg <= 90) || !(s.LonDeg >= -180 && s.LonDeg <= 180) || !(s.ElevationM > -500 && s.ElevationM < 9000) {
		return fmt.Errorf("site %g, %g, %g m out of range", s.LatDeg, s.LonDeg, s.ElevationM)
	}
	return nil
}

// finish checks the series as a whole: not empty, one-hour steps that all
// differ, and records the years.
func (s *Series) finish() (*Series, error) {
	if len(s.Records) == 0 {
		return nil, fmt.Errorf("climate: %s: no records: %w", s.Format, ErrFormat)
	}
	seen := make(map[int64]struct{}, len(s.Records))
	s.FirstYear, s.LastYear = math.MaxInt, math.MinInt
	for _, r := range s.Records {
		u := r.Time.Unix()
		if _, dup := seen[u]; dup {
			return nil, fmt.Errorf("climate: %s: two records at %s: %w", s.Format, r.Time.Format(time.RFC3339), ErrFormat)
		}
		seen[u] = struct{}{}
		y := r.Time.Year()
		s.FirstYear, s.LastYear = min(s.FirstYear, y), max(s.LastYear, y)
	}
	s.StepH = 1
	return s, nil
}
