package dataapi

import (
	"testing"

	"github.com/svc-geodata/svc/buildings"
)

// TestSolarClassesAgree: the solar route's classes (solarClasses) and
// those the vector tiles and the map legend use (buildings.SolarClasses)
// are the same thresholds with the same names, and name the same class
// on both sides of every threshold.
func TestSolarClassesAgree(t *testing.T) {
	if len(solarClasses) != len(buildings.SolarClasses) {
		t.Fatalf("%d route classes, %d tile classes", len(solarClasses), len(buildings.SolarClasses))
	}
	for i, c := range solarClasses {
		b := buildings.SolarClasses[i]
		if c.min != b.MinShare || c.name != b.Name {
			t.Errorf("class %d: route %v %q, tiles %v %q", i, c.min, c.name, b.MinShare, b.Name)
		}
		for _, s := range []float64{c.min - 0.0005, c.min, c.min + 0.0005} {
			if solarClass(s) != buildings.SolarClass(s) {
				t.Errorf("share %.4f: route %q, tiles %q", s, solarClass(s), buildings.SolarClass(s))
			}
		}
	}
}
