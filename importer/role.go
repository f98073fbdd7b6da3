package importer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/svc-geodata/svc/raster"
)

// A raster's role is judged by its content (docs/import-checks.md): a DGM
// holds heights above sea level, smooth and gapless but for the sea or the
// edge of the survey; a CDSM (or TDSM) holds heights above ground of the
// vegetation, NoData or 0 on open land and in sharp-edged patches of
// crowns. The statistics come from rolePairs pairs of horizontally
// adjacent pixels per tile, on a regular grid over it.
const (
	// roleGrid is the number of sample positions per side of a tile.
	roleGrid = 64
	// roleMinValid is the fewest valid, non-zero samples of a layer to
	// judge it by; fewer (a nearly empty CDSM) pass unjudged.
	roleMinValid = 200
	// maxCanopyMedianM: no German canopy is that tall at its median, every
	// DGM above the lowlands is (Berlin lies at 35 m, so lowland DGMs are
	// judged by their other traits).
	maxCanopyMedianM = 60.0
	// emptyZeroM: values within this of 0 count as "no vegetation", as
	// NoData does.
	emptyZeroM = 0.01
)

// ErrWrongRole reports rasters whose values look like another product
// than the one they are imported as (a DGM as --cdsm, a CDSM as a DGM).
// Common.Force imports them anyway.
var ErrWrongRole = errors.New("the rasters do not look like this product")

// roleStats accumulates pixel samples of one raster layer. Values and
// differences are counted in centimetre and millimetre bins rather than
// kept, so a state's 35,000 tiles (8,192 samples each) take a few MB, not
// a GB; the medians are exact to half a bin, far below the thresholds.
type roleStats struct {
	n, empty, neg int  // samples; NoData or ~0; below -1 m
	pairs, edges  int  // pairs with a value; of them, one empty and one not
	vals          bins // non-empty values, per cm
	diffs         bins // |difference| of pairs with two values, per mm
}

// bins counts values by their bin, round(v / step).
type bins struct {
	step  float64
	count map[int64]int64
	n     int
}

func (b *bins) add(v float64) {
	if b.count == nil {
		b.count = map[int64]int64{}
	}
	b.count[int64(math.Round(v/b.step))]++
	b.n++
}

func (b *bins) merge(o *bins) {
	for k, c := range o.count {
		if b.count == nil {
			b.count = map[int64]int64{}
		}
		b.count[k] += c
	}
	b.n += o.n
}

// median is the bin of the value at index n/2 of the sorted values
// (0 without values).
func (b *bins) median() float64 {
	if b.n == 0 {
		return 0
	}
	keys := make([]int64, 0, len(b.count))
	for k := range b.count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	at := int64(b.n / 2)
	for _, k := range keys {
		if at < b.count[k] {
			return float64(k) * b.step
		}
		at -= b.count[k]
	}
	return float64(keys[len(keys)-1]) * b.step
}

func newRoleStats() *roleStats {
	return &roleStats{vals: bins{step: 0.01}, diffs: bins{step: 0.001}}
}

func (s *roleStats) addPair(a float64, aok bool, b float64, bok bool) {
	aok = aok && math.Abs(a) >= emptyZeroM && !math.IsNaN(a)
	bok = bok && math.Abs(b) >= emptyZeroM && !math.IsNaN(b)
	s.n++
	if !aok {
		s.empty++
	} else {
		s.vals.add(float64(float32(a)))
		if a < -1 {
			s.neg++
		}
	}
	switch {
	case aok && bok:
		s.pairs++
		s.diffs.add(float64(float32(math.Abs(a - b))))
	case aok != bok:
		s.pairs++
		s.edges++
	}
}

// addGrid samples an in-memory grid.
func (s *roleStats) addGrid(g raster.Grid) {
	at := func(r, c int) (float64, bool) {
		v := float64(g.Data[r*g.Width+c])
		return v, !(g.Nodata != nil && v == float64(float32(*g.Nodata)))
	}
	for _, rc := range samplePositions(g.Width, g.Height) {
		a, aok := at(rc[0], rc[1])
		b, bok := at(rc[0], rc[1]+1)
		s.addPair(a, aok, b, bok)
	}
}

