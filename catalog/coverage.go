package catalog

import (
	"math"
	"slices"
	"strings"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
)

// World is the box Coverage takes for "everywhere".
var World = geo.BBox{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}

// Coverage is what a map layer of product p covers in v: the union of the
// WGS84 boxes of its published packs that meet within (the whole Web
// Mercator square when none does, so a client still asks), and their
// attributions, each once, joined by "; ". The TileJSON documents of the
// tile routes and the metadata of an offline bundle state it.
func (v *View) Coverage(p pack.Product, within geo.BBox) (bounds [4]float64, attribution string) {
	bounds = [4]float64{180, 90, -180, -90}
	var attr []string
	for _, pk := range v.Packs(p) {
		m := pk.Manifest.BBoxWGS84
		if len(m) == 4 && (m[0] > within.MaxLon || m[2] < within.MinLon || m[1] > within.MaxLat || m[3] < within.MinLat) {
			continue
		}
		if len(m) == 4 {
			bounds = [4]float64{math.Min(bounds[0], m[0]), math.Min(bounds[1], m[1]), math.Max(bounds[2], m[2]), math.Max(bounds[3], m[3])}
		}
		if a := pk.Manifest.AttributionText(); !slices.Contains(attr, a) {
			attr = append(attr, a)
		}
	}
	if bounds[0] > bounds[2] {
		bounds = [4]float64{-180, -85.0511, 180, 85.0511}
	}
	return bounds, strings.Join(attr, "; ")
}
