// Package geoid turns DHHN2016 normal heights into the GRS80 ellipsoidal
// heights a 3D globe expects: h = H + N, where N is the undulation of a
// geoid or quasigeoid model at the point, interpolated bilinearly in the
// model's grid as PROJ does.
//
// The default model is embedded: the Germany subset (4-17° E, 46-57° N,
// at least one degree around every BL) of the EGM96 15' grid that PROJ
// distributes as egm96_15.gtx (public domain; Debian package proj-data).
// An operator can load a better one, such as the German quasigeoid GCG2016
// (de_bkg_gcg2016.tif as PROJ distributes it), from a PROJ .gtx file or a
// GeoTIFF grid in geographic coordinates.
package geoid

//go:generate go run ./internal/gen /usr/share/proj/egm96_15.gtx egm96_de.gtx

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"sync"
)

// ErrInvalid reports a grid that cannot serve as a height model; the error
// text says what is wrong with it.
var ErrInvalid = errors.New("geoid: invalid grid")

// Model is a grid of undulations in metres on a regular lon/lat lattice of
// nodes (degrees). It is immutable and safe for concurrent use.
type Model struct {
	id         string
	lon0, lat0 float64 // the south-west node
	dlon, dlat float64 // node spacing, positive
	cols, rows int
	v          []float32 // row-major from the south row; NaN where the source has no data
	wrap       bool      // the columns go once around the globe
}

// ID names the model and its source, as recorded in tilesets and listings
// (height_model).
func (m *Model) ID() string { return m.id }

// Undulation returns N at lon, lat (degrees), bilinear between the four
// surrounding nodes; ok is false outside the grid or next to a node
// without data.
func (m *Model) Undulation(lon, lat float64) (n float64, ok bool) {
	fx := (lon - m.lon0) / m.dlon
	if m.wrap {
		fx = math.Mod(fx, float64(m.cols))
		if fx < 0 {
			fx += float64(m.cols)
		}
	}
	fy := (lat - m.lat0) / m.dlat
	if !(fx >= 0 && fy >= 0) || fy > float64(m.rows-1) || (!m.wrap && fx > float64(m.cols-1)) {
		return 0, false
	}
	c, r := int(fx), int(fy)
	if r == m.rows-1 {
		r--
	}
	c1 := c + 1
	if !m.wrap && c == m.cols-1 {
		c, c1 = c-1, c
	} else if c1 == m.cols {
		c1 = 0
	}
	tx, ty := fx-float64(c), fy-float64(r)
	at := func(c, r int) float64 { return float64(m.v[r*m.cols+c]) }
	v00, v10, v01, v11 := at(c, r), at(c1, r), at(c, r+1), at(c1, r+1)
	n = (1-ty)*((1-tx)*v00+tx*v10) + ty*((1-tx)*v01+tx*v11)
	if math.IsNaN(n) {
		return 0, false
	}
	return n, true
}

// plausible bounds every geoid and quasigeoid on Earth (EGM96 spans about
// -107 to 86 m); values outside mean a wrong unit or a broken file.
const plausible = 150

// Validate checks that m can serve the box (degrees): the grid covers it,
// every node in it has a finite value within ±150 m. The error names the
// first problem and where.
func (m *Model) Validate(lonMin, latMin, lonMax, latMax float64) error {
	c0, r0 := math.Floor((lonMin-m.lon0)/m.dlon), math.Floor((latMin-m.lat0)/m.dlat)
	c1, r1 := math.Ceil((lonMax-m.lon0)/m.dlon), math.Ceil((latMax-m.lat0)/m.dlat)
	if !m.wrap && (c0 < 0 || c1 > float64(m.cols-1)) || r0 < 0 || r1 > float64(m.rows-1) {
		return fmt.Errorf("%w: %s covers lon %.4f..%.4f, lat %.4f..%.4f, not the area lon %.4f..%.4f, lat %.4f..%.4f",
			ErrInvalid, m.id, m.lon0, m.lon0+m.dlon*float64(m.cols-1), m.lat0, m.lat0+m.dlat*float64(m.rows-1),
			lonMin, lonMax, latMin, latMax)
	}
	for r := int(r0); r <= int(r1); r++ {
		for c := int(c0); c <= int(c1); c++ {
			cc := c % m.cols
			if cc < 0 {
				cc += m.cols
			}
			v := float64(m.v[r*m.cols+cc])
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				return fmt.Errorf("%w: %s has no value at lon %.4f, lat %.4f, inside the area it must cover",
					ErrInvalid, m.id, m.lon0+float64(c)*m.dlon, m.lat0+float64(r)*m.dlat)
			case math.Abs(v) > plausible:
				return fmt.Errorf("%w: %s gives %.3f m at lon %.4f, lat %.4f: no geoid is that far from the ellipsoid (wrong unit or not a geoid grid?)",
					ErrInvalid, m.id, v, m.lon0+float64(c)*m.dlon, m.lat0+float64(r)*m.dlat)
			}
		}
	}
	return nil
}

//go:embed egm96_de.gtx
var egm96DE []byte

var defaultModel = sync.OnceValue(func() *Model {
	m, err := parseGTX(egm96DE, "EGM96 (egm96_15.gtx, PROJ; Germany subset)")
	if err != nil {
		panic("geoid: embedded EGM96 subset: " + err.Error()) // a build defect, caught by the tests
	}
	return m
})

// Default returns the embedded EGM96 Germany subset.
func Default() *Model { return defaultModel() }

// newModel checks the lattice and builds a Model.
func newModel(id string, lon0, lat0, dlon, dlat float64, cols, rows int, v []float32) (*Model, error) {
	for _, f := range []float64{lon0, lat0, dlon, dlat} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%w: %s: non-finite origin or spacing", ErrInvalid, id)
		}
	}
	switch {
	case cols < 2 || rows < 2:
		return nil, fmt.Errorf("%w: %s: %d x %d nodes, need at least 2 x 2", ErrInvalid, id, cols, rows)
	case dlon <= 0 || dlat <= 0 || dlon > 10 || dlat > 10:
		return nil, fmt.Errorf("%w: %s: node spacing %g° x %g° is not a geoid grid's", ErrInvalid, id, dlon, dlat)
	case lat0 < -90.001 || lat0+dlat*float64(rows-1) > 90.001 || lon0 < -360 || lon0 > 360:
		return nil, fmt.Errorf("%w: %s: lattice from lon %g, lat %g is not in degrees", ErrInvalid, id, lon0, lat0)
	case len(v) != cols*rows:
		return nil, fmt.Errorf("%w: %s: %d values for %d x %d nodes", ErrInvalid, id, len(v), cols, rows)
	}
	span := dlon * float64(cols)
	return &Model{id: id, lon0: lon0, lat0: lat0, dlon: dlon, dlat: dlat, cols: cols, rows: rows, v: v,
		wrap: math.Abs(span-360) < dlon/2}, nil
}

// Extent returns the grid's west, south, east and north node lines
// (degrees); a grid going round the globe spans 360° of longitude.
func (m *Model) Extent() (w, s, e, n float64) {
	e = m.lon0 + m.dlon*float64(m.cols-1)
	if m.wrap {
		e = m.lon0 + 360
	}
	return m.lon0, m.lat0, e, m.lat0 + m.dlat*float64(m.rows-1)
}
