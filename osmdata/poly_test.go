package osmdata

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestParsePoly(t *testing.T) {
	f, err := os.Open("testdata/helgoland-cut.poly")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParsePoly(f)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "helgoland-cut" || len(p.Rings) != 2 || p.Rings[0].Hole || !p.Rings[1].Hole ||
		len(p.Rings[0].Points) != 6 || p.Rings[0].Points[0] != p.Rings[0].Points[5] || p.Rings[0].Points[1] != [2]float64{7.93996, 54.16} {
		t.Errorf("parsed %+v", p)
	}
	// Several outer rings and holes (the multi-ring cut of cut_test.go).
	f2, err := os.Open("testdata/helgoland-islands.poly")
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	if p, err := ParsePoly(f2); err != nil || len(p.Rings) != 4 || p.Rings[0].Hole || !p.Rings[1].Hole || !p.Rings[2].Hole || p.Rings[3].Hole {
		t.Errorf("multi-ring: %v %+v", err, p)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "line 0: empty"},
		{"no END", "x\n1\n 1 2\n 2 2\n 2 3\n", "has no END"},
		{"no final END", "x\n1\n 1 2\n 2 2\n 2 3\nEND\n", "no final END"},
		{"three numbers", "x\n1\n 1 2 3\nEND\nEND\n", `line 3: want "lon lat"`},
		{"latitude 91", "x\n1\n 1 91\n 2 2\n 2 3\nEND\nEND\n", "not a WGS84 coordinate"},
		{"NaN", "x\n1\n NaN 1\nEND\nEND\n", "not a WGS84 coordinate"},
		{"two points", "x\n1\n 1 2\n 2 2\nEND\nEND\n", "fewer than 3 points"},
		{"only a hole", "x\n!1\n 1 2\n 2 2\n 2 3\nEND\nEND\n", "no outer ring"},
		{"GeoJSON", `{"type":"Polygon"}`, "no final END"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePoly(strings.NewReader(tc.text))
			if !errors.Is(err, ErrPoly) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrPoly with %q", err, tc.want)
			}
		})
	}
}

// FuzzParsePoly: no input panics; what parses is closed rings of WGS84
// points, an outer ring first.
func FuzzParsePoly(f *testing.F) {
	for _, name := range []string{"helgoland-cut.poly", "helgoland-islands.poly"} {
		seed, _ := os.ReadFile("testdata/" + name)
		f.Add(string(seed))
	}
	f.Add("x\n1\n 1 2\n 2 2\n 2 3\nEND\nEND\n")
	f.Add("x\n!1\n 1e400 2\nEND\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePoly(strings.NewReader(s))
		if err != nil {
			return
		}
		if len(p.Rings) == 0 || p.Rings[0].Hole {
			t.Fatal("no outer ring first")
		}
		for _, r := range p.Rings {
			if len(r.Points) < 4 || r.Points[0] != r.Points[len(r.Points)-1] {
				t.Fatalf("ring not closed: %v", r.Points)
			}
			for _, q := range r.Points {
				if !(q[0] >= -180 && q[0] <= 180 && q[1] >= -90 && q[1] <= 90) {
					t.Fatalf("point %v", q)
				}
			}
		}
	})
}
