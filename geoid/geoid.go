// Package geoid turns DHHN2016 normal heights into the GRS80 ellipsoidal
// heights a 3D globe expects: h = H + N, where N is the undulation of a
// geoid or quasigeoid model at the point, interpolated bilinearly in the
// model's grid as PROJ does.
//
// Two models are embedded. The default is the German Combined Quasigeoid
// GCG2016 of BKG, the quasigeoid DHHN2016 is defined with (© BKG, CC BY
// 4.0), as PROJ distributes it (de_bkg_gcg2016.tif of OSGeo/PROJ-data,
// embedded byte for byte: 950 x 1052 nodes of 45" x 30" with data over
// Germany and a margin of 5-16 km beyond its borders). Where GCG2016 has no
// value (beyond that margin) the default answers with the second model,
// the Germany subset (4-17° E, 46-57° N) of the EGM96 15' grid that PROJ
// distributes as egm96_15.gtx (public domain; Debian package proj-data),
// which can also be chosen alone (ByName "egm96"). An operator can load any
// other grid from a PROJ .gtx file or a GeoTIFF in geographic coordinates.
package geoid

//go:generate go run ./internal/gen /usr/share/proj/egm96_15.gtx egm96_de.gtx

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
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
	// beyond answers where this grid has no value (the default's EGM96
	// beyond GCG2016); nil for a grid standing alone.
	beyond *Model
	credit string // attribution the model's licence asks for; "" for none
}

// ID names the model and its source, as recorded in tilesets and listings
// (height_model).
func (m *Model) ID() string { return m.id }

// Attribution is the credit the model's licence asks for wherever content
// lifted with it is published ("© BKG (GCG2016), CC BY 4.0" for the
// default); "" for a public-domain model or an operator's file.
func (m *Model) Attribution() string { return m.credit }

// Undulation returns N at lon, lat (degrees), bilinear between the four
// surrounding nodes as PROJ's vgridshift computes it: a node without data
// is left out and the weights of the others renormalised; ok is false
// outside the grid or where all four nodes lack data. A model with a
// fallback (the default) answers from the fallback there instead.
func (m *Model) Undulation(lon, lat float64) (n float64, ok bool) {
	if n, ok = m.undulation(lon, lat); !ok && m.beyond != nil {
		return m.beyond.Undulation(lon, lat)
	}
	return n, ok
}

// Covers reports whether the model's own grid, not its fallback, gives N
// at lon, lat.
func (m *Model) Covers(lon, lat float64) bool {
	_, ok := m.undulation(lon, lat)
	return ok
}

func (m *Model) undulation(lon, lat float64) (n float64, ok bool) {
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
	txy := tx * ty
	// PROJ's weights and order of summation (read_vgrid_value in
	// src/grids.cpp), so that the sums agree to the last bits.
	i0, i1 := r*m.cols, (r+1)*m.cols
	a, b, cc, d := float64(m.v[i0+c]), float64(m.v[i0+c1]), float64(m.v[i1+c]), float64(m.v[i1+c1])
	wa, wb, wc, wd := 1-tx-ty+txy, tx-txy, ty-txy, txy
	n = a*wa + b*wb + cc*wc + d*wd
	if n == n { // all four nodes have data (NaN marks none)
		return n, true
	}
	// Some nodes without data: PROJ leaves them out and renormalises the
	// weights of the others.
	n = 0
	var total float64
	for _, x := range [4][2]float64{{a, wa}, {b, wb}, {cc, wc}, {d, wd}} {
		if x[0] == x[0] {
			n += x[0] * x[1]
			total += x[1]
		}
	}
	if total == 0 { // no node with data, or a point on a node without (PROJ: NaN)
		return 0, false
	}
	return n / total, true
}

// plausible bounds every geoid and quasigeoid on Earth (EGM96 spans about
// -107 to 86 m); values outside mean a wrong unit or a broken file.
const plausible = 150

