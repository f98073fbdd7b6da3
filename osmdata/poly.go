package osmdata

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Poly is an extract's boundary read from an osmosis polygon file (the
// .poly files Geofabrik publishes beside its extracts and `osmium extract
// --polygon` reads): rings of WGS84 (lon, lat) points, closed (first point
// repeated); a hole's section name starts with '!'.
type Poly struct {
	Name  string
	Rings []PolyRing
}

// PolyRing is one section of a poly file.
type PolyRing struct {
	Hole   bool
	Points [][2]float64 // lon, lat; closed
}

// ErrPoly reports a polygon file that is not in the osmosis poly format.
var ErrPoly = errors.New("not an osmosis .poly file")

// maxPolyPoints caps the points of a poly file (Geofabrik's Germany has
// about 10,000): invalid input must not allocate without bound.
const maxPolyPoints = 5_000_000

// ParsePoly reads the osmosis polygon format
// (https://wiki.openstreetmap.org/wiki/Osmosis/Polygon_Filter_File_Format):
// a name line, then sections of a name line ('!' for a hole), coordinate
// lines "lon lat" and END, then END. Errors wrap ErrPoly and name the line.
func ParsePoly(r io.Reader) (Poly, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	var p Poly
	line, total := 0, 0
	next := func() (string, bool) {
		for sc.Scan() {
			line++
			if s := strings.TrimSpace(sc.Text()); s != "" {
				return s, true
			}
		}
		return "", false
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: line %d: %s", ErrPoly, line, fmt.Sprintf(format, a...))
	}
	name, ok := next()
	if !ok {
		return Poly{}, bad("empty")
	}
	p.Name = name
	for {
		head, ok := next()
		if !ok {
			if err := sc.Err(); err != nil {
				return Poly{}, bad("%v", err)
			}
			return Poly{}, bad("no final END")
		}
		if head == "END" {
			break
		}
		ring := PolyRing{Hole: strings.HasPrefix(head, "!")}
		for {
			s, ok := next()
			if !ok {
				return Poly{}, bad("section %q has no END", head)
			}
			if s == "END" {
				break
			}
			f := strings.Fields(s)
			if len(f) != 2 {
				return Poly{}, bad("want \"lon lat\", got %q", s)
			}
			lon, err1 := strconv.ParseFloat(f[0], 64)
			lat, err2 := strconv.ParseFloat(f[1], 64)
			if err1 != nil || err2 != nil || math.IsNaN(lon) || math.IsNaN(lat) || math.Abs(lon) > 180 || math.Abs(lat) > 90 {
				return Poly{}, bad("not a WGS84 coordinate: %q", s)
			}
			if total++; total > maxPolyPoints {
				return Poly{}, bad("more than %d points", maxPolyPoints)
			}
			ring.Points = append(ring.Points, [2]float64{lon, lat})
		}
		if n := len(ring.Points); n > 0 && ring.Points[0] != ring.Points[n-1] {
			ring.Points = append(ring.Points, ring.Points[0])
		}
		if len(ring.Points) < 4 {
			return Poly{}, bad("section %q has fewer than 3 points", head)
		}
		p.Rings = append(p.Rings, ring)
	}
	if len(p.Rings) == 0 || p.Rings[0].Hole {
		return Poly{}, bad("no outer ring")
	}
	return p, nil
}
