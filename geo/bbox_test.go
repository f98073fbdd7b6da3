package geo

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseBBox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		want       BBox
		wantErr    bool
		outOfRange bool
	}{
		{"plain", "8.6,50.1,8.7,50.2", BBox{8.6, 50.1, 8.7, 50.2}, false, false},
		{"spaces", " 8.6 , 50.1,\t8.7 ,50.2 ", BBox{8.6, 50.1, 8.7, 50.2}, false, false},
		{"negative and exponent", "-1.5e1,-4.5E1,+0,.5", BBox{-15, -45, 0, 0.5}, false, false},
		{"degenerate", "9,50,9,50", BBox{9, 50, 9, 50}, false, false},
		{"world", "-180,-90,180,90", BBox{-180, -90, 180, 90}, false, false},
		{"negative zero", "-0,-0.0,0,0", BBox{0, 0, 0, 0}, false, false},
		{"empty", "", BBox{}, true, false},
		{"blank", "  ", BBox{}, true, false},
		{"three values", "1,2,3", BBox{}, true, false},
		{"five values", "1,2,3,4,5", BBox{}, true, false},
		{"trailing comma", "1,2,3,", BBox{}, true, false},
		{"empty value", "1,,3,4", BBox{}, true, false},
		{"word", "a,2,3,4", BBox{}, true, false},
		{"NaN", "NaN,2,3,4", BBox{}, true, false},
		{"Inf", "1,2,Inf,4", BBox{}, true, false},
		{"hex float", "0x1p3,2,3,4", BBox{}, true, false},
		{"underscore", "1_0,2,3,4", BBox{}, true, false},
		{"overflow", "1,2,3,1e400", BBox{}, true, false},
		{"semicolons", "1;2;3;4", BBox{}, true, false},
		{"inner space", "1 0,2,3,4", BBox{}, true, false},
		{"unicode space", "1,2,3,4\u00a0", BBox{}, true, false},
		{"bad syntax and range", "200,91,x,4", BBox{}, true, false},
		{"lon range", "-180.0001,2,3,4", BBox{}, true, true},
		{"lat range", "1,-91,3,4", BBox{}, true, true},
		{"maxLat range", "1,2,3,90.5", BBox{}, true, true},
		{"lon order", "9,50,8,51", BBox{}, true, true},
		{"lat order", "8,51,9,50", BBox{}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseBBox(tt.in)
			if !tt.wantErr {
				if err != nil || got != tt.want || math.Signbit(got.MinLon) != math.Signbit(tt.want.MinLon) {
					t.Fatalf("ParseBBox(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
				}
				return
			}
			var be *BBoxError
			if !errors.As(err, &be) || !errors.Is(err, ErrBBox) {
				t.Fatalf("ParseBBox(%q) error = %v, want *BBoxError wrapping ErrBBox", tt.in, err)
			}
			if !strings.Contains(err.Error(), "minLon,minLat,maxLon,maxLat") {
				t.Errorf("message %q does not name the expected form", err)
			}
			if be.OutOfRange != tt.outOfRange {
				t.Errorf("OutOfRange = %v, want %v (%v)", be.OutOfRange, tt.outOfRange, err)
			}
		})
	}
}

func TestParseBBoxEchoIsCapped(t *testing.T) {
	t.Parallel()
	_, err := ParseBBox(strings.Repeat("x", 10000) + ",1,2,3")
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error for a 10 kB value = %d bytes, want a short message", len(err.Error()))
	}
}

