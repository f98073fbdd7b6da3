package geoid

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The NOAA/PROJ .gtx format: a 40-byte big-endian header (south-west node
// latitude and longitude, latitude and longitude spacing as float64, rows
// and columns as int32), then rows x columns big-endian float32 values, row
// by row from the south. -88.8888 marks a node without data.
const (
	gtxHeader = 40
	gtxNodata = -88.8888
	// maxNodes bounds what a grid may claim before anything is allocated
	// (the global 1' EGM2008 grid has 233 M nodes; no German model is near).
	maxNodes = 64 << 20
)

// parseGTX reads a .gtx grid.
func parseGTX(b []byte, id string) (*Model, error) {
	if len(b) < gtxHeader {
		return nil, fmt.Errorf("%w: %s: %d bytes, a .gtx header alone has %d", ErrInvalid, id, len(b), gtxHeader)
	}
	f := func(i int) float64 { return math.Float64frombits(binary.BigEndian.Uint64(b[i:])) }
	lat0, lon0, dlat, dlon := f(0), f(8), f(16), f(24)
	rows, cols := int64(int32(binary.BigEndian.Uint32(b[32:]))), int64(int32(binary.BigEndian.Uint32(b[36:])))
	if rows < 2 || cols < 2 || rows*cols > maxNodes {
		return nil, fmt.Errorf("%w: %s: header gives %d x %d nodes", ErrInvalid, id, rows, cols)
	}
	if want := gtxHeader + 4*rows*cols; int64(len(b)) != want {
		return nil, fmt.Errorf("%w: %s: %d bytes, the header's %d x %d nodes need %d (truncated or not a .gtx file?)",
			ErrInvalid, id, len(b), rows, cols, want)
	}
	v := make([]float32, rows*cols)
	for i := range v {
		x := math.Float32frombits(binary.BigEndian.Uint32(b[gtxHeader+4*i:]))
		if math.Abs(float64(x)-gtxNodata) < 1e-3 {
			x = float32(math.NaN())
		}
		v[i] = x
	}
	if lon0 > 180 { // some grids count longitudes 0..360
		lon0 -= 360
	}
	return newModel(id, lon0, lat0, dlon, dlat, int(cols), int(rows), v)
}

// appendGTX writes the nodes of m from column c0 and row r0, cols x rows of
// them, as a .gtx file.
func appendGTX(dst []byte, m *Model, c0, r0, cols, rows int) []byte {
	var h [gtxHeader]byte
	binary.BigEndian.PutUint64(h[0:], math.Float64bits(m.lat0+float64(r0)*m.dlat))
	binary.BigEndian.PutUint64(h[8:], math.Float64bits(m.lon0+float64(c0)*m.dlon))
	binary.BigEndian.PutUint64(h[16:], math.Float64bits(m.dlat))
	binary.BigEndian.PutUint64(h[24:], math.Float64bits(m.dlon))
	binary.BigEndian.PutUint32(h[32:], uint32(rows))
	binary.BigEndian.PutUint32(h[36:], uint32(cols))
	dst = append(dst, h[:]...)
	for r := r0; r < r0+rows; r++ {
		for c := c0; c < c0+cols; c++ {
			x := m.v[r*m.cols+((c%m.cols)+m.cols)%m.cols]
			if math.IsNaN(float64(x)) {
				x = gtxNodata
			}
			dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(x))
		}
	}
	return dst
}
