package export

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/geo"
)

func regionDeg(w, s, e, n float64) map[string]any {
	r := math.Pi / 180
	return map[string]any{"region": []float64{w * r, s * r, e * r, n * r, 0, 10}}
}

func writeJSON(t *testing.T, p string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPruneTileset: only the tiles whose region meets the bbox stay, with
// their content, through an external tileset.
func TestPruneTileset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "tileset.json"), map[string]any{"asset": map[string]any{"version": "1.1"}, "geometricError": 100,
		"root": map[string]any{"boundingVolume": regionDeg(0, 50, 2, 51), "geometricError": 100, "refine": "ADD", "children": []any{
			map[string]any{"boundingVolume": regionDeg(0, 50, 1, 51), "geometricError": 0, "content": map[string]any{"uri": "tiles/a.glb"}},
			map[string]any{"boundingVolume": regionDeg(1, 50, 2, 51), "geometricError": 50, "content": map[string]any{"uri": "sub/tileset.json"}},
		}}})
	writeJSON(t, filepath.Join(dir, "sub", "tileset.json"), map[string]any{"asset": map[string]any{"version": "1.1"}, "geometricError": 50,
		"root": map[string]any{"boundingVolume": regionDeg(1, 50, 2, 51), "geometricError": 50, "refine": "ADD", "children": []any{
			map[string]any{"boundingVolume": regionDeg(1, 50, 1.5, 51), "geometricError": 0, "content": map[string]any{"uri": "b1.glb"}},
			map[string]any{"boundingVolume": regionDeg(1.5, 50, 2, 51), "geometricError": 0, "content": map[string]any{"uri": "b2.glb"}},
		}}})
	for _, f := range []string{"tiles/a.glb", "sub/b1.glb", "sub/b2.glb"} {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		bbox  geo.BBox
		files []string
		tiles int
	}{
		{"east quarter", geo.BBox{MinLon: 1.6, MinLat: 50.2, MaxLon: 1.9, MaxLat: 50.4}, []string{"sub/b2.glb", "sub/tileset.json", "tileset.json"}, 4},
		{"west half", geo.BBox{MinLon: 0.1, MinLat: 50.2, MaxLon: 0.9, MaxLat: 50.4}, []string{"tiles/a.glb", "tileset.json"}, 2},
		{"outside", geo.BBox{MinLon: 3, MinLat: 50.2, MaxLon: 4, MaxLat: 50.4}, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string][]byte{}
			p := pruner{ctx: context.Background(), dir: dir, bbox: bboxRadians(c.bbox), files: files}
			_, ok, err := p.tileset("tileset.json")
			if err != nil || ok != (c.files != nil) {
				t.Fatalf("tileset: ok %v, %v", ok, err)
			}
			var got []string
			for f := range files {
				got = append(got, f)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.files) || p.tiles != c.tiles {
				t.Fatalf("files %v, %d tiles; want %v, %d", got, p.tiles, c.files, c.tiles)
			}
		})
	}
}