func TestBBoxIntersects(t *testing.T) {
	t.Parallel()
	b := BBox{8, 50, 9, 51}
	tests := []struct {
		name string
		o    BBox
		want bool
	}{
		{"same", b, true},
		{"inside", BBox{8.2, 50.2, 8.3, 50.3}, true},
		{"containing", BBox{7, 49, 10, 52}, true},
		{"overlap corner", BBox{8.5, 50.5, 9.5, 51.5}, true},
		{"touch edge", BBox{9, 50, 10, 51}, true},
		{"touch corner", BBox{9, 51, 10, 52}, true},
		{"degenerate point on edge", BBox{9, 50.5, 9, 50.5}, true},
		{"degenerate line through", BBox{7, 50.5, 10, 50.5}, true},
		{"east", BBox{9.0001, 50, 10, 51}, false},
		{"west", BBox{7, 50, 7.9999, 51}, false},
		{"north", BBox{8, 51.0001, 9, 52}, false},
		{"south", BBox{8, 49, 9, 49.9999}, false},
		{"lon overlap only", BBox{8, 52, 9, 53}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := b.Intersects(tt.o); got != tt.want {
				t.Errorf("Intersects = %v, want %v", got, tt.want)
			}
			if got := tt.o.Intersects(b); got != tt.want {
				t.Errorf("reverse Intersects = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBBoxContainsCenter(t *testing.T) {
	t.Parallel()
	b := BBox{8, 50, 9, 51}
	tests := []struct {
		lon, lat float64
		want     bool
	}{
		{8.5, 50.5, true}, {8, 50, true}, {9, 51, true}, {8, 50.7, true},
		{7.99, 50.5, false}, {9.01, 50.5, false}, {8.5, 49.99, false}, {8.5, 51.01, false},
	}
	for _, tt := range tests {
		if got := b.Contains(tt.lon, tt.lat); got != tt.want {
			t.Errorf("Contains(%v, %v) = %v, want %v", tt.lon, tt.lat, got, tt.want)
		}
	}
	if c := b.Center(); c != (LonLat{8.5, 50.5}) {
		t.Errorf("Center = %+v, want {8.5 50.5}", c)
	}
}

// TestBBoxToUTM checks the envelope against 4,000 points per edge: it must
// contain all of them and reach their extremes.
func TestBBoxToUTM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		b    BBox
		z    Zone
	}{
		{"small frankfurt", BBox{8.6, 50.05, 8.75, 50.15}, Zone32},
		{"crosses central meridian", BBox{8, 47.5, 10, 55}, Zone32},
		{"east in zone 32", BBox{12.5, 52.3, 13.8, 52.7}, Zone32},
		{"west in zone 33", BBox{10.5, 48, 11.9, 50}, Zone33},
		{"across 12 E", BBox{11.5, 51, 12.5, 51.5}, Zone33},
		{"degenerate", BBox{9.5, 50, 9.5, 50}, Zone32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			minE, minN, maxE, maxN := tt.b.ToUTM(tt.z)
			dMinE, dMinN, dMaxE, dMaxN := denseEnvelope(tt.b, tt.z, 4000)
			const tol = 1e-6 // metres
			if dMinE < minE-tol || dMinN < minN-tol || dMaxE > maxE+tol || dMaxN > maxN+tol {
				t.Errorf("envelope %v %v %v %v misses dense %v %v %v %v", minE, minN, maxE, maxN, dMinE, dMinN, dMaxE, dMaxN)
			}
			if dMinE-minE > tol || dMinN-minN > tol || maxE-dMaxE > tol || maxN-dMaxN > tol {
				t.Errorf("envelope %v %v %v %v is looser than dense %v %v %v %v", minE, minN, maxE, maxN, dMinE, dMinN, dMaxE, dMaxN)
			}
		})
	}
	// Corners alone would miss the southward bulge of the bottom edge at 9 E.
	b := BBox{8, 47.5, 10, 55}
	_, minN, _, _ := b.ToUTM(Zone32)
	_, cornerN := ToUTM(Zone32, 8, 47.5)
	if cornerN-minN < 1 {
		t.Errorf("minN %v not below corner northing %v: central meridian sample missing", minN, cornerN)
	}
}

func denseEnvelope(b BBox, z Zone, steps int) (minE, minN, maxE, maxN float64) {
	minE, minN, maxE, maxN = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := 0; i <= steps; i++ {
		t := float64(i) / float64(steps)
		lon := b.MinLon + t*(b.MaxLon-b.MinLon)
		lat := b.MinLat + t*(b.MaxLat-b.MinLat)
		for _, p := range [][2]float64{{lon, b.MinLat}, {lon, b.MaxLat}, {b.MinLon, lat}, {b.MaxLon, lat}} {
			e, n := ToUTM(z, p[0], p[1])
			minE, maxE = math.Min(minE, e), math.Max(maxE, e)
			minN, maxN = math.Min(minN, n), math.Max(maxN, n)
		}
	}
	return minE, minN, maxE, maxN
}
