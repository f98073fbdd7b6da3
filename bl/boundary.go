package bl

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"sort"
	"sync"
)

//go:generate go run ./internal/boundarygen -src $VG5000_LAENDER -out boundaries.geojson -tolerance 500

// boundariesJSON holds the generalised state boundaries: BKG's VG5000 state
// layer (2021-01-01, dl-de/by-2-0, © GeoBasis-DE / BKG), land and coastal
// waters merged per state, Douglas-Peucker simplified at 500 m, WGS84
// lon/lat rounded to 4 decimals. See README.md for how it is made.
//
//go:embed boundaries.geojson
var boundariesJSON []byte

// BoundaryAttribution credits the boundaries package bl embeds, as their
// licence (dl-de/by-2-0) asks of modified data.
const BoundaryAttribution = "State boundaries: © GeoBasis-DE / BKG 2021 (Daten verändert), dl-de/by-2-0"

// BorderMarginM is how far outside its generalised boundary a point still
// counts as lying in a state (see Tally). VG5000 is generalised for a scale
// of 1:5,000,000 and simplified further by 500 m; 3 km covers both, so a
// tile on a state border counts as lying in either state.
const BorderMarginM = 3000

type ring [][2]float64 // lon, lat; closed

type polygon struct {
	rings []ring // exterior first, then holes
}

type boundary struct {
	polys []polygon
	bbox  [4]float64 // lon/lat
}

var loadBoundaries = sync.OnceValue(func() map[string]*boundary {
	var fc struct {
		Features []struct {
			Properties struct {
				Code string `json:"code"`
			} `json:"properties"`
			Geometry struct {
				Coordinates [][][][2]float64 `json:"coordinates"`
			} `json:"geometry"`
		} `json:"features"`
	}
	if err := json.Unmarshal(boundariesJSON, &fc); err != nil {
		panic(fmt.Sprintf("bl: embedded boundaries: %v", err)) // a build defect, caught by the tests
	}
	out := map[string]*boundary{}
	for _, f := range fc.Features {
		b := &boundary{bbox: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
		for _, p := range f.Geometry.Coordinates {
			var pg polygon
			for _, r := range p {
				pg.rings = append(pg.rings, ring(r))
				for _, v := range r {
					b.bbox[0], b.bbox[1] = math.Min(b.bbox[0], v[0]), math.Min(b.bbox[1], v[1])
					b.bbox[2], b.bbox[3] = math.Max(b.bbox[2], v[0]), math.Max(b.bbox[3], v[1])
				}
			}
			b.polys = append(b.polys, pg)
		}
		out[f.Properties.Code] = b
	}
	return out
})

// contains reports whether lon/lat lies inside the boundary (even-odd rule
// per polygon, so holes such as Berlin in Brandenburg are outside).
func (b *boundary) contains(lon, lat float64) bool {
	if lon < b.bbox[0] || lon > b.bbox[2] || lat < b.bbox[1] || lat > b.bbox[3] {
		return false
	}
	for _, p := range b.polys {
		in := false
		for _, r := range p.rings {
			for i, j := 0, len(r)-1; i < len(r); j, i = i, i+1 {
				a, c := r[i], r[j]
				if (a[1] > lat) != (c[1] > lat) && lon < (c[0]-a[0])*(lat-a[1])/(c[1]-a[1])+a[0] {
					in = !in
				}
			}
		}
		if in {
			return true
		}
	}
	return false
}

const mPerDeg = 111320.0 // metres per degree of latitude (and of longitude at the equator)

// near reports whether lon/lat lies inside the boundary or within marginM
// metres of it (distances in a local equirectangular plane, exact to well
// under 1 % at these distances).
func (b *boundary) near(lon, lat, marginM float64) bool {
	kx := mPerDeg * math.Cos(lat*math.Pi/180)
	dLon, dLat := marginM/kx, marginM/mPerDeg
	if lon < b.bbox[0]-dLon || lon > b.bbox[2]+dLon || lat < b.bbox[1]-dLat || lat > b.bbox[3]+dLat {
		return false
	}
	if b.contains(lon, lat) {
		return true
	}
	m2 := marginM * marginM
	for _, p := range b.polys {
		for _, r := range p.rings {
			for i := 1; i < len(r); i++ {
				ax, ay := (r[i-1][0]-lon)*kx, (r[i-1][1]-lat)*mPerDeg
				bx, by := (r[i][0]-lon)*kx, (r[i][1]-lat)*mPerDeg
				if segDist2(ax, ay, bx, by) <= m2 {
					return true
				}
			}
		}
	}
	return false
}

// segDist2 is the squared distance of the origin from segment a-b.
func segDist2(ax, ay, bx, by float64) float64 {
	dx, dy := bx-ax, by-ay
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = math.Max(0, math.Min(1, -(ax*dx+ay*dy)/l))
	}
	x, y := ax+t*dx, ay+t*dy
	return x*x + y*y
}