// Validate checks that m can serve the box (degrees): the grid covers it,
// every node in it has a finite value within ±150 m. The error names the
// first problem and where.
//
// For a model with a fallback the box is judged by the fallback, which
// answers wherever the model's own grid has no value.
func (m *Model) Validate(lonMin, latMin, lonMax, latMax float64) error {
	if m.beyond != nil {
		if err := m.beyond.Validate(lonMin, latMin, lonMax, latMax); err != nil {
			return fmt.Errorf("%s, beyond its own grid: %w", m.id, err)
		}
		return nil
	}
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

// gcg2016TIF is de_bkg_gcg2016.tif of OSGeo/PROJ-data 1.24 (git blob
// 0d297d9a03983381abb96c73a5893b32e7a792d9, checked by the tests), unchanged:
// float32, DEFLATE with the floating-point predictor, 995,647 bytes. The
// raster package reads it; a .gtx of the same nodes would take 4 MB.
//
//go:embed de_bkg_gcg2016.tif
var gcg2016TIF []byte

// Names of the embedded models, for ByName and --geoid.
const (
	NameGCG2016 = "gcg2016"
	NameEGM96   = "egm96"
)

// IDs of the embedded models, as recorded in tilesets, manifests and
// listings (height_model).
const (
	IDGCG2016 = "GCG2016 (de_bkg_gcg2016.tif, BKG; EGM96 beyond it)"
	IDEGM96   = "EGM96 (egm96_15.gtx, PROJ; Germany subset)"
)

// GCG2016Credit is the attribution BKG's licence (CC BY 4.0) asks for.
const GCG2016Credit = "© BKG (GCG2016), CC BY 4.0"

// Credit returns the attribution owed for content lifted with the model
// whose ID is id (as recorded in a pack's height_model): GCG2016Credit for
// the embedded GCG2016, "" otherwise.
func Credit(id string) string {
	if id == IDGCG2016 {
		return GCG2016Credit
	}
	return ""
}

var egm96Model = sync.OnceValue(func() *Model {
	m, err := parseGTX(egm96DE, IDEGM96)
	if err != nil {
		panic("geoid: embedded EGM96 subset: " + err.Error()) // a build defect, caught by the tests
	}
	return m
})

var gcg2016Model = sync.OnceValue(func() *Model {
	m, err := parseTIFF(gcg2016TIF, IDGCG2016)
	if err != nil {
		panic("geoid: embedded GCG2016: " + err.Error()) // a build defect, caught by the tests
	}
	m.beyond, m.credit = egm96Model(), GCG2016Credit
	return m
})

// Default returns the embedded GCG2016, with the EGM96 subset answering
// beyond GCG2016's German extent (the height model of every product unless
// the operator chooses another).
func Default() *Model { return gcg2016Model() }

// EGM96 returns the embedded EGM96 Germany subset, on its own.
func EGM96() *Model { return egm96Model() }

// ByName returns the embedded model called name (NameGCG2016, NameEGM96,
// case-insensitive); ok is false for any other name.
func ByName(name string) (m *Model, ok bool) {
	switch strings.ToLower(name) {
	case NameGCG2016:
		return Default(), true
	case NameEGM96:
		return EGM96(), true
	}
	return nil, false
}

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
// (degrees); a grid going round the globe spans 360° of longitude. For a
// model with a fallback it is the fallback's, where the model answers.
func (m *Model) Extent() (w, s, e, n float64) {
	if m.beyond != nil {
		return m.beyond.Extent()
	}
	e = m.lon0 + m.dlon*float64(m.cols-1)
	if m.wrap {
		e = m.lon0 + 360
	}
	return m.lon0, m.lat0, e, m.lat0 + m.dlat*float64(m.rows-1)
}

// WriteGCG2016 writes the embedded GCG2016 grid, the unchanged file PROJ
// distributes, as de_bkg_gcg2016.tif into dir and returns its path: with
// PROJ_DATA=dir, PROJ (cct +proj=vgridshift +grids=de_bkg_gcg2016.tif)
// computes from the very grid svc uses, without network access.
func WriteGCG2016(dir string) (string, error) {
	path := filepath.Join(dir, "de_bkg_gcg2016.tif")
	if err := os.WriteFile(path, gcg2016TIF, 0o644); err != nil {
		return "", fmt.Errorf("geoid: %w", err)
	}
	return path, nil
}
