package shading

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Canopy is the tree crowns around a facet as a grid of columns: per cell
// the absolute height of the crown top (DGM + CDSM) and of the crown base,
// NaN where the CDSM has no vegetation. A Canopy is immutable once built
// and safe for concurrent use.
type Canopy struct {
	minX, maxY float64 // UTM corner (north-west) of the grid
	cellM      float64
	w, h       int
	top, base  []float32
	maxTop     float64
	// blockTop is the highest crown top of each canopyBlock x canopyBlock
	// cells (-Inf without crowns), so a ray above it skips the block.
	blockTop []float64
	bw, bh   int
}

// canopyBlock is the side of a skip block in cells.
const canopyBlock = 8

// CanopyGrid describes a canopy grid for NewCanopy: w x h cells of cellM
// metres from the north-west corner minX, maxY (UTM), row-major from the
// north; Top and Base are absolute heights (DHHN2016 m), NaN for no crown.
type CanopyGrid struct {
	MinX, MaxY, CellM float64
	W, H              int
	Top, Base         []float32
}

// maxCanopyCells bounds a canopy grid (2,000 x 2,000 1 m cells).
const maxCanopyCells = 4_000_000

// NewCanopy checks g and returns the Canopy. Errors: ErrInvalid for sizes
// that do not match, a non-positive cell, or more than 4,000,000 cells.
func NewCanopy(g CanopyGrid) (*Canopy, error) {
	if g.W <= 0 || g.H <= 0 || g.W*g.H > maxCanopyCells || len(g.Top) != g.W*g.H || len(g.Base) != g.W*g.H || !(g.CellM > 0) {
		return nil, fmt.Errorf("shading: canopy grid %dx%d of %g m with %d/%d values: %w", g.W, g.H, g.CellM, len(g.Top), len(g.Base), ErrInvalid)
	}
	c := &Canopy{minX: g.MinX, maxY: g.MaxY, cellM: g.CellM, w: g.W, h: g.H, top: g.Top, base: g.Base, maxTop: math.Inf(-1)}
	c.bw, c.bh = (g.W+canopyBlock-1)/canopyBlock, (g.H+canopyBlock-1)/canopyBlock
	c.blockTop = make([]float64, c.bw*c.bh)
	for i := range c.blockTop {
		c.blockTop[i] = math.Inf(-1)
	}
	for k, v := range g.Top {
		if !math.IsNaN(float64(v)) {
			c.maxTop = math.Max(c.maxTop, float64(v))
			b := (k/g.W/canopyBlock)*c.bw + (k%g.W)/canopyBlock
			c.blockTop[b] = math.Max(c.blockTop[b], float64(v))
		}
	}
	return c, nil
}

// PathM returns the length in metres of the ray from UTM point p along the
// unit direction d (east, north, up; grid axes, d up > 0) inside crowns:
// the ray is sampled every half cell horizontally over its stretch inside
// the grid until it rises above the highest crown; a sample inside a column between its
// base and top counts its share of the 3D path.
func (c *Canopy) PathM(px, py, pz, dx, dy, dz float64) float64 {
	if c == nil || dz <= 0 || pz > c.maxTop {
		return 0
	}
	h := math.Hypot(dx, dy)
	if h < 1e-9 {
		return 0 // straight up: the crown over the facet is not modelled (a roof is not under a tree)
	}
	hx, hy := dx/h, dy/h
	slope := dz / h
	step := c.cellM / 2
	seg := step * math.Sqrt(1+slope*slope)
	// The stretch of the plan line inside the grid's box (slab test).
	tIn, tOut := 0.0, math.Inf(1)
	for _, a := range [2][4]float64{{px, hx, c.minX, c.minX + float64(c.w)*c.cellM}, {py, hy, c.maxY - float64(c.h)*c.cellM, c.maxY}} {
		if math.Abs(a[1]) < 1e-12 {
			if a[0] < a[2] || a[0] >= a[3] {
				return 0
			}
			continue
		}
		ta, tb := (a[2]-a[0])/a[1], (a[3]-a[0])/a[1]
		tIn, tOut = math.Max(tIn, math.Min(ta, tb)), math.Min(tOut, math.Max(ta, tb))
	}
	path := 0.0
	for t := tIn + step/2; t < tOut; t += step {
		z := pz + t*slope
		if z > c.maxTop {
			break
		}
		fc, fr := (px+t*hx-c.minX)/c.cellM, (c.maxY-(py+t*hy))/c.cellM
		col, row := int(math.Floor(fc)), int(math.Floor(fr))
		if col < 0 || row < 0 || col >= c.w || row >= c.h {
			continue
		}
		if z > c.blockTop[(row/canopyBlock)*c.bw+col/canopyBlock] {
			// Above every crown of this block: jump to where the ray leaves it
			// (the ray only rises), on the half-cell lattice of t.
			bx0, by0 := float64(col/canopyBlock*canopyBlock), float64(row/canopyBlock*canopyBlock)
			exit := math.Inf(1)
			if hx > 1e-12 {
				exit = math.Min(exit, (bx0+canopyBlock-fc)*c.cellM/hx)
			} else if hx < -1e-12 {
				exit = math.Min(exit, (fc-bx0)*c.cellM/-hx)
			}
			if hy < -1e-12 { // rows grow southward
				exit = math.Min(exit, (by0+canopyBlock-fr)*c.cellM/-hy)
			} else if hy > 1e-12 {
				exit = math.Min(exit, (fr-by0)*c.cellM/hy)
			}
			if skip := math.Floor(exit/step) * step; skip > 0 {
				t += skip
			}
			continue
		}
		k := row*c.w + col
		if top := float64(c.top[k]); z <= top && z >= float64(c.base[k]) {
			path += seg
		}
	}
	return path
}

