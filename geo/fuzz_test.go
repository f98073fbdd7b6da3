package geo

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Seeds shared by the fuzz targets: good and bad strings of both forms.
var fuzzSeeds = []string{
	"8.6,50.1,8.7,50.2", " 8.6 , 50.1,\t8.7 ,50.2 ", "-180,-90,180,90", "9,50,9,50",
	"1,2,3", "1,2,3,4,5", "1,,3,4", "NaN,2,3,4", "1,2,Inf,4", "0x1p3,2,3,4", "1e400,0,0,0",
	"9,50,8,51", "-0,-0,0,0", "1e-400,0,0,0", ".5,5.,+1,-1e1",
	"8.6,50.1;8.7,50.2", "1,2;3,4;5,6", "1,2;3,4;", ";;", "1,2", "1,2,3;4,5", "200,2;3,4",
	"", " ", ",", ";", "\u00a0", "1_0,2;3,4",
}

func FuzzParseBBox(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBBox(s)
		if err != nil {
			var be *BBoxError
			if !errors.As(err, &be) || !errors.Is(err, ErrBBox) || !strings.Contains(err.Error(), BBoxForm) {
				t.Fatalf("ParseBBox(%q) error %v is not a *BBoxError naming the form", s, err)
			}
			return
		}
		v := [4]float64{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat}
		for i, x := range v {
			limit := 180.0
			if i%2 == 1 {
				limit = 90
			}
			if math.IsNaN(x) || x < -limit || x > limit {
				t.Fatalf("ParseBBox(%q) accepted %v out of range", s, b)
			}
		}
		if b.MinLon > b.MaxLon || b.MinLat > b.MaxLat {
			t.Fatalf("ParseBBox(%q) accepted min > max: %v", s, b)
		}
		again, err := ParseBBox(strings.Join([]string{fmtFloat(v[0]), fmtFloat(v[1]), fmtFloat(v[2]), fmtFloat(v[3])}, ","))
		if err != nil || again != b {
			t.Fatalf("round trip of %v gave %v, %v", b, again, err)
		}
		if !b.Contains(b.Center().Lon, b.Center().Lat) || !b.Intersects(b) {
			t.Fatalf("%v does not contain its centre or intersect itself", b)
		}
	})
}

func FuzzParseCoords(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, maxPoints int) {
		maxPoints %= 1000 // keep the round trip cheap; negative caps are allowed
		pts, err := ParseCoords(s, maxPoints)
		if err != nil {
			var ce *CoordsError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCoords) || !strings.Contains(err.Error(), CoordsForm) || pts != nil {
				t.Fatalf("ParseCoords(%q) = %v, %v; want nil and a *CoordsError naming the form", s, pts, err)
			}
			return
		}
		if len(pts) < 2 || len(pts) > maxPoints {
			t.Fatalf("ParseCoords(%q, %d) returned %d points", s, maxPoints, len(pts))
		}
		parts := make([]string, len(pts))
		for i, p := range pts {
			if math.IsNaN(p.Lon) || math.IsNaN(p.Lat) || math.Abs(p.Lon) > 180 || math.Abs(p.Lat) > 90 {
				t.Fatalf("ParseCoords(%q) accepted %v out of range", s, p)
			}
			parts[i] = fmtFloat(p.Lon) + "," + fmtFloat(p.Lat)
		}
		again, err := ParseCoords(strings.Join(parts, ";"), maxPoints)
		if err != nil || !equalPoints(again, pts) {
			t.Fatalf("round trip of %v gave %v, %v", pts, again, err)
		}
	})
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
