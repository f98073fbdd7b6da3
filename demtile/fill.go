package demtile

import (
	"math"
	"slices"

	"github.com/svc-geodata/svc/hillshade"
)

// FillNearest gives every NaN of g (border included) the height of its
// nearest valid pixel of g and returns a mask of the filled ones (true:
// no data; nil when nothing was missing), or ok false when g has no valid
// pixel (g is left as is).
//
// MapLibre reads a raster-dem pixel's colour and never its alpha, so a
// pixel without a height needs a plausible one or the 3D terrain drops
// into a pit of the encoding's lowest height (docs/terrain-tiles.md).
// The nearest valid height extends the terrain flat across the gap, like
// GDAL's edge extension, with no new relief. Nearest is by Euclidean
// distance in pixels, propagated in two raster passes (Danielsson's
// vector propagation, 8 neighbours): exact but for rare ties of far
// pixels, and deterministic (ties keep the pixel met first in row-major
// order), so the same grid always fills the same way.
func FillNearest(g hillshade.Grid) (noData []bool, ok bool) {
	n := g.Size + 2
	if !slices.ContainsFunc(g.H, math.IsNaN) {
		return nil, len(g.H) > 0 // a full tile (most of them): nothing to fill, no mask
	}
	src := make([]int32, n*n) // index of the nearest valid pixel, -1 none yet
	noData = make([]bool, n*n)
	for i, h := range g.H {
		if math.IsNaN(h) {
			src[i], noData[i] = -1, true
		} else {
			src[i], ok = int32(i), true
		}
	}
	if !ok {
		return nil, false
	}
	// d2 is the squared distance from pixel i to the source s.
	d2 := func(i int, s int32) int {
		dr, dc := i/n-int(s)/n, i%n-int(s)%n
		return dr*dr + dc*dc
	}
	try := func(i, j int) {
		s := src[j]
		if s < 0 {
			return
		}
		if src[i] < 0 || d2(i, s) < d2(i, src[i]) {
			src[i] = s
		}
	}
	for r := range n {
		for c := range n {
			i := r*n + c
			if !noData[i] {
				continue
			}
			if r > 0 {
				if c > 0 {
					try(i, i-n-1)
				}
				try(i, i-n)
				if c < n-1 {
					try(i, i-n+1)
				}
			}
			if c > 0 {
				try(i, i-1)
			}
		}
		for c := n - 1; c >= 0; c-- { // the row back, so gaps fill from the east too
			if i := r*n + c; noData[i] && c < n-1 {
				try(i, i+1)
			}
		}
	}
	for r := n - 1; r >= 0; r-- {
		for c := n - 1; c >= 0; c-- {
			i := r*n + c
			if !noData[i] {
				continue
			}
			if r < n-1 {
				if c < n-1 {
					try(i, i+n+1)
				}
				try(i, i+n)
				if c > 0 {
					try(i, i+n-1)
				}
			}
			if c < n-1 {
				try(i, i+1)
			}
		}
		for c := range n {
			if i := r*n + c; noData[i] && c > 0 {
				try(i, i-1)
			}
		}
	}
	for i, s := range src {
		if noData[i] {
			g.H[i] = g.H[s]
		}
	}
	return noData, true
}
