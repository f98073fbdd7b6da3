package cql2

import (
	"testing"

	"github.com/svc-geodata/svc/geo"
)

// TestTransform: a filter written in UTM 32N (filter-crs EPSG:25832)
// selects, after Transform to WGS84, the same fixture buildings placed in
// WGS84 as the original filter selects in UTM.
func TestTransform(t *testing.T) {
	t.Parallel()
	const e0, n0 = 500000.0, 5800000.0 // a UTM 32N origin for the fixture grid
	toWGS84 := func(x, y float64) (float64, float64) { return geo.FromUTM(geo.Zone(32), x, y) }
	shift := func(x, y float64) (float64, float64) { return x + e0, y + n0 }
	for _, c := range evalCases {
		if !containsSpatial(c.filter) {
			continue
		}
		t.Run(c.filter, func(t *testing.T) {
			e, err := ParseText(c.filter)
			if err != nil {
				t.Fatal(err)
			}
			utm := e.Transform(shift)
			wgs := utm.Transform(toWGS84)
			var ids []string
			for _, f := range fixture() {
				ft := f.feature()
				ft.Geometry = transformGeom(transformGeom(f.footprint, shift), toWGS84)
				ok, err := wgs.Match(ft)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					ids = append(ids, f.id)
				}
			}
			if got := join(ids); got != c.want {
				t.Errorf("after transform: got %q, want %q", got, c.want)
			}
			if _, err := ParseText(wgs.Text()); err != nil {
				t.Errorf("transformed text: %v", err)
			}
		})
	}
}

func containsSpatial(s string) bool {
	for _, p := range []string{"S_", "BBOX"} {
		for i := 0; i+len(p) <= len(s); i++ {
			if s[i:i+len(p)] == p {
				return true
			}
		}
	}
	return false
}

func join(ids []string) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += ","
		}
		out += id
	}
	return out
}
