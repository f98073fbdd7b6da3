package tiles3d

import (
	"math"
	"sort"

	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// TreeOptions tune DetectTrees; the zero value takes the defaults.
type TreeOptions struct {
	// MinHeightM is the lowest canopy height (m above ground) a tree top may
	// have (default 3; the CDSM itself starts at terrain.MinCanopyM).
	MinHeightM float64
	// MinDistM is the smallest distance between two tree tops (default 3 m):
	// of two maxima closer than this, the lower one is dropped.
	MinDistM float64
	// MaxCrownM caps the crown radius (default 15 m).
	MaxCrownM float64
}

func (o TreeOptions) withDefaults() TreeOptions {
	if !(o.MinHeightM > 0) {
		o.MinHeightM = 3
	}
	if !(o.MinDistM > 0) {
		o.MinDistM = 3
	}
	if !(o.MaxCrownM > 0) {
		o.MaxCrownM = 15
	}
	return o
}

// TreeTop is one detected tree: X, Y the top's pixel centre (metres in the
// grid's CRS), HeightM the canopy height there (m above ground) and
// CrownRadiusM the mean distance from the top to the crown's edge in eight
// directions.
type TreeTop struct {
	X, Y, HeightM, CrownRadiusM float64
}

// DetectTrees finds single trees in a canopy height grid (CDSM, metres
// above ground; NoData, NaN and values below terrain.MinCanopyM are
// vegetation-free): every pixel at least MinHeightM high that is the
// highest within MinDistM (ties go to the first in row order) is a
// candidate; candidates are then taken from the highest down, dropping any
// closer than MinDistM to one already taken. The crown radius walks from
// the top in eight directions until the canopy ends or rises again (the
// next crown), at most MaxCrownM. The result is sorted by position (rows
// north to south, then columns); an empty or tree-less grid gives none.
func DetectTrees(g raster.Grid, o TreeOptions) []TreeTop {
	o = o.withDefaults()
	px := math.Abs(g.GeoTransform[1])
	if g.Width <= 0 || g.Height <= 0 || len(g.Data) != g.Width*g.Height || !(px > 0) {
		return nil
	}
	h := canopyOf(g)
	k := max(1, int(math.Ceil(o.MinDistM/px)))
	var cand []int
	for r := range g.Height {
		for c := range g.Width {
			if v := h[r*g.Width+c]; v >= float32(o.MinHeightM) && isPeak(h, g.Width, g.Height, c, r, k) {
				cand = append(cand, r*g.Width+c)
			}
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return h[cand[i]] > h[cand[j]] })
	var kept []int
	md2 := (o.MinDistM / px) * (o.MinDistM / px)
	cells := map[[2]int][]int{} // spatial hash of kept tops, cell edge k pixels
	for _, i := range cand {
		c, r := i%g.Width, i/g.Width
		if tooClose(cells, g.Width, c, r, k, md2) {
			continue
		}
		key := [2]int{c / k, r / k}
		cells[key] = append(cells[key], i)
		kept = append(kept, i)
	}
	sort.Ints(kept)
	gt := g.GeoTransform
	out := make([]TreeTop, 0, len(kept))
	for _, i := range kept {
		c, r := i%g.Width, i/g.Width
		out = append(out, TreeTop{X: gt[0] + (float64(c)+0.5)*gt[1], Y: gt[3] + (float64(r)+0.5)*gt[5],
			HeightM: float64(h[i]), CrownRadiusM: crownRadius(h, g.Width, g.Height, c, r, px, o.MaxCrownM)})
	}
	return out
}

// canopyOf returns the grid's values with vegetation-free pixels (NoData,
// NaN, below terrain.MinCanopyM) as 0.
func canopyOf(g raster.Grid) []float32 {
	h := make([]float32, len(g.Data))
	for i, v := range g.Data {
		if (g.Nodata != nil && v == float32(*g.Nodata)) || v != v || v < terrain.MinCanopyM {
			continue
		}
		h[i] = v
	}
	return h
}

// isPeak reports whether pixel (c, r) is the highest within k pixels: no
// neighbour is higher, and none earlier in row order is equally high.
func isPeak(h []float32, w, ht, c, r, k int) bool {
	v := h[r*w+c]
	for y := max(0, r-k); y <= min(ht-1, r+k); y++ {
		for x := max(0, c-k); x <= min(w-1, c+k); x++ {
			u := h[y*w+x]
			if u > v || (u == v && y*w+x < r*w+c) {
				return false
			}
		}
	}
	return true
}

func tooClose(cells map[[2]int][]int, w, c, r, k int, md2 float64) bool {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			for _, j := range cells[[2]int{c/k + dx, r/k + dy}] {
				ex, ey := float64(j%w-c), float64(j/w-r)
				if ex*ex+ey*ey < md2 {
					return true
				}
			}
		}
	}
	return false
}

// crownRadius is the mean extent (m) of the crown around (c, r) in eight
// directions: each walk ends before a vegetation-free pixel or a pixel
// more than 0.5 m higher than the one before it (the slope of a
// neighbouring crown); the edge lies half a pixel beyond the last pixel.
func crownRadius(h []float32, w, ht, c, r int, px, maxM float64) float64 {
	steps := int(maxM / px)
	sum := 0.0
	for _, d := range [8][2]int{{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}} {
		prev, n := h[r*w+c], 0
		for s := 1; s <= steps; s++ {
			x, y := c+s*d[0], r+s*d[1]
			if x < 0 || y < 0 || x >= w || y >= ht {
				break
			}
			v := h[y*w+x]
			if v == 0 || v > prev+0.5 {
				break
			}
			prev, n = v, s
		}
		sum += (float64(n) + 0.5) * math.Hypot(float64(d[0]), float64(d[1])) * px
	}
	return math.Min(sum/8, maxM)
}
