package osmdata

import (
	"fmt"
	"math"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
)

// ThemeSea holds the sea polygons built at import from the coastline.
const ThemeSea = "sea"

// extractRegion is the region an extract covers, in the zone of o: the
// polygon it was cut by (o.Boundary), else its header bounds, else the box
// of the nodes its kept ways use; cut to clip (nil: no cut). It also returns which of the
// three it used.
func extractRegion(o Options, header *geo.BBox, nodes geo.BBox, clip *Box) (*region, string) {
	boxRing := func(b geo.BBox) [][2]float64 {
		return [][2]float64{{b.MinLon, b.MaxLat}, {b.MaxLon, b.MaxLat}, {b.MaxLon, b.MinLat}, {b.MinLon, b.MinLat}, {b.MinLon, b.MaxLat}}
	}
	switch {
	case o.Boundary != nil:
		var rings [][][2]float64
		var holes []bool
		for _, r := range o.Boundary.Rings {
			rings, holes = append(rings, r.Points), append(holes, r.Hole)
		}
		return regionOf(rings, holes, o.Zone, clip), "clip polygon"
	case header != nil:
		return regionOf([][][2]float64{boxRing(*header)}, []bool{false}, o.Zone, clip), "header bounds"
	case !math.IsInf(nodes.MinLon, 0) && nodes.MaxLon > nodes.MinLon && nodes.MaxLat > nodes.MinLat:
		return regionOf([][][2]float64{boxRing(nodes)}, []bool{false}, o.Zone, clip), "node extent"
	}
	return nil, "none"
}

// emitSea builds the sea of the coastline lines within the extract's
// region, hands its polygons to emit as features of ThemeSea and records
// what became of the coastline in st.Sea.
func emitSea(coast []CoastLine, o Options, header *geo.BBox, nodes geo.BBox, clip *Box, probes *landProbes, st *Stats, emit func(Feature) error) error {
	r, from := extractRegion(o, header, nodes, clip)
	s := seaIn(coast, r)
	ss := &pack.OSMSea{Boundary: from, Polygons: len(s.Polygons), Chains: s.Chains, Closed: s.Closed, Snapped: s.Snapped, MaxSnapM: s.MaxSnapM}
	if len(s.Polygons) > 0 {
		var rings [][][2]float64
		for _, p := range s.Polygons {
			rings = append(rings, p...)
		}
		sea := newRegion(rings)
		ss.RoadsProbed = len(probes.pts)
		for _, p := range probes.pts {
			if sea.containsFast(p) {
				ss.RoadsInSea++
			}
		}
		if ss.RoadsInSea >= 20 && ss.RoadsInSea*10 > ss.RoadsProbed {
			ss.Warning = fmt.Sprintf("%d of %d sampled roads and paths lie in the sea: land is drawn as sea, a coastline way is "+
				"probably missing from the extract (osmium before 1.19 leaves out of a simple extract the ways whose first node lies outside)",
				ss.RoadsInSea, ss.RoadsProbed)
		}
	}
	if r == nil {
		ids := map[int64]bool{}
		var u pack.OSMUnclosed
		for _, l := range coast {
			if !ids[l.WayID] {
				ids[l.WayID] = true
				u.Ways = append(u.Ways, l.WayID)
			}
		}
		u.Reason = "the extract's boundary is unknown (no header bounds, no node inside the clip box)"
		ss.Unclosed = append(ss.Unclosed, u)
	}
	for _, u := range s.Unclosed {
		lon, lat := geo.FromUTM(o.Zone, u.AtUTM[0], u.AtUTM[1])
		ss.Unclosed = append(ss.Unclosed, pack.OSMUnclosed{Ways: u.Ways, Lon: round7(lon), Lat: round7(lat), Reason: u.Reason})
	}
	for _, p := range s.Polygons {
		a := math.Abs(signedArea(p[0]))
		for _, h := range p[1:] {
			a -= math.Abs(signedArea(h))
		}
		ss.AreaM2 += a
		st.Features[ThemeSea+"/sea"]++
		if err := emit(Feature{Type: "sea", Theme: ThemeSea, Class: "sea", Polygons: [][][][2]float64{p}}); err != nil {
			return err
		}
	}
	ss.AreaM2 = math.Round(ss.AreaM2)
	st.Sea = ss
	return nil
}

// landProbes keeps an even sample of at most maxProbes points: when full,
// every second point goes and the stride doubles (deterministic).
type landProbes struct {
	pts    [][2]float64
	stride int
	seen   int
}

const maxProbes = 4096

func (l *landProbes) add(p [2]float64) {
	if l.stride == 0 {
		l.stride = 1
	}
	l.seen++
	if l.seen%l.stride != 0 {
		return
	}
	l.pts = append(l.pts, p)
	if len(l.pts) == maxProbes {
		for i := range maxProbes / 2 {
			l.pts[i] = l.pts[2*i+1]
		}
		l.pts = l.pts[:maxProbes/2]
		l.stride *= 2
	}
}

func round7(v float64) float64 { return math.Round(v*1e7) / 1e7 }
