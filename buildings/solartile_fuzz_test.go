package buildings

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/mvt"
)

// FuzzEachPolygon: the coordinate scanner of the solar tiles never panics,
// fails only with lod2store.ErrCorrupt, and on coordinates encoding/json
// reads as a MultiPolygon of positions it yields the same polygons,
// vertices and outer-ring mean height.
func FuzzEachPolygon(f *testing.F) {
	for _, s := range []string{
		`[[[[8.1,50.1,120.5],[8.2,50.1,121],[8.2,50.2,122],[8.1,50.1,120.5]]]]`,
		`[[[[8.1,50.1,10],[8.2,50.1,10],[8.2,50.2,10],[8.1,50.1,10]],[[8.15,50.12,10],[8.16,50.12,10],[8.16,50.13,10],[8.15,50.12,10]]],[[[9,51],[9.1,51],[9,51.1],[9,51]]]]`,
		`[[[[1]]]]`, `[[[`, `]]`, `[[[[1e400,2]]]]`, `[[[[x,2]]]]`, `[]`,
	} {
		f.Add([]byte(s))
	}
	proj := mvt.NewProjector(mvt.TileID{Z: 16, X: 34314, Y: 22175}, SolarTileSize)
	f.Fuzz(func(t *testing.T, coords []byte) {
		type poly struct {
			xy   []float64
			ends []int
			zM   float64
		}
		var got []poly
		err := eachPolygon(coords, proj, func(part int, xy []float64, ends []int, zM float64) error {
			if part != len(got) {
				t.Fatalf("part %d after %d polygons", part, len(got))
			}
			got = append(got, poly{append([]float64(nil), xy...), append([]int(nil), ends...), zM})
			return nil
		})
		if err != nil {
			if !errors.Is(err, lod2store.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		var want [][][][]float64
		if json.Unmarshal(coords, &want) != nil {
			return
		}
		for _, p := range want {
			for _, r := range p {
				for _, pos := range r {
					if len(pos) < 2 || len(pos) > 3 {
						return // not a position list the scanner is for
					}
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d polygons, encoding/json %d", len(got), len(want))
		}
		for i, p := range want {
			if len(p) != len(got[i].ends) {
				t.Fatalf("polygon %d: %d rings, encoding/json %d", i, len(got[i].ends), len(p))
			}
			k, zSum, n := 0, 0.0, 0
			for ri, r := range p {
				for _, pos := range r {
					x, y := proj.Project(pos[0], pos[1])
					if gx, gy := got[i].xy[k], got[i].xy[k+1]; !(gx == x || math.IsNaN(x) && math.IsNaN(gx)) || !(gy == y || math.IsNaN(y) && math.IsNaN(gy)) {
						t.Fatalf("polygon %d vertex %d: %v,%v, want %v,%v", i, k/2, gx, gy, x, y)
					}
					k += 2
					if ri == 0 {
						n++
						if len(pos) == 3 {
							zSum += pos[2]
						}
					}
				}
			}
			if n > 0 && math.Abs(got[i].zM-zSum/float64(n)) > 1e-9*math.Max(1, math.Abs(zSum)) {
				t.Fatalf("polygon %d: mean z %v, want %v", i, got[i].zM, zSum/float64(n))
			}
		}
	})
}
