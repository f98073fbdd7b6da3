package tiles3d

import (
	"math"
	"testing"

	"github.com/svc-geodata/svc/rtin"
)

// TestMeshArraysWindsUp checks that every terrain triangle faces up
// (counter-clockwise seen from above in glTF's Y-up frame), whatever level
// of the RTIN hierarchy it comes from: CesiumJS culls back faces, and a
// mesh with mixed winding renders as a checkerboard of holes.
func TestMeshArraysWindsUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		tol  float64
		h    func(x, y float64) float64
	}{
		{"flat", 17, 0.5, func(x, y float64) float64 { return 100 }},
		{"hills", 65, 0.1, func(x, y float64) float64 { return 80 + 7*math.Sin(x/5)*math.Cos(y/7) }},
		{"ridge", 33, 0.05, func(x, y float64) float64 { return 60 + 3*math.Abs(x-y) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			heights := make([]float32, tc.size*tc.size)
			for r := range tc.size {
				for c := range tc.size {
					heights[r*tc.size+c] = float32(tc.h(float64(c), float64(r)))
				}
			}
			e, err := rtin.ComputeErrors(rtin.Grid{Size: tc.size, Heights: heights})
			if err != nil {
				t.Fatal(err)
			}
			m := e.Mesh(tc.tol)
			pos, nrm, idx, _, _ := meshArrays(m, heights, tc.size, -8, 8, 1)
			if len(idx) != len(m.Triangles) || len(idx) == 0 {
				t.Fatalf("%d indexes for %d RTIN triangle corners", len(idx), len(m.Triangles))
			}
			down := 0
			for i := 0; i < len(idx); i += 3 {
				if faceUpY(pos, idx[i], idx[i+1], idx[i+2]) <= 0 {
					down++
				}
			}
			if down > 0 {
				t.Errorf("%d of %d triangles face down", down, len(idx)/3)
			}
			for k := 1; k < len(nrm); k += 3 {
				if nrm[k] <= 0 {
					t.Fatalf("vertex %d normal %v points down", k/3, nrm[k-1:k+2])
				}
			}
		})
	}
}

// faceUpY is the Y (up) component of the face normal of triangle a, b, c
// in a Y-up position array.
func faceUpY(pos []float32, a, b, c uint32) float64 {
	p := func(i uint32, j int) float64 { return float64(pos[3*i+uint32(j)]) }
	u := [3]float64{p(b, 0) - p(a, 0), p(b, 1) - p(a, 1), p(b, 2) - p(a, 2)}
	w := [3]float64{p(c, 0) - p(a, 0), p(c, 1) - p(a, 1), p(c, 2) - p(a, 2)}
	return u[2]*w[0] - u[0]*w[2]
}
