package mvt

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.mvt")

// sampleTile is a layer of two squares sharing an edge (one with a hole)
// and one crossing the tile's west side, with repeated values.
func sampleTile() []byte {
	c := NewClipper(Extent, 64)
	l := NewLayer("buildings", Extent)
	var r Rings
	add := func(id uint64, h float64, rings ...[]float64) {
		r.Reset()
		var xy []float64
		var ends []int
		for _, ring := range rings {
			xy = append(xy, ring...)
			ends = append(ends, len(xy))
		}
		c.AppendPolygon(&r, xy, ends)
		l.AddPolygon(id, r, []Prop{{"height_m", Double(h)}, {"bl", String("be")}, {"building_id", Uint(id)}})
	}
	// Counter-clockwise on screen (the wrong way): the clipper turns it.
	add(1, 12.5, []float64{100, 100, 100, 200, 200, 200, 200, 100, 100, 100},
		[]float64{120, 120, 180, 120, 180, 180, 120, 180})
	add(2, 12.5, []float64{200.4, 100, 300, 100, 300, 200, 200.4, 200})
	add(3, 7, []float64{-500, 1000, 50, 1000, 50, 1100, -500, 1100})
	return AppendTile(nil, l)
}

func TestRoundTrip(t *testing.T) {
	b := sampleTile()
	path := filepath.Join("testdata", "sample.mvt")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(path); err != nil || !bytes.Equal(want, b) {
		t.Errorf("encoding differs from %s (%v): run go test ./mvt -run RoundTrip -update after checking the change", path, err)
	}
	layers, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 || layers[0].Name != "buildings" || layers[0].Version != 2 || layers[0].Extent != Extent || len(layers[0].Features) != 3 {
		t.Fatalf("decoded %+v", layers)
	}
	fs := layers[0].Features
	tests := []struct {
		name  string
		f     Feature
		id    uint64
		parts [][]Pt
	}{
		{"exterior turned clockwise, hole counter-clockwise", fs[0], 1, [][]Pt{
			{{100, 100}, {200, 100}, {200, 200}, {100, 200}},
			{{120, 180}, {180, 180}, {180, 120}, {120, 120}}}},
		{"shared edge rounded onto the same grid points", fs[1], 2, [][]Pt{{{200, 100}, {300, 100}, {300, 200}, {200, 200}}}},
		{"clipped to the buffer", fs[2], 3, [][]Pt{{{-64, 1000}, {50, 1000}, {50, 1100}, {-64, 1100}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.ID != tc.id || !tc.f.HasID || tc.f.Type != Polygon {
				t.Errorf("id %d type %d", tc.f.ID, tc.f.Type)
			}
			for i, p := range tc.f.Parts {
				if a := Area(p); (a > 0) != (i == 0) {
					t.Errorf("ring %d has area %d", i, a)
				}
			}
			if !sameRings(tc.f.Parts, tc.parts) {
				t.Errorf("rings %v, want (up to the start point) %v", tc.f.Parts, tc.parts)
			}
			if tc.f.Props["bl"] != "be" || tc.f.Props["building_id"] != tc.id {
				t.Errorf("props %v", tc.f.Props)
			}
		})
	}
	// Two features with height 12.5 share one value: 2 heights, 1 BL, 3 ids.
	if n := bytes.Count(b, []byte{4<<3 | 2}); n < 6 {
		t.Errorf("%d value-like bytes", n)
	}
}

// sameRings compares rings up to their start point.
func sameRings(got, want [][]Pt) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return false
		}
		ok := false
		for s := range got[i] {
			rot := append(append([]Pt{}, got[i][s:]...), got[i][:s]...)
			if reflect.DeepEqual(rot, want[i]) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// TestValueDedup: a key and a value used by many features are stored once.
func TestValueDedup(t *testing.T) {
	l := NewLayer("x", Extent)
	r := Rings{Pts: []Pt{{0, 0}, {10, 0}, {10, 10}}, Ends: []int{3}}
	for i := range 100 {
		l.AddPolygon(uint64(i+1), r, []Prop{{"bl", String("nrw")}, {"k", Int(-3)}})
	}
	if len(l.keyLst) != 2 || len(l.valLst) != 2 {
		t.Fatalf("%d keys, %d values", len(l.keyLst), len(l.valLst))
	}
	layers, err := Decode(AppendTile(nil, l))
	if err != nil || len(layers[0].Features) != 100 || layers[0].Features[99].Props["k"] != int64(-3) {
		t.Fatalf("%v %+v", err, layers)
	}
}

// TestSharedEdgeCrossingTheBorder: two polygons sharing an edge that
// crosses the clip box meet at the same clipped point.
func TestSharedEdgeCrossingTheBorder(t *testing.T) {
	c := NewClipper(Extent, 8)
	var a, b Rings
	// The shared edge from (-300.3, 17.2) to (400.6, 2311.9), walked in
	// opposite directions.
	c.AppendPolygon(&a, []float64{-300.3, 17.2, 400.6, 2311.9, -900, 2311.9}, []int{6})
	c.AppendPolygon(&b, []float64{400.6, 2311.9, -300.3, 17.2, 900, 17.2}, []int{6})
	onBorder := func(r Rings) map[Pt]bool {
		m := map[Pt]bool{}
		for _, p := range r.Pts {
			if p.X == -8 {
				m[p] = true
			}
		}
		return m
	}
	pa, pb := onBorder(a), onBorder(b)
	shared := 0
	for p := range pa {
		if pb[p] {
			shared++
		}
	}
	if shared != 1 {
		t.Fatalf("points on the west border: %v and %v", pa, pb)
	}
}

func TestDegenerateDropped(t *testing.T) {
	c := NewClipper(Extent, 64)
	var r Rings
	c.AppendPolygon(&r, []float64{10.1, 10.1, 10.3, 10.2, 10.2, 10.4}, []int{6}) // below one unit
	c.AppendPolygon(&r, []float64{9000, 0, 9100, 0, 9100, 100}, []int{6})        // outside
	if len(r.Ends) != 0 {
		t.Fatalf("rings %v", r)
	}
}

func TestProjector(t *testing.T) {
	tile := TileID{15, 17602, 10744}
	w, s, e, n := tile.BoundsWGS84()
	p := NewProjector(tile, Extent)
	for _, tc := range []struct{ lon, lat, x, y float64 }{{w, n, 0, 0}, {e, s, Extent, Extent}} {
		x, y := p.Project(tc.lon, tc.lat)
		if d := max(abs(x-tc.x), abs(y-tc.y)); d > 1e-6 {
			t.Errorf("(%g, %g) -> (%g, %g), want (%g, %g)", tc.lon, tc.lat, x, y, tc.x, tc.y)
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestManyKeysAndKinds: a layer past the keys it compares one by one
// (smallKeys) still gives each key and value one index, and values of
// different kinds with the same bits stay apart; Reset empties the layer
// for the next tile.
func TestManyKeysAndKinds(t *testing.T) {
	l := NewLayer("x", Extent)
	r := Rings{Pts: []Pt{{0, 0}, {10, 0}, {10, 10}}, Ends: []int{3}}
	for round := range 2 {
		for i := range 3 {
			var props []Prop
			for k := range 40 {
				props = append(props, Prop{fmt.Sprintf("k%d", (k+i)%40), Int(int64(k))})
			}
			props = append(props, Prop{"s", String("1")}, Prop{"i", Int(1)}, Prop{"u", Uint(1)}, Prop{"b", Bool(true)}, Prop{"d", Double(math.Float64frombits(1))})
			l.AddPolygon(uint64(i+1), r, props)
		}
		if len(l.keyLst) != 45 || len(l.valLst) != 44 {
			t.Fatalf("round %d: %d keys, %d values; want 45 and 44", round, len(l.keyLst), len(l.valLst))
		}
		layers, err := Decode(AppendTile(nil, l))
		if err != nil || len(layers[0].Features) != 3 {
			t.Fatalf("%v %+v", err, layers)
		}
		f := layers[0].Features[2]
		if f.Props["k2"] != int64(0) || f.Props["k1"] != int64(39) || f.Props["s"] != "1" || f.Props["u"] != uint64(1) || f.Props["b"] != true {
			t.Fatalf("round %d: %v", round, f.Props)
		}
		l.Reset()
	}
}

// TestRoundWorldExact: for a million random points over Germany and
// beyond (longitude -90 to 40, latitude -60 to 66) at every zoom from 12
// to 18, in the tile of the point and its neighbours (vertices outside a
// tile are rounded too), the integer path (World as an integer times
// 2^WorldBits, RoundWorld) gives what rounding Projector.Project's value
// gives: the tile file's tiles are the search path's.
func TestRoundWorldExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1_000_000 {
		lon, lat := -90+130*rng.Float64(), -60+126*rng.Float64()
		if i%4 == 0 { // Germany
			lon, lat = 5.8+9.3*rng.Float64(), 47.2+7.9*rng.Float64()
		}
		z := 12 + i%7
		wx, wy := World(lon, lat)
		qx, qy := int64(math.Ldexp(wx, WorldBits)), int64(math.Ldexp(wy, WorldBits))
		if math.Ldexp(float64(qx), -WorldBits) != wx || math.Ldexp(float64(qy), -WorldBits) != wy {
			t.Fatalf("%g %g: World (%g %g) is not an integer times 2^-%d", lon, lat, wx, wy, WorldBits)
		}
		n := 1 << z
		tx, ty := int(wx*float64(n))+rng.IntN(3)-1, int(wy*float64(n))+rng.IntN(3)-1
		px, py := NewProjector(TileID{Z: z, X: tx, Y: ty}, Extent).Project(lon, lat)
		shift := uint(WorldBits - z - 12)
		gx, gy := RoundWorld(qx, int64(tx)*Extent, shift), RoundWorld(qy, int64(ty)*Extent, shift)
		if gx != int64(math.Round(px)) || gy != int64(math.Round(py)) {
			t.Fatalf("%g %g z%d tile %d/%d: integer path (%d %d), float path (%g %g)", lon, lat, z, tx, ty, gx, gy, px, py)
		}
	}
}

// TestRoundWorldHalves: halves round away from zero on both sides of the
// tile's corner, as math.Round does.
func TestRoundWorldHalves(t *testing.T) {
	const shift = 4 // 16 world units a tile unit
	for _, c := range []struct {
		q, origin, want int64
	}{{10*16 + 8, 10, 1}, {10*16 - 8, 10, -1}, {10*16 + 7, 10, 0}, {10*16 - 7, 10, 0}, {10*16 + 24, 10, 2}, {10*16 - 24, 10, -2}, {10 * 16, 10, 0}} {
		if got := RoundWorld(c.q, c.origin, shift); got != c.want || float64(got) != math.Round(float64(c.q-c.origin*16)/16) {
			t.Errorf("RoundWorld(%d, %d) = %d, want %d", c.q, c.origin, got, c.want)
		}
	}
}
