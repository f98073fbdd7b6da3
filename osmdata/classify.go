// Package osmdata reads OpenStreetMap extracts (PBF or XML) in bounded
// memory and keeps what the OSM cover themes need: classified land-cover
// areas (multipolygons assembled from their member ways), transport lines
// with their widths and layers, and the coastline, projected to UTM and
// clipped to an extent.
package osmdata

import (
	"strconv"
	"strings"

	"github.com/paulmach/osm"
)

// Themes of a feature.
const (
	ThemeSurface   = "surface"
	ThemeTransport = "transport"
	ThemeCoastline = "coastline" // natural=coastline ways, the input of the sea theme
)

// surfaceClasses maps key=value to the surface class. The classes are the
// groups of SPEC 2.9: green (park, grass, meadow, forest, farmland, scrub),
// water, urban (residential, commercial, industrial, retail), square,
// parking, sport, cemetery, hedge.
var surfaceClasses = map[string]string{
	"landuse=forest": "forest", "natural=wood": "forest",
	"landuse=grass": "grass", "landuse=village_green": "grass", "natural=grassland": "grass",
	"landuse=meadow":   "meadow",
	"landuse=farmland": "farmland", "landuse=orchard": "farmland", "landuse=vineyard": "farmland", "landuse=allotments": "farmland",
	"natural=scrub": "scrub", "natural=heath": "scrub",
	"leisure=park": "park", "leisure=garden": "park", "landuse=recreation_ground": "park",
	"natural=water": "water", "waterway=riverbank": "water", "landuse=reservoir": "water", "landuse=basin": "water",
	"natural=wetland":     "wetland",
	"landuse=residential": "residential", "landuse=commercial": "commercial", "landuse=industrial": "industrial",
	"landuse=retail":  "retail",
	"place=square":    "square",
	"amenity=parking": "parking",
	"leisure=pitch":   "sport", "leisure=sports_centre": "sport", "leisure=stadium": "sport", "leisure=track": "sport",
	"landuse=cemetery": "cemetery", "amenity=grave_yard": "cemetery",
	"barrier=hedge": "hedge",
	"natural=beach": "beach", "natural=sand": "beach",
}

// surfaceKeys are the keys looked at, in order of precedence (a park on
// residential land is a park).
var surfaceKeys = []string{"leisure", "amenity", "place", "natural", "waterway", "barrier", "landuse"}

// SurfaceClasses lists every surface class.
func SurfaceClasses() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range surfaceClasses {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// surfaceClass is the class of an area's tags, "" for none.
func surfaceClass(t osm.Tags) string {
	for _, k := range surfaceKeys {
		if v := t.Find(k); v != "" {
			if c, ok := surfaceClasses[k+"="+v]; ok {
				return c
			}
		}
	}
	if t.Find("highway") == "pedestrian" && t.Find("area") == "yes" {
		return "square"
	}
	return ""
}

// defaultWidth is the carriageway width in metres per highway or railway
// class when a way has neither width nor lanes (typical German cross
// sections: RAL/RASt; rail: one track with its ballast bed).
var defaultWidth = map[string]float64{
	"motorway": 11, "trunk": 9, "primary": 7, "secondary": 6.5, "tertiary": 6, "unclassified": 5,
	"residential": 5.5, "living_street": 4.5, "service": 3.5, "pedestrian": 5, "track": 3,
	"motorway_link": 4.5, "trunk_link": 4.5, "primary_link": 4.5, "secondary_link": 4.5, "tertiary_link": 4.5,
	"road": 5, "busway": 3.5,
	"footway": 2, "path": 1.5, "cycleway": 2, "bridleway": 2, "steps": 2,
	"rail": 3.5, "light_rail": 3, "tram": 3, "subway": 3.5, "narrow_gauge": 2.5, "monorail": 2,
}

// laneWidth is the width of one lane when only lanes is tagged.
const laneWidth = 3.25

// transportClass is "highway:<v>" or "railway:<v>" for ways drawn as
// ribbons, "" for others (areas, abandoned rail, construction).
func transportClass(t osm.Tags) string {
	if v := t.Find("highway"); v != "" && t.Find("area") != "yes" {
		if _, ok := defaultWidth[v]; ok {
			return "highway:" + v
		}
	}
	if v := t.Find("railway"); v != "" {
		if _, ok := defaultWidth[v]; ok {
			return "railway:" + v
		}
	}
	return ""
}

// widthOf is the ribbon width in metres: the width tag (metres, "3.5",
// "3.5 m"), else lanes x 3.25 m, else the class default.
func widthOf(t osm.Tags, class string) float64 {
	if w := parseMetres(t.Find("width")); w > 0 && w < 100 {
		return w
	}
	if n, err := strconv.Atoi(strings.TrimSpace(t.Find("lanes"))); err == nil && n > 0 && n < 20 {
		return float64(n) * laneWidth
	}
	_, v, _ := strings.Cut(class, ":")
	return defaultWidth[v]
}

func parseMetres(s string) float64 {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "m"))
	s = strings.Replace(s, ",", ".", 1)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return v
}

// layerOf reads the layer tag (0 when absent or malformed).
func layerOf(t osm.Tags) int {
	n, err := strconv.Atoi(strings.TrimSpace(t.Find("layer")))
	if err != nil || n < -5 || n > 5 {
		return 0
	}
	return n
}

func yes(v string) bool { return v != "" && v != "no" }
