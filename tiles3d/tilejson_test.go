package tiles3d

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/svc-geodata/svc/glb"
)

// TestAppendTileMatchesJSON: marshalTileset and marshalInputs write the
// bytes json.Marshal writes for random tile trees (numbers of every magnitude, exponents,
// negative zero, URIs that need escapes, volumes other than regions), so
// tileset files keep their bytes and incremental builds still link the
// previous build's files.
func TestAppendTileMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	num := func() float64 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return rng.NormFloat64() * 1e-9
		case 3:
			return rng.NormFloat64() * 1e25
		case 4:
			return float64(rng.IntN(1000))
		case 5:
			return 1e21
		case 6:
			return 1e-6
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(14)-7))
	}
	floats := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = num()
		}
		return v
	}
	uris := []string{"tiles/3_1_2.glb", "../tiles/a b.glb", "sub/<x>&y.json", "tiles/ü\"\\\n.glb", ""}
	var tree func(depth int) *tileJSON
	tree = func(depth int) *tileJSON {
		t := &tileJSON{GeometricError: num(), BoundingVolume: map[string]any{"region": floats(6)}}
		switch rng.IntN(6) {
		case 0:
			t.BoundingVolume = map[string]any{"box": floats(12)}
		case 1:
			t.BoundingVolume = map[string]any{"region": floats(6), "extensions": map[string]any{"x": 1}}
		}
		if rng.IntN(2) == 0 {
			t.Transform = floats(16)
		}
		if rng.IntN(3) == 0 {
			t.Refine = []string{"ADD", "REPLACE"}[rng.IntN(2)]
		}
		if rng.IntN(2) == 0 {
			t.Content = &contentJSON{URI: uris[rng.IntN(len(uris))]}
		}
		if depth > 0 {
			for range rng.IntN(5) {
				t.Children = append(t.Children, tree(depth-1))
			}
		}
		return t
	}
	for i := range 200 {
		doc := tilesetJSON{Asset: assetOf("1.1", "svc test", "GCG2016", "© <Land> & BKG"), GeometricError: num(), Root: tree(4)}
		if i%2 == 0 {
			doc.Schema = glb.BuildingClass()
		}
		want, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalTileset(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			k := 0
			for k < min(len(got), len(want)) && got[k] == want[k] {
				k++
			}
			t.Fatalf("tree %d differs at byte %d:\n got %s\nwant %s", i, k, got[max(0, k-40):min(len(got), k+40)], want[max(0, k-40):min(len(want), k+40)])
		}
	}
	// build-inputs.json: entries with and without keys, tiles by theme.
	for i := range 50 {
		doc := inputsDoc{Recipe: "abc", Tiles: map[string]reuseEntry{}}
		if i%2 == 0 {
			doc.Version = tilesetVersion
		}
		for k := range rng.IntN(20) {
			e := reuseEntry{Inputs: "in", Count: int64(rng.IntN(3))}
			if rng.IntN(2) == 0 {
				e.Sources, e.Own, e.Edge = "s<1>", "", "e"
			}
			if rng.IntN(3) > 0 {
				e.Tiles = map[string]*tileJSON{"": tree(1), "trees": tree(0), "x&y": nil}
			}
			doc.Tiles[uris[k%len(uris)]+string(rune('a'+k))] = e
		}
		want, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalInputs(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("inputs %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// Values JSON cannot hold are an error, as for json.Marshal.
	if _, err := marshalTileset(tilesetJSON{GeometricError: math.Inf(1), Root: &tileJSON{}}); err == nil {
		t.Error("no error for an infinite geometric error")
	}
}
