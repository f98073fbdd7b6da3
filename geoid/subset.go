package geoid

import (
	"fmt"
	"math"
)

// Subset reads the .gtx or GeoTIFF grid at path and returns, as a .gtx
// file, the nodes covering lonMin..lonMax, latMin..latMax (degrees). The
// generator of the embedded default uses it.
func Subset(path string, lonMin, latMin, lonMax, latMax float64) ([]byte, error) {
	m, err := Load(path)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(lonMin, latMin, lonMax, latMax); err != nil {
		return nil, err
	}
	c0 := int(math.Floor((lonMin - m.lon0) / m.dlon))
	r0 := int(math.Floor((latMin - m.lat0) / m.dlat))
	c1 := int(math.Ceil((lonMax - m.lon0) / m.dlon))
	r1 := int(math.Ceil((latMax - m.lat0) / m.dlat))
	if c1 <= c0 || r1 <= r0 {
		return nil, fmt.Errorf("geoid: empty subset")
	}
	return appendGTX(nil, m, c0, r0, c1-c0+1, r1-r0+1), nil
}