// addCOG samples a COG at its full resolution (mirror mode, which does not
// read the whole grid).
func (s *roleStats) addCOG(ctx context.Context, c *raster.COG) error {
	info := c.Info()
	gt := info.GeoTransform
	for _, rc := range samplePositions(info.Width, info.Height) {
		y := gt[3] + (float64(rc[0])+0.5)*gt[5]
		x := gt[0] + (float64(rc[1])+0.5)*gt[1]
		a, aok, err := c.Sample(ctx, x, y)
		if err != nil {
			return err
		}
		b, bok, err := c.Sample(ctx, x+gt[1], y)
		if err != nil {
			return err
		}
		s.addPair(a, aok, b, bok)
	}
	return nil
}

// samplePositions returns row/column pairs on a roleGrid x roleGrid grid
// over a w x h raster, each with a right-hand neighbour.
func samplePositions(w, h int) [][2]int {
	if w < 2 || h < 1 {
		return nil
	}
	var out [][2]int
	for i := range roleGrid {
		for j := range roleGrid {
			out = append(out, [2]int{(2*i + 1) * h / (2 * roleGrid), (2*j + 1) * (w - 1) / (2 * roleGrid)})
		}
	}
	return out
}

// traits summarises the samples: median height, the share of empty
// samples, of negative heights, of edges between empty and vegetation, and
// the median difference between neighbouring values.
type traits struct {
	medianM, emptyShare, negShare, edgeShare, roughM float64
}

func (s *roleStats) traits() (traits, bool) {
	if s.vals.n < roleMinValid {
		return traits{}, false
	}
	t := traits{medianM: s.vals.median(), emptyShare: float64(s.empty) / float64(s.n),
		negShare: float64(s.neg) / float64(s.vals.n), roughM: s.diffs.median()}
	if s.pairs > 0 {
		t.edgeShare = float64(s.edges) / float64(s.pairs)
	}
	return t, true
}

// looksLikeDGM: tall (median above any canopy), below sea level in part
// (heights above ground are not), or smooth with its gaps in one piece
// (the sea of a coastal DGM) where tree crowns are rough and cut by open
// land everywhere.
func (t traits) looksLikeDGM() bool {
	return t.medianM > maxCanopyMedianM || t.negShare >= 0.05 || (t.edgeShare < 0.01 && t.roughM < 0.2)
}

// looksLikeCDSM: low, never below ground, with a fifth or more empty and
// many edges between empty land and vegetation. A coastal DGM has NoData
// over the sea but in one piece, so few edges.
func (t traits) looksLikeCDSM() bool {
	return t.medianM <= maxCanopyMedianM && t.negShare < 0.01 && t.emptyShare >= 0.2 && t.edgeShare >= 0.05
}

func (t traits) String() string {
	return fmt.Sprintf("median height %.1f m, %.0f %% of pixels NoData or 0, %.0f %% of neighbouring pixels an edge between empty and not, neighbours differ by %.2f m (median), %.0f %% below -1 m",
		t.medianM, 100*t.emptyShare, 100*t.edgeShare, t.roughM, 100*t.negShare)
}

// checkRole refuses a layer whose content looks like the other role.
func (s *roleStats) checkRole(layer string) error {
	t, ok := s.traits()
	if !ok {
		return nil
	}
	switch layer {
	case "tiles":
		if t.looksLikeCDSM() {
			return fmt.Errorf("%w: the rasters look like a canopy height model (CDSM: heights above ground, mostly empty), not a DGM: %s; import them with svc import vegetation --cdsm, or pass --force",
				ErrWrongRole, t)
		}
	default:
		if t.looksLikeDGM() {
			return fmt.Errorf("%w: the --%s rasters look like a terrain model (DGM: heights above sea level, smooth and gapless), not heights above ground: %s; import them with svc import dgm, or pass --force",
				ErrWrongRole, layer, t)
		}
	}
	return nil
}