// Contains reports whether the WGS84 point lon/lat lies inside the state's
// generalised boundary (no margin).
func (s State) Contains(lon, lat float64) bool {
	b := loadBoundaries()[s.Code]
	return b != nil && b.contains(lon, lat)
}

// At returns the state whose generalised boundary contains the WGS84 point
// lon/lat; ok is false outside Germany (and in the sea beyond the coastal
// waters VG5000 assigns to the coastal states).
func At(lon, lat float64) (st State, ok bool) {
	bs := loadBoundaries()
	for _, s := range states {
		if bs[s.Code].contains(lon, lat) {
			return s, true
		}
	}
	return State{}, false
}

// Tally counts where the points of a footprint (building positions, or a
// grid over a raster's extent) lie relative to one state. The zero value is
// not usable; make one with NewTally.
type Tally struct {
	st      State
	marginM float64
	n, near int
	in      map[string]int // state code ("" outside every state) -> points
}

// NewTally returns a Tally judging points against st with a border margin
// of marginM metres (BorderMarginM for imports).
func NewTally(st State, marginM float64) *Tally {
	return &Tally{st: st, marginM: marginM, in: map[string]int{}}
}

// Add counts the WGS84 point lon/lat and reports whether it lies in the
// state or within the margin of its boundary.
func (t *Tally) Add(lon, lat float64) bool {
	t.n++
	near := false
	if b := loadBoundaries()[t.st.Code]; b != nil && b.near(lon, lat, t.marginM) {
		t.near++
		near = true
	}
	s, _ := At(lon, lat)
	t.in[s.Code]++
	return near
}

// TallyCounts are the counts of a Tally, for saving it (an import
// journal) and restoring it with RestoreTally.
type TallyCounts struct {
	N    int            `json:"n"`
	Near int            `json:"near"`
	In   map[string]int `json:"in"`
}

// Counts returns t's counts.
func (t *Tally) Counts() TallyCounts { return TallyCounts{N: t.n, Near: t.near, In: maps.Clone(t.in)} }

// RestoreTally returns a Tally for st and marginM holding the counts c.
func RestoreTally(st State, marginM float64, c TallyCounts) *Tally {
	t := NewTally(st, marginM)
	t.n, t.near = c.N, c.Near
	maps.Copy(t.in, c.In)
	return t
}

// Len returns how many points were added.
func (t *Tally) Len() int { return t.n }

// Fraction returns the share of the points (0..1) lying inside the state or
// within the margin of its boundary; 1 for no points.
func (t *Tally) Fraction() float64 {
	if t.n == 0 {
		return 1
	}
	return float64(t.near) / float64(t.n)
}

// Share is the part of a footprint inside one state.
type Share struct {
	State    State // zero State (Code "") for points outside every state
	Fraction float64
}

// Shares returns the states the points lie in (without margin), largest
// share first; points outside Germany give a Share with an empty code.
func (t *Tally) Shares() []Share {
	out := make([]Share, 0, len(t.in))
	for code, n := range t.in {
		s, _ := Lookup(code)
		out = append(out, Share{State: s, Fraction: float64(n) / float64(t.n)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Fraction != out[j].Fraction {
			return out[i].Fraction > out[j].Fraction
		}
		return out[i].State.Code < out[j].State.Code
	})
	return out
}

// Where describes Shares of a tenth or more for a message: "Berlin (be)",
// "Berlin (be) 80 %, Brandenburg (bb) 20 %", or "no German state" outside
// Germany.
func (t *Tally) Where() string {
	sh := t.Shares()
	for i := 1; i < len(sh); i++ {
		if sh[i].Fraction < 0.1 {
			sh = sh[:i]
			break
		}
	}
	var s string
	for i, x := range sh {
		if i > 0 {
			s += ", "
		}
		name := "no German state"
		if x.State.Code != "" {
			name = fmt.Sprintf("%s (%s)", x.State.Name, x.State.Code)
		}
		s += name
		if len(sh) > 1 {
			s += fmt.Sprintf(" %.0f %%", 100*x.Fraction)
		}
	}
	return s
}
