package geo

import (
	"math"
	"strconv"
	"strings"
)

// CRS is a coordinate reference system a client may ask for: WGS84 in
// either axis order, ETRS89 geographic, the two UTM zones of the data and
// Web Mercator. ETRS89 and WGS84 coordinates are taken as equal, as PROJ's
// default (ballpark) transformation between them does.
type CRS struct {
	EPSG   int  // 0 for CRS84
	LatLon bool // axis order latitude, longitude (EPSG:4326, EPSG:4258)
}

// CRS84 is WGS84 longitude, latitude: the default of GeoJSON and OGC API.
var CRS84 = CRS{}

// SupportedCRS lists every CRS ParseCRS accepts, CRS84 first.
var SupportedCRS = []CRS{CRS84, {EPSG: 4326, LatLon: true}, {EPSG: 4258, LatLon: true}, {EPSG: 25832}, {EPSG: 25833}, {EPSG: 3857}}

const (
	ogcCRSPrefix  = "http://www.opengis.net/def/crs/"
	crs84URI      = ogcCRSPrefix + "OGC/1.3/CRS84"
	epsgURIPrefix = ogcCRSPrefix + "EPSG/0/"
)

// URI is the CRS's OGC URI.
func (c CRS) URI() string {
	if c.EPSG == 0 {
		return crs84URI
	}
	return epsgURIPrefix + strconv.Itoa(c.EPSG)
}

// Projected tells a CRS in metres.
func (c CRS) Projected() bool { return c.EPSG == 25832 || c.EPSG == 25833 || c.EPSG == 3857 }

// ParseCRS reads an OGC CRS URI, a safe CURIE ([EPSG:25832]) or a short
// form (EPSG:25832, CRS84) of a supported CRS.
func ParseCRS(s string) (CRS, bool) {
	t := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	switch t {
	case crs84URI, "CRS84", "OGC:CRS84", "urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84":
		return CRS84, true
	}
	var code string
	switch {
	case strings.HasPrefix(t, epsgURIPrefix):
		code = strings.TrimPrefix(t, epsgURIPrefix)
	case strings.HasPrefix(t, "EPSG:"):
		code = strings.TrimPrefix(t, "EPSG:")
	case strings.HasPrefix(t, "urn:ogc:def:crs:EPSG::"):
		code = strings.TrimPrefix(t, "urn:ogc:def:crs:EPSG::")
	default:
		return CRS{}, false
	}
	n, err := strconv.Atoi(code)
	if err != nil || strconv.Itoa(n) != code {
		return CRS{}, false
	}
	for _, c := range SupportedCRS {
		if c.EPSG == n {
			return c, true
		}
	}
	return CRS{}, false
}

// webMercatorR is the sphere radius of EPSG:3857 (the WGS84 semi-major axis).
const webMercatorR = 6378137.0

// maxMercatorLat is where EPSG:3857 ends.
const maxMercatorLat = 85.06

// FromWGS84 gives the coordinates of lon, lat in c, in c's axis order.
func (c CRS) FromWGS84(lon, lat float64) (a, b float64) {
	switch c.EPSG {
	case 0:
		return lon, lat
	case 4326, 4258:
		return lat, lon
	case 25832:
		return ToUTM(Zone32, lon, lat)
	case 25833:
		return ToUTM(Zone33, lon, lat)
	case 3857:
		lat = math.Max(-maxMercatorLat, math.Min(maxMercatorLat, lat))
		return webMercatorR * lon * math.Pi / 180, webMercatorR * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360))
	}
	return math.NaN(), math.NaN()
}

// ToWGS84 is the inverse of FromWGS84.
func (c CRS) ToWGS84(a, b float64) (lon, lat float64) {
	switch c.EPSG {
	case 0:
		return a, b
	case 4326, 4258:
		return b, a
	case 25832:
		return FromUTM(Zone32, a, b)
	case 25833:
		return FromUTM(Zone33, a, b)
	case 3857:
		return a / webMercatorR * 180 / math.Pi, (2*math.Atan(math.Exp(b/webMercatorR)) - math.Pi/2) * 180 / math.Pi
	}
	return math.NaN(), math.NaN()
}

// BBoxToWGS84 converts the box minA, minB, maxA, maxB given in c to the
// WGS84 box enclosing it: for a projected CRS the edges are sampled, since
// a straight edge in metres is curved in degrees.
func (c CRS) BBoxToWGS84(minA, minB, maxA, maxB float64) BBox {
	if !c.Projected() {
		lon0, lat0 := c.ToWGS84(minA, minB)
		lon1, lat1 := c.ToWGS84(maxA, maxB)
		return BBox{MinLon: math.Min(lon0, lon1), MinLat: math.Min(lat0, lat1), MaxLon: math.Max(lon0, lon1), MaxLat: math.Max(lat0, lat1)}
	}
	out := BBox{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	const steps = 16
	for i := range steps + 1 {
		t := float64(i) / steps
		for _, p := range [][2]float64{{minA + t*(maxA-minA), minB}, {minA + t*(maxA-minA), maxB}, {minA, minB + t*(maxB-minB)}, {maxA, minB + t*(maxB-minB)}} {
			lon, lat := c.ToWGS84(p[0], p[1])
			out.MinLon, out.MaxLon = math.Min(out.MinLon, lon), math.Max(out.MaxLon, lon)
			out.MinLat, out.MaxLat = math.Min(out.MinLat, lat), math.Max(out.MaxLat, lat)
		}
	}
	return out
}
