package geo

import (
	"errors"
	"strings"
	"testing"
)

func TestParseCoords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		max        int
		want       []LonLat
		wantErr    bool
		outOfRange bool
	}{
		{"two points", "8.6,50.1;8.7,50.2", 10, []LonLat{{8.6, 50.1}, {8.7, 50.2}}, false, false},
		{"spaces", " 8.6 ,50.1 ; 8.7,\t50.2", 10, []LonLat{{8.6, 50.1}, {8.7, 50.2}}, false, false},
		{"three points at max", "1,2;3,4;-5,-6", 3, []LonLat{{1, 2}, {3, 4}, {-5, -6}}, false, false},
		{"range limits", "-180,-90;180,90", 2, []LonLat{{-180, -90}, {180, 90}}, false, false},
		{"empty", "", 10, nil, true, false},
		{"one point", "8.6,50.1", 10, nil, true, false},
		{"over max", "1,2;3,4;5,6", 2, nil, true, false},
		{"trailing semicolon", "1,2;3,4;", 10, nil, true, false},
		{"leading semicolon", ";1,2;3,4", 10, nil, true, false},
		{"double semicolon", "1,2;;3,4", 10, nil, true, false},
		{"three numbers", "1,2,3;4,5", 10, nil, true, false},
		{"one number", "1;2", 10, nil, true, false},
		{"word", "1,x;3,4", 10, nil, true, false},
		{"NaN", "NaN,1;3,4", 10, nil, true, false},
		{"Inf", "1,2;-Inf,4", 10, nil, true, false},
		{"hex", "0x10,2;3,4", 10, nil, true, false},
		{"bbox form", "1,2,3,4", 10, nil, true, false},
		{"malformed after range error", "200,2;x,4", 10, nil, true, false},
		{"lon range", "180.5,2;3,4", 10, nil, true, true},
		{"lat range", "1,2;3,-90.5", 10, nil, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseCoords(tt.in, tt.max)
			if !tt.wantErr {
				if err != nil || !equalPoints(got, tt.want) {
					t.Fatalf("ParseCoords(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
				}
				return
			}
			var ce *CoordsError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCoords) {
				t.Fatalf("ParseCoords(%q) error = %v, want *CoordsError wrapping ErrCoords", tt.in, err)
			}
			if got != nil {
				t.Errorf("points %v returned with an error", got)
			}
			if !strings.Contains(err.Error(), "lon1,lat1;lon2,lat2[;...]") {
				t.Errorf("message %q does not name the expected form", err)
			}
			if ce.OutOfRange != tt.outOfRange {
				t.Errorf("OutOfRange = %v, want %v (%v)", ce.OutOfRange, tt.outOfRange, err)
			}
		})
	}
}

// TestParseCoordsAllocationCap checks that a huge string over the cap is
// rejected before its points are allocated.
func TestParseCoordsAllocationCap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds allocations of its own")
	}
	s := strings.Repeat("1,2;", 200000) + "1,2"
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := ParseCoords(s, 1000); err == nil {
			t.Fatal("no error over the cap")
		}
	})
	if allocs > 5 {
		t.Errorf("%v allocations for a rejected 800 kB string, want a handful", allocs)
	}
}

func equalPoints(a, b []LonLat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
