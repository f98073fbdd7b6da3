package geo

import (
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// areaBoxes are boxes in Germany from 1 ha to about 250 km2, plus larger ones.
var areaBoxes = []struct {
	name string
	b    BBox
}{
	{"1 ha", BBox{8.68, 50.11, 8.6814, 50.1109}},
	{"1 km2 frankfurt", BBox{8.66, 50.1, 8.674, 50.109}},
	{"250 km2 berlin", BBox{13.2, 52.4, 13.43, 52.52}},
	{"250 km2 alps", BBox{10.9, 47.4, 11.11, 47.54}},
	{"250 km2 north sea", BBox{8.3, 54.8, 8.56, 54.93}},
	{"one degree", BBox{9, 50, 10, 51}},
	{"degenerate", BBox{9, 50, 9, 51}},
}

// TestAreaWholeEllipsoid compares with the GRS80 authalic radius published
// by Moritz (Geodetic Reference System 1980): R = 6371007.1810 m.
func TestAreaWholeEllipsoid(t *testing.T) {
	t.Parallel()
	got := BBox{-180, -90, 180, 90}.AreaKM2()
	const r = 6371007.1810
	want := 4 * math.Pi * r * r / 1e6
	if math.Abs(got-want)/want > 1e-9 {
		t.Errorf("whole ellipsoid = %.3f km2, want %.3f", got, want)
	}
}

// TestAreaIntegral compares with Simpson's rule over the area element
// M(lat) N(lat) cos(lat) dlat dlon, the radii of curvature of GRS80.
func TestAreaIntegral(t *testing.T) {
	t.Parallel()
	for _, tt := range areaBoxes {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := simpsonArea(tt.b, 200)
			got := tt.b.AreaKM2()
			if math.Abs(got-want) > 1e-9*math.Max(want, 1e-6) {
				t.Errorf("AreaKM2 = %.12g, Simpson %.12g", got, want)
			}
		})
	}
}

func simpsonArea(b BBox, steps int) float64 {
	const e2 = flattening * (2 - flattening)
	f := func(lat float64) float64 {
		s, c := math.Sincos(lat)
		w := 1 - e2*s*s
		m := semiMajor * (1 - e2) / (w * math.Sqrt(w))
		n := semiMajor / math.Sqrt(w)
		return m * n * c
	}
	lo, hi := b.MinLat*degToRad, b.MaxLat*degToRad
	h := (hi - lo) / float64(steps)
	sum := f(lo) + f(hi)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(lo+float64(i)*h)
	}
	return sum * h / 3 * (b.MaxLon - b.MinLon) * degToRad / 1e6
}

// TestAreaUTMShoelace checks against the other route: shoelace over a
// densified ring in the zone of the centre, divided by the squared point scale
// factor at the centre (from finite differences). The brief asks for 0.5 %;
// the two agree to about 6e-7 for 250 km2, so the test holds them to 1e-5.
func TestAreaUTMShoelace(t *testing.T) {
	t.Parallel()
	for _, tt := range areaBoxes[:5] {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.b.Center()
			z := ZoneForLon(c.Lon)
			grid := shoelaceUTM(denseRing(tt.b, 64), z)
			k2 := scaleSquared(z, c.Lon, c.Lat)
			want := grid / k2 / 1e6
			got := tt.b.AreaKM2()
			rel := math.Abs(got-want) / want
			t.Logf("AreaKM2 %.6f, UTM shoelace %.6f, relative difference %.2g", got, want, rel)
			if rel > 1e-5 {
				t.Errorf("AreaKM2 = %.6f, UTM shoelace %.6f (%.3g %%)", got, want, 100*rel)
			}
		})
	}
}

// denseRing returns the closed ring of b, counter-clockwise, perEdge points per edge.
func denseRing(b BBox, perEdge int) []LonLat {
	var ring []LonLat
	corners := []LonLat{{b.MinLon, b.MinLat}, {b.MaxLon, b.MinLat}, {b.MaxLon, b.MaxLat}, {b.MinLon, b.MaxLat}}
	for i, p := range corners {
		q := corners[(i+1)%4]
		for j := range perEdge {
			t := float64(j) / float64(perEdge)
			ring = append(ring, LonLat{p.Lon + t*(q.Lon-p.Lon), p.Lat + t*(q.Lat-p.Lat)})
		}
	}
	return append(ring, corners[0])
}

func shoelaceUTM(ring []LonLat, z Zone) float64 {
	sum := 0.0
	for i := 1; i < len(ring); i++ {
		e0, n0 := ToUTM(z, ring[i-1].Lon, ring[i-1].Lat)
		e1, n1 := ToUTM(z, ring[i].Lon, ring[i].Lat)
		sum += (e0-falseEasting)*(n1-5e6) - (e1-falseEasting)*(n0-5e6)
	}
	return math.Abs(sum) / 2
}

// scaleSquared returns k^2 = det(d(E,N)/d(lon,lat)) / (M N cos lat), the
// areal scale of the projection at a point.
func scaleSquared(z Zone, lon, lat float64) float64 {
	const h, e2 = 1e-5, flattening * (2 - flattening)
	e1, n1 := ToUTM(z, lon+h, lat)
	e0, n0 := ToUTM(z, lon-h, lat)
	e3, n3 := ToUTM(z, lon, lat+h)
	e2p, n2 := ToUTM(z, lon, lat-h)
	d := 2 * h * degToRad
	det := ((e1-e0)/d)*((n3-n2)/d) - ((e3-e2p)/d)*((n1-n0)/d)
	s, c := math.Sincos(lat * degToRad)
	w := 1 - e2*s*s
	return det / (semiMajor * (1 - e2) / (w * math.Sqrt(w)) * semiMajor / math.Sqrt(w) * c)
}

// TestAreaSpatialite compares with SpatiaLite's ellipsoidal ST_Area(g, 1)
// over a densified ring (its edges are geodesics, which converge on the
// box's parallels as the ring is densified).
func TestAreaSpatialite(t *testing.T) {
	bin := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	for _, tt := range areaBoxes[:6] {
		t.Run(tt.name, func(t *testing.T) {
			var wkt strings.Builder
			for i, p := range denseRing(tt.b, 100) {
				if i > 0 {
					wkt.WriteByte(',')
				}
				fmt.Fprintf(&wkt, "%s %s", strconv.FormatFloat(p.Lon, 'f', -1, 64), strconv.FormatFloat(p.Lat, 'f', -1, 64))
			}
			sql := fmt.Sprintf("SELECT printf('%%.6f', ST_Area(GeomFromText('POLYGON((%s))', 4326), 1));", wkt.String())
			out, err := exec.CommandContext(t.Context(), bin, ":memory:", sql).Output()
			if err != nil {
				t.Fatalf("spatialite: %v", err)
			}
			fields := strings.Fields(string(out))
			if len(fields) == 0 {
				t.Fatalf("spatialite printed nothing")
			}
			m2, err := strconv.ParseFloat(fields[len(fields)-1], 64)
			if err != nil {
				t.Fatalf("spatialite output %q: %v", out, err)
			}
			got := tt.b.AreaKM2()
			rel := math.Abs(got-m2/1e6) / got
			t.Logf("AreaKM2 %.6f, spatialite %.6f, relative difference %.2g", got, m2/1e6, rel)
			if rel > 1e-8 {
				t.Errorf("AreaKM2 = %.9f, spatialite %.9f (%.3g %%)", got, m2/1e6, 100*rel)
			}
		})
	}
}
