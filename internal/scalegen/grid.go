package scalegen

import (
	"fmt"
	"math"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
)

// Tile is one km² of the synthetic state: its south-west corner in km of
// the BL's UTM zone, as the state portals name their tiles
// (LoD2_32_<E>_<N>_1_NW).
type Tile struct {
	EKM, NKM int
}

// Name is the tile part of the real file names, e.g. "32_280_5659".
func (t Tile) Name(zone geo.Zone) string {
	return fmt.Sprintf("%d_%d_%d", int(zone), t.EKM, t.NKM)
}

// placeTiles returns n km tiles whose centres lie inside the state's
// boundary, the nearest to the state's centroid first (square rings
// around it), so a small SCALE is a compact block and SCALE=1 fills the
// state. It returns fewer when the state holds fewer.
func placeTiles(st bl.State, zone geo.Zone, n int) ([]Tile, error) {
	if n <= 0 {
		return nil, fmt.Errorf("scalegen: %d tiles: need at least one", n)
	}
	// The centroid and extent of the state from a 2 km lattice of its
	// boundary, in UTM km.
	var sumE, sumN, cnt float64
	minE, minN, maxE, maxN := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for lat := 47.2; lat <= 55.1; lat += 0.018 {
		for lon := 5.8; lon <= 15.1; lon += 0.03 {
			if !st.Contains(lon, lat) {
				continue
			}
			e, nn := geo.ToUTM(zone, lon, lat)
			sumE, sumN, cnt = sumE+e/1000, sumN+nn/1000, cnt+1
			minE, minN, maxE, maxN = math.Min(minE, e/1000), math.Min(minN, nn/1000), math.Max(maxE, e/1000), math.Max(maxN, nn/1000)
		}
	}
	if cnt == 0 {
		return nil, fmt.Errorf("scalegen: state %s has no boundary", st.Code)
	}
	cE, cN := int(math.Floor(sumE/cnt)), int(math.Floor(sumN/cnt))
	rMax := int(math.Max(math.Max(float64(cE)-minE, maxE-float64(cE)), math.Max(float64(cN)-minN, maxN-float64(cN)))) + 3
	inside := func(t Tile) bool {
		lon, lat := geo.FromUTM(zone, float64(t.EKM)*1000+500, float64(t.NKM)*1000+500)
		return st.Contains(lon, lat)
	}
	out := make([]Tile, 0, n)
	for r := 0; r <= rMax && len(out) < n; r++ {
		for _, t := range ring(cE, cN, r) {
			if inside(t) {
				out = append(out, t)
				if len(out) == n {
					break
				}
			}
		}
	}
	return out, nil
}

// ring lists the tiles at Chebyshev distance r from (cE, cN), row by row
// from the south.
func ring(cE, cN, r int) []Tile {
	if r == 0 {
		return []Tile{{cE, cN}}
	}
	var out []Tile
	for dn := -r; dn <= r; dn++ {
		if dn == -r || dn == r {
			for de := -r; de <= r; de++ {
				out = append(out, Tile{cE + de, cN + dn})
			}
			continue
		}
		out = append(out, Tile{cE - r, cN + dn}, Tile{cE + r, cN + dn})
	}
	return out
}
