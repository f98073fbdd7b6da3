package geo

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

func TestParseCRS(t *testing.T) {
	for in, want := range map[string]int{
		"http://www.opengis.net/def/crs/OGC/1.3/CRS84": 0, "CRS84": 0, "[EPSG:25832]": 25832, "EPSG:4326": 4326,
		"http://www.opengis.net/def/crs/EPSG/0/4258": 4258, "urn:ogc:def:crs:EPSG::25833": 25833, "EPSG:3857": 3857,
	} {
		if c, ok := ParseCRS(in); !ok || c.EPSG != want {
			t.Errorf("%q: %+v %v", in, c, ok)
		}
	}
	for _, in := range []string{"", "EPSG:31467", "EPSG:025832", "EPSG:25832 ", "http://www.opengis.net/def/crs/EPSG/0/", "WGS84"} {
		if c, ok := ParseCRS(in); ok {
			t.Errorf("%q accepted as %+v", in, c)
		}
	}
	for _, c := range SupportedCRS {
		if back, ok := ParseCRS(c.URI()); !ok || back != c {
			t.Errorf("URI round trip of %+v: %+v", c, back)
		}
	}
}

// TestCRSAgainstPROJ converts 500 points over Germany into every supported
// CRS and back, and compares with cs2cs to 1 mm (1e-8 degrees).
func TestCRSAgainstPROJ(t *testing.T) {
	bin := testtool.Require(t, "cs2cs", "apt-get install proj-bin")
	rng := rand.New(rand.NewPCG(12, 34))
	latLon := make([][2]float64, 500)
	for i := range latLon {
		latLon[i] = [2]float64{47 + rng.Float64()*8.5, 5.5 + rng.Float64()*10}
	}
	for _, c := range SupportedCRS[1:] {
		got := runCs2cs(t, bin, latLon, "-f", "%.9f", "EPSG:4326", "EPSG:"+strconv.Itoa(c.EPSG))
		tol := 1e-3
		if !c.Projected() {
			tol = 1e-8
		}
		for i, p := range latLon {
			a, b := c.FromWGS84(p[1], p[0])
			if math.Abs(a-got[i][0]) > tol || math.Abs(b-got[i][1]) > tol {
				t.Fatalf("EPSG:%d of %v: %.9f %.9f, PROJ %.9f %.9f", c.EPSG, p, a, b, got[i][0], got[i][1])
			}
			lon, lat := c.ToWGS84(a, b)
			if math.Abs(lon-p[1]) > 1e-9 || math.Abs(lat-p[0]) > 1e-9 {
				t.Fatalf("EPSG:%d round trip of %v: %v %v", c.EPSG, p, lat, lon)
			}
		}
	}
}