// Season is the crown's light extinction through the year: the beam after
// a path of L metres through crowns is exp(−k·L), with k the leaf-on
// coefficient in the leaf-on months and the leaf-off one in the others.
type Season struct {
	LeafOnPerM, LeafOffPerM float64
	// LeafOn[m] is true when month m+1 (UTC) is in leaf.
	LeafOn [12]bool
}

// DefaultSeason is the Beer-Lambert crown model of terrain.Transmissivity
// (k = G·LAD, G = 0.5 for a spherical leaf-angle distribution) with the mid
// leaf area density of its ranges: leaf-on LAD 0.35 m²/m³ (k = 0.175/m,
// 2.5-5.5 m of crown transmit 65-40 %), leaf-off the woody plant area 0.10
// m²/m³ (k = 0.05/m), the CDSM taken as deciduous broadleaf (the majority of
// German urban and mixed trees); leaf-on May to October (DWD phenology:
// leaf unfolding of beech and oak late April to mid May, leaf fall in
// October and November).
func DefaultSeason() Season {
	s := Season{LeafOnPerM: 0.5 * 0.35, LeafOffPerM: 0.5 * 0.10}
	for m := time.May; m <= time.October; m++ {
		s.LeafOn[m-1] = true
	}
	return s
}

// Transmitted is the share of the beam left after pathM metres of crown in
// month m.
func (s Season) Transmitted(m time.Month, pathM float64) float64 {
	if pathM <= 0 {
		return 1
	}
	k := s.LeafOffPerM
	if s.LeafOn[m-1] {
		k = s.LeafOnPerM
	}
	return math.Exp(-k * pathM)
}

// canopyFromHeights samples the CDSM (canopy height above ground), the DGM
// and optionally the TDSM (crown base above ground) on a grid of cellM
// around the box; canopy heights below minCanopyM count as none, the crown
// base defaults to 25 % of the canopy height (the TDSM's rule).
func canopyFromHeights(ctx context.Context, cdsm, dgm, tdsm Heights, minX, minY, maxX, maxY, cellM, minCanopyM float64) (*Canopy, error) {
	w, h := int(math.Ceil((maxX-minX)/cellM)), int(math.Ceil((maxY-minY)/cellM))
	if w*h > maxCanopyCells || w <= 0 || h <= 0 {
		return nil, fmt.Errorf("shading: canopy box %.0f x %.0f m at %g m: %w", maxX-minX, maxY-minY, cellM, ErrInvalid)
	}
	g := CanopyGrid{MinX: minX, MaxY: maxY, CellM: cellM, W: w, H: h, Top: make([]float32, w*h), Base: make([]float32, w*h)}
	nan := float32(math.NaN())
	for r := range h {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		y := maxY - (float64(r)+0.5)*cellM
		for c := range w {
			k := r*w + c
			g.Top[k], g.Base[k] = nan, nan
			x := minX + (float64(c)+0.5)*cellM
			ch, ok, err := cdsm.HeightAt(ctx, x, y, cellM)
			if err != nil {
				return nil, err
			}
			if !ok || ch < minCanopyM {
				continue
			}
			ground, ok, err := dgm.HeightAt(ctx, x, y, cellM)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			base := 0.25 * ch
			if tdsm != nil {
				if b, ok, err := tdsm.HeightAt(ctx, x, y, cellM); err != nil {
					return nil, err
				} else if ok && b >= 0 && b <= ch {
					base = b
				}
			}
			g.Top[k], g.Base[k] = float32(ground+ch), float32(ground+base)
		}
	}
	return NewCanopy(g)
}
