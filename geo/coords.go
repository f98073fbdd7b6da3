package geo

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CoordsForm is the expected form of a coords parameter, named in every
// CoordsError message.
const CoordsForm = "lon1,lat1;lon2,lat2[;...]"

// ErrCoords is wrapped by every error ParseCoords returns.
var ErrCoords = errors.New("geo: invalid coords")

// CoordsError describes why a coords string was rejected. It wraps ErrCoords.
type CoordsError struct {
	// Reason says what is wrong, for example `point 2 lat 91 is outside -90..90`.
	Reason string
	// OutOfRange is true when every number parsed but a value lies outside
	// its range (a validation failure, HTTP 422); otherwise the string is
	// malformed or has too few or too many points (HTTP 400).
	OutOfRange bool
}

// Error returns the reason and the expected form.
func (e *CoordsError) Error() string {
	return "geo: invalid coords: " + e.Reason + "; expected " + CoordsForm
}

// Unwrap returns ErrCoords.
func (e *CoordsError) Unwrap() error { return ErrCoords }

// LonLat is a WGS84 position in decimal degrees, longitude first.
type LonLat struct {
	Lon, Lat float64
}

// ParseCoords parses a polyline `lon1,lat1;lon2,lat2[;...]` in WGS84 degrees.
// Each point is exactly two finite decimal numbers (spaces and tabs around a
// number are tolerated), lon in -180..180 and lat in -90..90. It needs at
// least 2 and at most maxPoints points; the point count is checked before anything
// is allocated, so maxPoints bounds the allocation. Any failure returns a
// *CoordsError wrapping ErrCoords; malformed input is reported before values
// out of range.
func ParseCoords(s string, maxPoints int) ([]LonLat, error) {
	if strings.Trim(s, " \t") == "" {
		return nil, &CoordsError{Reason: "is empty"}
	}
	count := strings.Count(s, ";") + 1
	if count < 2 {
		return nil, &CoordsError{Reason: "has 1 point, at least 2 are required"}
	}
	if count > maxPoints {
		return nil, &CoordsError{Reason: fmt.Sprintf("has %d points, at most %d are allowed", count, maxPoints)}
	}
	pts := make([]LonLat, 0, count)
	var rangeErr *CoordsError
	for i := 1; s != ""; i++ {
		var pair string
		pair, s, _ = strings.Cut(s, ";")
		lonStr, latStr, ok := strings.Cut(pair, ",")
		if !ok || strings.Contains(latStr, ",") {
			return nil, &CoordsError{Reason: fmt.Sprintf("point %d %s is not two comma-separated numbers", i, quote(pair))}
		}
		p, err := parsePoint(i, lonStr, latStr)
		if err != nil {
			if !err.OutOfRange {
				return nil, err
			}
			if rangeErr == nil {
				rangeErr = err
			}
		}
		pts = append(pts, p)
	}
	if len(pts) != count { // a trailing ";" leaves the last point empty
		return nil, &CoordsError{Reason: fmt.Sprintf("point %d is empty", count)}
	}
	if rangeErr != nil {
		return nil, rangeErr
	}
	return pts, nil
}

// parsePoint parses point i (1-based) of a coords string; a range error
// still returns the parsed point.
func parsePoint(i int, lonStr, latStr string) (LonLat, *CoordsError) {
	lon, reason := parseNumber(lonStr)
	if reason != "" {
		return LonLat{}, &CoordsError{Reason: fmt.Sprintf("point %d lon %s", i, reason)}
	}
	lat, reason := parseNumber(latStr)
	if reason != "" {
		return LonLat{}, &CoordsError{Reason: fmt.Sprintf("point %d lat %s", i, reason)}
	}
	p := LonLat{Lon: lon, Lat: lat}
	if reason := checkRange(lon, 180); reason != "" {
		return p, &CoordsError{Reason: fmt.Sprintf("point %d lon %s", i, reason), OutOfRange: true}
	}
	if reason := checkRange(lat, 90); reason != "" {
		return p, &CoordsError{Reason: fmt.Sprintf("point %d lat %s", i, reason), OutOfRange: true}
	}
	return p, nil
}

// parseNumber parses one finite decimal number surrounded by optional spaces
// or tabs. It returns a non-empty reason when s is not such a number. Only
// digits, sign, '.', 'e' and 'E' are allowed, which rules out the "Inf",
// "NaN", hexadecimal and underscore forms strconv.ParseFloat also accepts.
func parseNumber(s string) (float64, string) {
	t := strings.Trim(s, " \t")
	if t == "" {
		return 0, "is empty"
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' {
			return 0, quote(t) + " is not a decimal number"
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, quote(t) + " is not a finite decimal number"
	}
	if v == 0 {
		v = 0 // "-0" becomes 0, so it is never echoed back as -0
	}
	return v, ""
}

// ParseDecimal parses a finite decimal number (digits, sign, '.', exponent),
// refusing the hexadecimal, underscore, Inf and NaN forms strconv.ParseFloat
// accepts; every numeric query parameter goes through it.
func ParseDecimal(s string) (float64, bool) {
	if s != strings.Trim(s, " \t") {
		return 0, false
	}
	v, reason := parseNumber(s)
	return v, reason == ""
}

// checkRange returns a non-empty reason when v is outside -limit..limit.
func checkRange(v, limit float64) string {
	if v < -limit || v > limit {
		return fmt.Sprintf("%s is outside %g..%g", strconv.FormatFloat(v, 'g', -1, 64), -limit, limit)
	}
	return ""
}

// quote returns s quoted for an error message, cut to 24 bytes so that a
// huge parameter is not echoed back whole.
func quote(s string) string {
	const maxEcho = 24
	if len(s) > maxEcho {
		return strconv.Quote(s[:maxEcho]) + "..."
	}
	return strconv.Quote(s)
}
