package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// BridgeBufferM is the buffer (m) around bridge-deck polygons within which
// CDSM and TDSM pixels become NoData (SPEC 4.6).
const BridgeBufferM = 1.0

// Caps on a bridge mask file: its size and its vertices over all rings.
const (
	maxMaskBytes    = 64 << 20
	maxMaskVertices = 4 << 20
)

// bridgeMask holds bridge-deck polygons in the UTM zone of the import.
type bridgeMask struct {
	polys []maskPoly
}

// maskPoly is one polygon: rings (exterior and holes, closed or not) and
// its bounding box widened by the buffer.
type maskPoly struct {
	rings [][][2]float64
	bbox  [4]float64
}

// readBridgeMask reads a GeoJSON bridge mask file; see parseBridgeMask.
func readBridgeMask(path string, z geo.Zone) (*bridgeMask, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: bridge mask: %v", ErrOptions, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMaskBytes+1))
	if err != nil {
		return nil, fmt.Errorf("importer: bridge mask %s: %w", path, err)
	}
	if len(data) > maxMaskBytes {
		return nil, fmt.Errorf("%w: bridge mask %s exceeds %d bytes", ErrOptions, path, maxMaskBytes)
	}
	m, err := parseBridgeMask(data, z)
	if err != nil {
		return nil, fmt.Errorf("importer: bridge mask %s: %w", path, err)
	}
	return m, nil
}

// geoJSON is the part of a GeoJSON object (RFC 7946) a mask reads: a
// FeatureCollection, a Feature, or a bare Polygon or MultiPolygon.
type geoJSON struct {
	Type        string          `json:"type"`
	Features    []geoJSON       `json:"features"`
	Geometry    *geoJSON        `json:"geometry"`
	Coordinates json.RawMessage `json:"coordinates"`
}

