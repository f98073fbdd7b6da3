package geo

import (
	"errors"
	"fmt"
	"math"
)

// MaxSamples caps the sample count of Interpolate, bounding its allocation.
const MaxSamples = 100_000

// ErrInterpolate is wrapped by every error Interpolate returns.
var ErrInterpolate = errors.New("geo: cannot interpolate")

// Sample is one point of an interpolated polyline: its WGS84 position and
// its cumulative distance from the start in metres, measured in UTM zone 32N.
type Sample struct {
	LonLat
	DistanceM float64
}

// Interpolate returns n samples evenly spaced along the polyline pts (WGS84
// degrees). As the profile endpoint specifies, the line is measured in UTM
// zone 32N (EPSG:25832) metres, even for points east of 12 E: each segment
// is straight in UTM32N, samples are spaced by total length / (n-1) along it,
// and their positions are projected back to lon/lat. The first sample is
// pts[0] and the last is pts[len(pts)-1], exactly; the last DistanceM is the
// total length. A polyline of identical points gives n samples at that point
// with distance 0. Distances are meaningful within about 30 degrees of 9 E.
// It returns an error wrapping ErrInterpolate when pts has fewer than 2
// points, n is outside 2..MaxSamples, or a point does not project to finite
// UTM32N coordinates.
func Interpolate(pts []LonLat, n int) ([]Sample, error) {
	if len(pts) < 2 {
		return nil, fmt.Errorf("geo: polyline of %d points, want at least 2: %w", len(pts), ErrInterpolate)
	}
	if n < 2 || n > MaxSamples {
		return nil, fmt.Errorf("geo: %d samples, want 2..%d: %w", n, MaxSamples, ErrInterpolate)
	}
	utm := make([][2]float64, len(pts))
	cum := make([]float64, len(pts)) // cumulative length at each vertex, metres
	for i, p := range pts {
		e, north := ToUTM(Zone32, p.Lon, p.Lat)
		if math.IsNaN(e+north) || math.IsInf(e+north, 0) {
			return nil, fmt.Errorf("geo: point %d (%g,%g) has no UTM32N coordinates: %w", i+1, p.Lon, p.Lat, ErrInterpolate)
		}
		utm[i] = [2]float64{e, north}
		if i > 0 {
			cum[i] = cum[i-1] + math.Hypot(e-utm[i-1][0], north-utm[i-1][1])
		}
	}
	total := cum[len(cum)-1]
	out := make([]Sample, n)
	out[0] = Sample{LonLat: pts[0]}
	out[n-1] = Sample{LonLat: pts[len(pts)-1], DistanceM: total}
	seg := 0 // segment seg runs from vertex seg to seg+1
	for i := 1; i < n-1; i++ {
		d := total * float64(i) / float64(n-1)
		for seg < len(pts)-2 && cum[seg+1] < d {
			seg++
		}
		t := 0.0
		if l := cum[seg+1] - cum[seg]; l > 0 {
			t = math.Min(1, math.Max(0, (d-cum[seg])/l))
		}
		a, b := utm[seg], utm[seg+1]
		lon, lat := FromUTM(Zone32, a[0]+t*(b[0]-a[0]), a[1]+t*(b[1]-a[1]))
		out[i] = Sample{LonLat: LonLat{Lon: lon, Lat: lat}, DistanceM: d}
	}
	return out, nil
}
