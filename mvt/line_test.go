package mvt

import (
	"reflect"
	"testing"
)

// TestAppendLine: rounding, clipping to the buffered tile (a line leaving
// and coming back is two parts), and a line round trip through Decode.
func TestAppendLine(t *testing.T) {
	c := NewClipper(100, 10)
	for _, tc := range []struct {
		name string
		xy   []float64
		want Lines
	}{
		{"inside, rounded, repeats dropped", []float64{1.2, 1.4, 1.4, 0.6, 50.5, 50.4}, Lines{Pts: []Pt{{1, 1}, {51, 50}}, Ends: []int{2}}},
		{"leaves and comes back", []float64{0, 0, 200, 0, 200, 50, 50, 50}, Lines{Pts: []Pt{{0, 0}, {110, 0}, {110, 50}, {50, 50}}, Ends: []int{2, 4}}},
		{"crosses the box", []float64{-50, 20, 150, 20}, Lines{Pts: []Pt{{-10, 20}, {110, 20}}, Ends: []int{2}}},
		{"outside", []float64{-50, -50, -20, -40}, Lines{}},
		{"one point", []float64{5, 5, 5.2, 5.1}, Lines{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got Lines
			c.AppendLine(&got, tc.xy)
			if len(got.Ends) == 0 && len(tc.want.Ends) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	l := NewLayer("contours", Extent)
	g := Lines{Pts: []Pt{{0, 0}, {10, 5}, {20, 0}, {30, 30}, {40, 30}}, Ends: []int{3, 5}}
	l.AddLineString(7, g, []Prop{{Key: "elevation_m", Value: Int(85)}, {Key: "index", Value: Bool(false)}})
	layers, err := Decode(AppendTile(nil, l))
	if err != nil || len(layers) != 1 || len(layers[0].Features) != 1 {
		t.Fatalf("%v %+v", err, layers)
	}
	f := layers[0].Features[0]
	if f.Type != LineString || f.ID != 7 || f.Props["elevation_m"] != int64(85) || f.Props["index"] != false ||
		!reflect.DeepEqual(f.Parts, [][]Pt{{{0, 0}, {10, 5}, {20, 0}}, {{30, 30}, {40, 30}}}) {
		t.Errorf("%+v", f)
	}
}