// parseBridgeMask parses a GeoJSON FeatureCollection (or Feature, or bare
// geometry) of Polygon and MultiPolygon bridge decks; features with other
// or null geometries are skipped. Coordinates are WGS84 longitude and
// latitude as RFC 7946 prescribes; a polygon whose first position lies
// outside -180..180 / -90..90 is taken as metres (easting, northing) in the
// import's CRS instead (the UTM zone z), as the authorities' exports in
// the BL CRS have them. Errors wrap ErrOptions.
func parseBridgeMask(data []byte, z geo.Zone) (*bridgeMask, error) {
	var doc geoJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: not GeoJSON: %v", ErrOptions, err)
	}
	m := &bridgeMask{}
	budget := maxMaskVertices
	var add func(g *geoJSON, depth int) error
	add = func(g *geoJSON, depth int) error {
		if g == nil || depth > 2 {
			return nil
		}
		switch g.Type {
		case "FeatureCollection":
			for i := range g.Features {
				if err := add(&g.Features[i], depth+1); err != nil {
					return fmt.Errorf("feature %d: %w", i, err)
				}
			}
		case "Feature":
			return add(g.Geometry, depth+1)
		case "Polygon":
			var rings [][][]float64
			if err := json.Unmarshal(g.Coordinates, &rings); err != nil {
				return fmt.Errorf("%w: polygon coordinates: %v", ErrOptions, err)
			}
			return m.addPolygon(rings, z, &budget)
		case "MultiPolygon":
			var polys [][][][]float64
			if err := json.Unmarshal(g.Coordinates, &polys); err != nil {
				return fmt.Errorf("%w: multipolygon coordinates: %v", ErrOptions, err)
			}
			for _, rings := range polys {
				if err := m.addPolygon(rings, z, &budget); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := add(&doc, 0); err != nil {
		return nil, err
	}
	if len(m.polys) == 0 {
		return nil, fmt.Errorf("%w: bridge mask holds no Polygon or MultiPolygon", ErrOptions)
	}
	return m, nil
}

// addPolygon converts one polygon's rings to UTM and appends it.
func (m *bridgeMask) addPolygon(rings [][][]float64, z geo.Zone, budget *int) error {
	if len(rings) == 0 || len(rings[0]) == 0 {
		return nil
	}
	first := rings[0][0]
	if len(first) < 2 {
		return fmt.Errorf("%w: position with %d numbers", ErrOptions, len(first))
	}
	wgs84 := math.Abs(first[0]) <= 180 && math.Abs(first[1]) <= 90
	p := maskPoly{bbox: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	for _, ring := range rings {
		if *budget -= len(ring); *budget < 0 {
			return fmt.Errorf("%w: bridge mask has more than %d vertices", ErrOptions, maxMaskVertices)
		}
		r := make([][2]float64, 0, len(ring))
		for _, pos := range ring {
			if len(pos) < 2 || math.IsNaN(pos[0]+pos[1]) || math.IsInf(pos[0]+pos[1], 0) {
				return fmt.Errorf("%w: invalid position %v", ErrOptions, pos)
			}
			x, y := pos[0], pos[1]
			if wgs84 {
				x, y = geo.ToUTM(z, pos[0], pos[1])
			}
			r = append(r, [2]float64{x, y})
			p.bbox = [4]float64{math.Min(p.bbox[0], x), math.Min(p.bbox[1], y), math.Max(p.bbox[2], x), math.Max(p.bbox[3], y)}
		}
		p.rings = append(p.rings, r)
	}
	b := BridgeBufferM
	p.bbox = [4]float64{p.bbox[0] - b, p.bbox[1] - b, p.bbox[2] + b, p.bbox[3] + b}
	m.polys = append(m.polys, p)
	return nil
}

// apply sets every pixel of g whose centre lies inside a polygon or within
// BridgeBufferM of its boundary to NoData (terrain.Nodata unless g has
// another NoData value) and returns the pixels changed.
func (m *bridgeMask) apply(g *raster.Grid) int {
	if g.Nodata == nil {
		g.ReplaceNodata(terrain.Nodata)
	}
	nd := float32(*g.Nodata)
	gt := g.GeoTransform
	n := 0
	for _, p := range m.polys {
		c0, c1 := pixelRange(p.bbox[0], p.bbox[2], gt[0], gt[1], g.Width)
		r0, r1 := pixelRange(p.bbox[1], p.bbox[3], gt[3], gt[5], g.Height)
		for r := r0; r <= r1; r++ {
			y := gt[3] + (float64(r)+0.5)*gt[5]
			for c := c0; c <= c1; c++ {
				i := r*g.Width + c
				if g.Data[i] == nd || !p.covers(gt[0]+(float64(c)+0.5)*gt[1], y) {
					continue
				}
				g.Data[i] = nd
				n++
			}
		}
	}
	return n
}

// pixelRange returns the first and last pixel index along one axis whose
// centres may lie within [lo, hi] (origin o, pixel size s, possibly
// negative), clamped to 0..n-1; first > last when none does.
func pixelRange(lo, hi, o, s float64, n int) (int, int) {
	a, b := (lo-o)/s-0.5, (hi-o)/s-0.5
	if a > b {
		a, b = b, a
	}
	return max(0, int(math.Ceil(a))), min(n-1, int(math.Floor(b)))
}

// covers reports whether (x, y) lies inside the polygon (even-odd over all
// rings) or within BridgeBufferM of any ring edge.
func (p maskPoly) covers(x, y float64) bool {
	if x < p.bbox[0] || x > p.bbox[2] || y < p.bbox[1] || y > p.bbox[3] {
		return false
	}
	inside := false
	for _, ring := range p.rings {
		for i := range ring {
			a, b := ring[i], ring[(i+1)%len(ring)]
			if segDist2(x, y, a, b) <= BridgeBufferM*BridgeBufferM {
				return true
			}
			if (a[1] > y) != (b[1] > y) && x < a[0]+(y-a[1])*(b[0]-a[0])/(b[1]-a[1]) {
				inside = !inside
			}
		}
	}
	return inside
}

// segDist2 is the squared distance from (x, y) to the segment a-b.
func segDist2(x, y float64, a, b [2]float64) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = math.Min(math.Max(((x-a[0])*dx+(y-a[1])*dy)/l, 0), 1)
	}
	ex, ey := x-(a[0]+t*dx), y-(a[1]+t*dy)
	return ex*ex + ey*ey
}
