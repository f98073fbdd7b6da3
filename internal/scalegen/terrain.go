package scalegen

import (
	"math"
)

// Relief is a deterministic fractal terrain and forest cover over a UTM
// zone: value noise summed over octaves from 40 km to 4 m (rolling
// lowland to low mountain range, 20-700 m, with the decimetre roughness
// of fields, ditches and embankments a DGM1 shows), forest patches where a
// 1.5 km noise passes a threshold (about a quarter of the land, NRW's
// share), and in them trees on a jittered 5 m lattice with round crowns.
// The same seed gives the same surface; tiles computed separately join
// without seams because every value is a function of the coordinate.
type Relief struct {
	seed uint64
}

// octave is one layer of the terrain: wavelength and amplitude in metres.
type octave struct{ wave, amp float64 }

var octaves = []octave{
	{40000, 260}, {12000, 90}, {3000, 30}, {800, 9}, {200, 4}, {50, 1.5}, {12, 0.5}, {4, 0.15},
}

// hash2 maps lattice point (i, j) of layer k to [0, 1).
func (r Relief) hash2(i, j int64, k uint64) float64 {
	x := r.seed ^ k*0x9E3779B97F4A7C15 ^ uint64(i)*0xBF58476D1CE4E5B9 ^ uint64(j)*0x94D049BB133111EB
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// noise is smooth value noise in [0, 1) at (x, y) in lattice units.
func (r Relief) noise(x, y float64, k uint64) float64 {
	fx, fy := math.Floor(x), math.Floor(y)
	i, j := int64(fx), int64(fy)
	tx, ty := x-fx, y-fy
	tx = tx * tx * tx * (tx*(tx*6-15) + 10)
	ty = ty * ty * ty * (ty*(ty*6-15) + 10)
	a, b := r.hash2(i, j, k), r.hash2(i+1, j, k)
	c, d := r.hash2(i, j+1, k), r.hash2(i+1, j+1, k)
	return a + (b-a)*tx + (c-a)*ty + (a-b-c+d)*tx*ty
}

// Ground is the terrain height in metres (DHHN2016) at UTM x, y.
func (r Relief) Ground(x, y float64) float64 {
	h := 180.0
	for k, o := range octaves {
		h += o.amp * (2*r.noise(x/o.wave, y/o.wave, uint64(k)) - 1)
	}
	return math.Max(h, 20)
}

// Forest reports whether UTM x, y lies in a forest patch.
func (r Relief) Forest(x, y float64) bool {
	v := 0.75*r.noise(x/1500, y/1500, 100) + 0.25*r.noise(x/350, y/350, 101)
	return v > 0.6
}

const treeCell = 5.0 // metres between trees in a forest (jittered)

// tree is the tree of one 5 m lattice cell, if any: position, height and
// crown radius in metres.
type tree struct {
	x, y, h, r float64
	ok         bool
}

func (r Relief) treeAt(i, j int64) tree {
	x := (float64(i) + 0.15 + 0.7*r.hash2(i, j, 200)) * treeCell
	y := (float64(j) + 0.15 + 0.7*r.hash2(i, j, 201)) * treeCell
	if !r.Forest(x, y) && r.hash2(i, j, 202) > 0.004 { // a few trees outside forests
		return tree{}
	}
	return tree{x: x, y: y, h: 12 + 18*r.hash2(i, j, 203), r: 2 + 2.5*r.hash2(i, j, 204), ok: true}
}

// Canopy fills dst (w x h pixels of px metres, row 0 at the north edge
// maxY, column 0 at minX) with the canopy height above ground in metres,
// NaN where there is no vegetation or where masked(x, y) (buildings).
func (r Relief) Canopy(dst []float32, minX, maxY, px float64, w, h int, masked func(x, y float64) bool) {
	i0 := int64(math.Floor(minX/treeCell)) - 1
	j0 := int64(math.Floor((maxY-float64(h)*px)/treeCell)) - 1
	cw := int(math.Ceil(float64(w)*px/treeCell)) + 3
	ch := int(math.Ceil(float64(h)*px/treeCell)) + 3
	cells := make([]tree, cw*ch)
	for b := 0; b < ch; b++ {
		for a := 0; a < cw; a++ {
			cells[b*cw+a] = r.treeAt(i0+int64(a), j0+int64(b))
		}
	}
	nan := float32(math.NaN())
	for row := 0; row < h; row++ {
		y := maxY - (float64(row)+0.5)*px
		cj := int(math.Floor(y/treeCell)) - int(j0)
		for col := 0; col < w; col++ {
			x := minX + (float64(col)+0.5)*px
			ci := int(math.Floor(x/treeCell)) - int(i0)
			best := 0.0
			for b := cj - 1; b <= cj+1; b++ {
				for a := ci - 1; a <= ci+1; a++ {
					t := cells[b*cw+a]
					if !t.ok {
						continue
					}
					d2 := ((x-t.x)*(x-t.x) + (y-t.y)*(y-t.y)) / (t.r * t.r)
					if d2 < 1 {
						best = math.Max(best, t.h*(1-0.35*d2))
					}
				}
			}
			v := nan
			if best > 0 && !masked(x, y) {
				v = float32(math.Round(best*100) / 100)
			}
			dst[row*w+col] = v
		}
	}
}

// Terrain fills dst (as Canopy) with ground heights rounded to the
// centimetre, as DGM1 deliveries hold them.
func (r Relief) Terrain(dst []float32, minX, maxY, px float64, w, h int) {
	for row := 0; row < h; row++ {
		y := maxY - (float64(row)+0.5)*px
		for col := 0; col < w; col++ {
			x := minX + (float64(col)+0.5)*px
			dst[row*w+col] = float32(math.Round(r.Ground(x, y)*100) / 100)
		}
	}
}
