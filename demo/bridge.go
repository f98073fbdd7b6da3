package demo

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/svc-geodata/svc/geo"
)

// BridgeBL is the demo state that ships a bridge mask: he, whose snapshot
// 2026-07-20 is one SPEC 4.6 removes bridge decks from vegetation for.
const BridgeBL = "he"

// BridgeDeck returns the synthetic bridge deck of the site (UTM metres in
// its zone: minE, minN, maxE, maxN): 12 m wide, crossing the river from
// north to south at the middle of the town's first kilometre, 90 m to
// either side of the river line, so its ends lie over the demo's tree
// crowns (which keep 60 m off the river).
func (s Site) BridgeDeck() [4]float64 {
	_, e0, _ := s.Origin()
	wn := s.WaterN()
	return [4]float64{e0 + 499, wn - 90, e0 + 511, wn + 90}
}

// writeBridgeMask writes the site's bridge deck as a GeoJSON
// FeatureCollection in WGS84 (RFC 7946) to dir/bridges.geojson and returns
// the path.
func writeBridgeMask(dir string, s Site) (string, error) {
	z, _, _ := s.Origin()
	d := s.BridgeDeck()
	var ring [][2]float64
	for _, p := range [][2]float64{{d[0], d[1]}, {d[2], d[1]}, {d[2], d[3]}, {d[0], d[3]}, {d[0], d[1]}} {
		lon, lat := geo.FromUTM(z, p[0], p[1])
		ring = append(ring, [2]float64{lon, lat})
	}
	doc := map[string]any{"type": "FeatureCollection", "features": []any{map[string]any{
		"type": "Feature", "properties": map[string]any{"name": "demo river bridge"},
		"geometry": map[string]any{"type": "Polygon", "coordinates": [][][2]float64{ring}},
	}}}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "bridges.geojson")
	return p, os.WriteFile(p, data, 0o644)
}
