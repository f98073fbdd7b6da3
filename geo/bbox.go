package geo

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// BBoxForm is the expected form of a bbox parameter, named in every
// BBoxError message.
const BBoxForm = "minLon,minLat,maxLon,maxLat"

// ErrBBox is wrapped by every error ParseBBox returns.
var ErrBBox = errors.New("geo: invalid bbox")

// BBoxError describes why a bbox string was rejected. It wraps ErrBBox.
type BBoxError struct {
	// Reason says what is wrong, for example `minLat 91 is outside -90..90`.
	Reason string
	// OutOfRange is true when all four numbers parsed but a value lies
	// outside its range or a minimum exceeds its maximum (a validation
	// failure, HTTP 422); otherwise the string is malformed (HTTP 400).
	OutOfRange bool
}

// Error returns the reason and the expected form.
func (e *BBoxError) Error() string {
	return "geo: invalid bbox: " + e.Reason + "; expected " + BBoxForm
}

// Unwrap returns ErrBBox.
func (e *BBoxError) Unwrap() error { return ErrBBox }

// BBox is a WGS84 box in decimal degrees, bounded by two meridians and two
// parallels. Boxes crossing the antimeridian are not represented. A box
// with MinLon == MaxLon or MinLat == MaxLat is degenerate but valid.
type BBox struct {
	MinLon, MinLat, MaxLon, MaxLat float64
}

// ParseBBox parses `minLon,minLat,maxLon,maxLat`: exactly four finite decimal
// numbers separated by commas (spaces and tabs around a number are
// tolerated), lon in -180..180, lat in -90..90, minLon <= maxLon and
// minLat <= maxLat. Any failure returns a *BBoxError wrapping ErrBBox;
// malformed input is reported before values out of range.
func ParseBBox(s string) (BBox, error) {
	if strings.Trim(s, " \t") == "" {
		return BBox{}, &BBoxError{Reason: "is empty"}
	}
	if c := strings.Count(s, ","); c != 3 {
		return BBox{}, &BBoxError{Reason: fmt.Sprintf("has %d values, want 4", c+1)}
	}
	names := [4]string{"minLon", "minLat", "maxLon", "maxLat"}
	var v [4]float64
	for i := range v {
		var field string
		field, s, _ = strings.Cut(s, ",")
		x, reason := parseNumber(field)
		if reason != "" {
			return BBox{}, &BBoxError{Reason: names[i] + " " + reason}
		}
		v[i] = x
	}
	for i, x := range v {
		limit := 180.0
		if i%2 == 1 {
			limit = 90
		}
		if reason := checkRange(x, limit); reason != "" {
			return BBox{}, &BBoxError{Reason: names[i] + " " + reason, OutOfRange: true}
		}
	}
	b := BBox{MinLon: v[0], MinLat: v[1], MaxLon: v[2], MaxLat: v[3]}
	if b.MinLon > b.MaxLon {
		return BBox{}, &BBoxError{Reason: fmt.Sprintf("minLon %g is greater than maxLon %g", b.MinLon, b.MaxLon), OutOfRange: true}
	}
	if b.MinLat > b.MaxLat {
		return BBox{}, &BBoxError{Reason: fmt.Sprintf("minLat %g is greater than maxLat %g", b.MinLat, b.MaxLat), OutOfRange: true}
	}
	return b, nil
}

// Intersects reports whether b and o share at least one point; boxes that
// only touch at an edge or corner intersect, as do degenerate boxes.
func (b BBox) Intersects(o BBox) bool {
	return b.MinLon <= o.MaxLon && o.MinLon <= b.MaxLon &&
		b.MinLat <= o.MaxLat && o.MinLat <= b.MaxLat
}

// Contains reports whether lon, lat (degrees) lies in b, edges included.
func (b BBox) Contains(lon, lat float64) bool {
	return b.MinLon <= lon && lon <= b.MaxLon && b.MinLat <= lat && lat <= b.MaxLat
}

// Center returns the midpoint of b in degrees (mean longitude, mean latitude).
func (b BBox) Center() LonLat {
	return LonLat{Lon: (b.MinLon + b.MaxLon) / 2, Lat: (b.MinLat + b.MaxLat) / 2}
}

// edgeSegments is the number of segments each edge is cut into by BBox.ToUTM.
const edgeSegments = 16

// ToUTM returns the envelope, in metres of zone z, of b projected to UTM.
// The edges curve in UTM, so each edge is densified to 17 points and the
// central meridian is added where it crosses the box: a parallel's northing
// is extreme there, and everything else is monotonic along the edges, so the
// envelope is exact. A degenerate box gives the envelope of a line or point.
func (b BBox) ToUTM(z Zone) (minE, minN, maxE, maxN float64) {
	minE, minN = math.Inf(1), math.Inf(1)
	maxE, maxN = math.Inf(-1), math.Inf(-1)
	add := func(lon, lat float64) {
		e, n := ToUTM(z, lon, lat)
		minE, maxE = math.Min(minE, e), math.Max(maxE, e)
		minN, maxN = math.Min(minN, n), math.Max(maxN, n)
	}
	for i := 0; i <= edgeSegments; i++ {
		t := float64(i) / edgeSegments
		lon := (1-t)*b.MinLon + t*b.MaxLon
		lat := (1-t)*b.MinLat + t*b.MaxLat
		add(lon, b.MinLat)
		add(lon, b.MaxLat)
		add(b.MinLon, lat)
		add(b.MaxLon, lat)
	}
	if cm := z.CentralMeridian(); b.MinLon < cm && cm < b.MaxLon {
		add(cm, b.MinLat)
		add(cm, b.MaxLat)
	}
	return minE, minN, maxE, maxN
}

// AreaKM2 returns the area of b on the GRS80 ellipsoid in square kilometres,
// from the closed form for a zone between two parallels (authalic
// latitude), exact to rounding for any box size. A degenerate box gives 0.
func (b BBox) AreaKM2() float64 {
	dLam := (b.MaxLon - b.MinLon) * degToRad
	m2 := semiMajor * semiMajor / 2 * dLam * (authalicQ(b.MaxLat) - authalicQ(b.MinLat))
	return m2 / 1e6
}

// authalicQ returns q(lat) of the authalic latitude (Snyder 1987, eq. 3-12);
// the ellipsoid's area between the equator and lat over dLam radians is
// a^2/2 * dLam * q(lat).
func authalicQ(lat float64) float64 {
	const e2 = flattening * (2 - flattening)
	e := math.Sqrt(e2)
	s := math.Sin(lat * degToRad)
	return (1 - e2) * (s/(1-e2*s*s) + math.Atanh(e*s)/e)
}
