package geo

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

//go:generate sh -c "sh testdata/gen_cs2cs.sh > testdata/cs2cs_utm.txt"

// Tolerances against PROJ, from the brief: forward < 1 mm, inverse < 1e-8 deg.
// The fixture is written with 1 um and 1e-12 deg resolution.
const (
	tolFwdM   = 1e-3
	tolInvDeg = 1e-8
)

// refPoint is one line of testdata/cs2cs_utm.txt.
type refPoint struct {
	fwd      bool
	zone     Zone
	in, want [2]float64
}

func loadFixture(t *testing.T) []refPoint {
	t.Helper()
	f, err := os.Open("testdata/cs2cs_utm.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pts []refPoint
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		p, err := parseRefLine(text)
		if err != nil {
			t.Fatalf("cs2cs_utm.txt:%d: %v", line, err)
		}
		pts = append(pts, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pts
}

func parseRefLine(s string) (refPoint, error) {
	f := strings.Fields(s)
	if len(f) != 6 || (f[0] != "fwd" && f[0] != "inv") {
		return refPoint{}, fmt.Errorf("bad line %q", s)
	}
	var v [5]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return refPoint{}, err
		}
		v[i] = x
	}
	return refPoint{fwd: f[0] == "fwd", zone: Zone(v[0]), in: [2]float64{v[1], v[2]}, want: [2]float64{v[3], v[4]}}, nil
}

// TestAgainstCs2csFixture compares with testdata/cs2cs_utm.txt, written by
// testdata/gen_cs2cs.sh (see there for the exact cs2cs commands, e.g.
// `cs2cs -d 6 EPSG:4326 EPSG:25832` with "lat lon" input): 414 lon/lat points
// projected into each zone and 225 easting/northing points per zone back.
func TestAgainstCs2csFixture(t *testing.T) {
	t.Parallel()
	pts := loadFixture(t)
	counts := map[string]int{}
	var worstM, worstDeg float64
	for _, p := range pts {
		key := fmt.Sprintf("%v/fwd=%v", p.zone, p.fwd)
		counts[key]++
		if p.fwd {
			e, n := ToUTM(p.zone, p.in[0], p.in[1])
			d := math.Hypot(e-p.want[0], n-p.want[1])
			worstM = math.Max(worstM, d)
			if d > tolFwdM {
				t.Errorf("ToUTM(%v, %v, %v) = %.6f, %.6f; cs2cs %.6f, %.6f (%.3g m off)",
					p.zone, p.in[0], p.in[1], e, n, p.want[0], p.want[1], d)
			}
			continue
		}
		lon, lat := FromUTM(p.zone, p.in[0], p.in[1])
		d := math.Max(math.Abs(lon-p.want[0]), math.Abs(lat-p.want[1]))
		worstDeg = math.Max(worstDeg, d)
		if d > tolInvDeg {
			t.Errorf("FromUTM(%v, %v, %v) = %.12f, %.12f; cs2cs %.12f, %.12f (%.3g deg off)",
				p.zone, p.in[0], p.in[1], lon, lat, p.want[0], p.want[1], d)
		}
	}
	t.Logf("worst deviation from cs2cs: forward %.3g m, inverse %.3g deg", worstM, worstDeg)
	for _, key := range []string{"EPSG:25832/fwd=true", "EPSG:25832/fwd=false", "EPSG:25833/fwd=true", "EPSG:25833/fwd=false"} {
		if counts[key] < 200 {
			t.Errorf("fixture has %d points for %s, want >= 200", counts[key], key)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, z := range []Zone{Zone32, Zone33} {
		t.Run(z.String(), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, uint64(z))) // one generator per parallel subtest
			worst := 0.0
			for range 20000 {
				lon, lat := 5+11*rng.Float64(), 47+8.5*rng.Float64()
				e, n := ToUTM(z, lon, lat)
				lon2, lat2 := FromUTM(z, e, n)
				worst = math.Max(worst, math.Max(math.Abs(lon2-lon), math.Abs(lat2-lat)))
			}
			if worst > 1e-11 {
				t.Errorf("worst round-trip error %.3g deg, want <= 1e-11", worst)
			}
		})
	}
}

func TestKnownPoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		z        Zone
		lon, lat float64
		e, n     float64
	}{
		// On the central meridian the easting is exactly the false easting;
		// northing 5538630.702744 is cs2cs's value (also in the fixture run).
		{"central meridian 32", Zone32, 9, 50, 500000, 5538630.702744},
		{"central meridian 33", Zone33, 15, 50, 500000, 5538630.702744},
		{"equator", Zone32, 9, 0, 500000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, n := ToUTM(tt.z, tt.lon, tt.lat)
			if math.Abs(e-tt.e) > 1e-6 || math.Abs(n-tt.n) > 1e-6 {
				t.Errorf("ToUTM = %.6f, %.6f; want %.6f, %.6f", e, n, tt.e, tt.n)
			}
		})
	}
}

func TestSymmetry(t *testing.T) {
	t.Parallel()
	// TM is symmetric about the central meridian: east and west mirror.
	for _, dl := range []float64{0.5, 3, 7} {
		e1, n1 := ToUTM(Zone32, 9+dl, 52)
		e2, n2 := ToUTM(Zone32, 9-dl, 52)
		if math.Abs((e1-falseEasting)+(e2-falseEasting)) > 1e-9 || math.Abs(n1-n2) > 1e-9 {
			t.Errorf("dl=%v: (%v,%v) and (%v,%v) not mirrored", dl, e1, n1, e2, n2)
		}
	}
}

func TestZoneForEPSG(t *testing.T) {
	t.Parallel()
	tests := []struct {
		epsg    int
		want    Zone
		wantErr bool
	}{
		{25832, Zone32, false},
		{25833, Zone33, false},
		{4326, 0, true},
		{32632, 0, true},
		{25831, 0, true},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.epsg), func(t *testing.T) {
			t.Parallel()
			z, err := ZoneForEPSG(tt.epsg)
			if tt.wantErr {
				if !errors.Is(err, ErrZone) {
					t.Fatalf("err = %v, want ErrZone", err)
				}
				return
			}
			if err != nil || z != tt.want || z.EPSG() != tt.epsg {
				t.Fatalf("ZoneForEPSG(%d) = %v, %v; want %v", tt.epsg, z, err, tt.want)
			}
		})
	}
}

func TestZoneForLon(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lon  float64
		want Zone
	}{
		{-170, Zone32}, {5.9, Zone32}, {11.999999, Zone32}, {12, Zone33}, {14.5, Zone33}, {179, Zone33},
	}
	for _, tt := range tests {
		if got := ZoneForLon(tt.lon); got != tt.want {
			t.Errorf("ZoneForLon(%v) = %v, want %v", tt.lon, got, tt.want)
		}
	}
	if Zone32.CentralMeridian() != 9 || Zone33.CentralMeridian() != 15 {
		t.Errorf("central meridians %v, %v; want 9, 15", Zone32.CentralMeridian(), Zone33.CentralMeridian())
	}
	if s := Zone33.String(); s != "EPSG:25833" {
		t.Errorf("Zone33.String() = %q", s)
	}
}

func TestNoAllocs(t *testing.T) {
	var sink float64
	allocs := testing.AllocsPerRun(100, func() {
		e, n := ToUTM(Zone32, 10.5, 51.2)
		lon, lat := FromUTM(Zone33, e, n)
		sink += lon + lat
	})
	if allocs != 0 {
		t.Errorf("ToUTM+FromUTM allocate %v times per call, want 0", allocs)
	}
	_ = sink
}

// benchPoints returns fixed-seed lon/lat points over Germany and one zone beyond.
func benchPoints(count int) [][2]float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	pts := make([][2]float64, count)
	for i := range pts {
		pts[i] = [2]float64{5 + 11*rng.Float64(), 47 + 8.5*rng.Float64()}
	}
	return pts
}

func BenchmarkToUTM(b *testing.B) {
	pts := benchPoints(1024)
	var sink float64
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pts {
			e, n := ToUTM(Zone32, p[0], p[1])
			sink += e + n
		}
	}
	b.ReportMetric(float64(b.N*len(pts))/b.Elapsed().Seconds(), "transforms/s")
	_ = sink
}

func BenchmarkFromUTM(b *testing.B) {
	pts := benchPoints(1024)
	for i, p := range pts {
		pts[i][0], pts[i][1] = ToUTM(Zone32, p[0], p[1])
	}
	var sink float64
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pts {
			lon, lat := FromUTM(Zone32, p[0], p[1])
			sink += lon + lat
		}
	}
	b.ReportMetric(float64(b.N*len(pts))/b.Elapsed().Seconds(), "transforms/s")
	_ = sink
}
