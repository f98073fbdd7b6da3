// Package germany is svc's default climate for Germany: the long-term
// monthly mean global horizontal irradiance of EUMETSAT CM SAF (surface
// incoming shortwave radiation, SIS, monthly means 2006-2025 on a 0.2°
// grid, as tabled by IWU's clidamonger package), embedded, and a hourly
// year synthesized from it for package solar (Series). The solar route uses
// it when the operator gives no --irradiance file. docs/solar.md, section
// "Default climate", states the source, the licences and the method.
package germany

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// tableCSV is made by scripts/climate/clidamonger.R: comment lines, then
// per grid point (north to south, west to east) lat, lon and the twelve
// monthly means in W/m².
//
//go:embed sis_monthly.csv
var tableCSV []byte

// The grid the table covers: Germany's extent plus one step on each side.
const (
	StepDeg              = 0.2
	NorthDeg, SouthDeg   = 55.4, 47.0
	WestDeg, EastDeg     = 5.6, 15.4
	nLat, nLon           = 43, 50
	FirstYear, LastYear  = 2006, 2025 // the years the monthly means are taken over
	Resolution           = "0.2° x 0.2° (about 22 km x 14 km)"
	clidamongerVersion   = "1.5.0"
	clidamongerCommit    = "44b0e0177e4490a42e35b4e35fd84eb95c49cf23"
	clidamongerReference = "https://github.com/IWUGERMANY/clidamonger"
	// Compiled is the date IWU compiled the monthly values (clidamonger's
	// Date_Compiled), the snapshot of the default climate.
	Compiled = "2026-01-22"
)

// Attribution credits the data of the default climate as the CM SAF terms
// (EUMETSAT's copyright) and clidamonger's CC BY 4.0 ask; every answer that
// uses the default climate carries it.
const Attribution = "Irradiance: contains CM SAF data, © EUMETSAT (monthly SIS 2006-2025, provided by DWD); tabled by IWU " +
	"Institut Wohnen und Umwelt in clidamonger " + clidamongerVersion + " (" + clidamongerReference + "), CC BY 4.0; modified: " +
	"Germany subset, long-term monthly means, hourly year synthesized by svc"

// ErrOutside marks a point outside the table's grid (Germany's extent).
var ErrOutside = errors.New("germany: outside the default climate's grid")

// Interpolation selects how Monthly reads the grid.
type Interpolation int

const (
	// Nearest takes the grid point nearest to the location (the cell's value).
	Nearest Interpolation = iota
	// Bilinear weights the four surrounding grid points.
	Bilinear
)

// table is the parsed grid: v[(row*nLon+col)*12+month], row 0 the north.
type table struct{ v []float32 }

// load parses the embedded table once; an error is a build defect that
// the tests catch.
var load = sync.OnceValues(func() (*table, error) { return parse(tableCSV) })

// TableSHA256 is the hex SHA-256 of the embedded table (sis_monthly.csv):
// part of the identity of a solar store computed under the default climate.
var TableSHA256 = sync.OnceValue(func() string {
	sum := sha256.Sum256(tableCSV)
	return hex.EncodeToString(sum[:])
})

func parse(b []byte) (*table, error) {
	t := &table{v: make([]float32, nLat*nLon*12)}
	sc := bufio.NewScanner(bytes.NewReader(b))
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 14 {
			return nil, fmt.Errorf("germany: table row %d: %d fields, want 14", n, len(f))
		}
		var x [14]float64
		for i, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("germany: table row %d: %w", n, err)
			}
			x[i] = v
		}
		row, col := n/nLon, n%nLon
		if math.Abs(x[0]-(NorthDeg-float64(row)*StepDeg)) > 1e-6 || math.Abs(x[1]-(WestDeg+float64(col)*StepDeg)) > 1e-6 {
			return nil, fmt.Errorf("germany: table row %d at %g, %g, want the grid order", n, x[0], x[1])
		}
		for m := range 12 {
			if !(x[2+m] >= 0 && x[2+m] < 500) {
				return nil, fmt.Errorf("germany: table row %d month %d: %g W/m²", n, m+1, x[2+m])
			}
			t.v[n*12+m] = float32(x[2+m])
		}
		n++
	}
	if n != nLat*nLon {
		return nil, fmt.Errorf("germany: table has %d points, want %d", n, nLat*nLon)
	}
	return t, sc.Err()
}

// Cell is a grid point of the table: the default climate is computed per
// cell (the 0.2° square around the point).
type Cell struct{ Row, Col int }

// LatDeg is the cell's latitude, WGS84 degrees.
func (c Cell) LatDeg() float64 { return round1(NorthDeg - float64(c.Row)*StepDeg) }

// LonDeg is the cell's longitude, WGS84 degrees.
func (c Cell) LonDeg() float64 { return round1(WestDeg + float64(c.Col)*StepDeg) }

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// gridPos returns the fractional row (from the north) and column of a
// WGS84 point, or ErrOutside.
func gridPos(latDeg, lonDeg float64) (r, c float64, err error) {
	if !(latDeg >= SouthDeg && latDeg <= NorthDeg && lonDeg >= WestDeg && lonDeg <= EastDeg) {
		return 0, 0, fmt.Errorf("germany: %.5f N, %.5f E (the grid spans %g-%g N, %g-%g E): %w",
			latDeg, lonDeg, SouthDeg, NorthDeg, WestDeg, EastDeg, ErrOutside)
	}
	return (NorthDeg - latDeg) / StepDeg, (lonDeg - WestDeg) / StepDeg, nil
}

// CellAt returns the grid point nearest to the WGS84 point, or ErrOutside.
func CellAt(latDeg, lonDeg float64) (Cell, error) {
	r, c, err := gridPos(latDeg, lonDeg)
	if err != nil {
		return Cell{}, err
	}
	return Cell{Row: int(math.Round(r)), Col: int(math.Round(c))}, nil
}

// Monthly returns the long-term mean global horizontal irradiance of each
// month (January first) at the WGS84 point, in W/m² (the mean over all
// hours of the month, night included), read with the interpolation in. It
// returns ErrOutside beyond the grid.
func Monthly(latDeg, lonDeg float64, in Interpolation) ([12]float64, error) {
	var out [12]float64
	t, err := load()
	if err != nil {
		return out, err
	}
	r, c, err := gridPos(latDeg, lonDeg)
	if err != nil {
		return out, err
	}
	if in == Nearest {
		return t.at(int(math.Round(r)), int(math.Round(c))), nil
	}
	r0, c0 := min(int(r), nLat-2), min(int(c), nLon-2)
	fr, fc := r-float64(r0), c-float64(c0)
	a, b, cc, d := t.at(r0, c0), t.at(r0, c0+1), t.at(r0+1, c0), t.at(r0+1, c0+1)
	for m := range out {
		out[m] = (a[m]*(1-fc)+b[m]*fc)*(1-fr) + (cc[m]*(1-fc)+d[m]*fc)*fr
	}
	return out, nil
}

// MonthlyAt returns the monthly means of a grid point.
func MonthlyAt(c Cell) ([12]float64, error) {
	t, err := load()
	if err != nil {
		return [12]float64{}, err
	}
	if c.Row < 0 || c.Row >= nLat || c.Col < 0 || c.Col >= nLon {
		return [12]float64{}, fmt.Errorf("germany: cell %d,%d: %w", c.Row, c.Col, ErrOutside)
	}
	return t.at(c.Row, c.Col), nil
}

func (t *table) at(row, col int) [12]float64 {
	var out [12]float64
	for m := range out {
		out[m] = float64(t.v[(row*nLon+col)*12+m])
	}
	return out
}
