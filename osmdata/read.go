package osmdata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"

	"github.com/svc-geodata/svc/geo"
)

// Feature is one kept OSM object, its geometry in the UTM zone of the read
// (metres), clipped to the extent.
type Feature struct {
	ID    int64  `json:"id"`
	Type  string `json:"type"` // "way" or "relation"
	Theme string `json:"theme"`
	Class string `json:"class"`
	Name  string `json:"name,omitempty"`
	// Areas: polygons, each an outer ring then its holes (closed rings,
	// first point repeated). Hedges tagged on lines are buffered to 1 m.
	Polygons [][][][2]float64 `json:"polygons,omitempty"`
	// Lines: transport centre lines and coastline pieces.
	Lines  [][][2]float64 `json:"lines,omitempty"`
	WidthM float64        `json:"width_m,omitempty"`
	Layer  int            `json:"layer,omitempty"`
	Bridge bool           `json:"bridge,omitempty"`
	Tunnel bool           `json:"tunnel,omitempty"`
}

// Stats describe a read.
type Stats struct {
	Bytes            int64          `json:"bytes"`
	Nodes            int64          `json:"nodes"`
	Ways             int64          `json:"ways"`
	Relations        int64          `json:"relations"`
	Features         map[string]int `json:"features"` // per "<theme>/<class>"
	SkippedRelations int            `json:"skipped_relations"`
	// SkippedWays are areas or lines with nodes missing from the extract
	// (cut at its edge) that could not be used.
	SkippedWays   int `json:"skipped_ways"`
	OutsideExtent int `json:"outside_extent"`
	// Clip is the UTM box the features were clipped to (nil: none).
	Clip *Box `json:"clip,omitempty"`
	// Sea is what became of the coastline (nil: the extract has none).
	Sea *SeaStats `json:"sea,omitempty"`
}

// SeaStats describe the sea built from an extract's coastline.
type SeaStats struct {
	// Boundary names what the open coastline chains were closed along:
	// "clip polygon", "header bounds" or "node extent" (the file has
	// neither: the box of its nodes), cut to the clip box.
	Boundary string  `json:"boundary"`
	Polygons int     `json:"polygons"`
	AreaM2   float64 `json:"area_m2"`
	Chains   int     `json:"chains"`
	Closed   int     `json:"closed"`
	Snapped  int     `json:"snapped"`
	MaxSnapM float64 `json:"max_snap_m"`
	// Unclosed chains are left out of the sea, each with its ways, where
	// it stops (WGS84) and why.
	Unclosed []UnclosedStat `json:"unclosed,omitempty"`
}

// UnclosedStat is a coastline chain left out of the sea.
type UnclosedStat struct {
	Ways   []int64 `json:"ways"`
	Lon    float64 `json:"lon"`
	Lat    float64 `json:"lat"`
	Reason string  `json:"reason"`
}

// Options configure Read.
type Options struct {
	Zone geo.Zone
	// Clip is the WGS84 extent features are clipped to; the zero box clips
	// to the file's header bounds when it has them, else nothing.
	Clip geo.BBox
	// Keep, when set, is asked about up to keepProbes points (WGS84) of
	// each feature; a feature none of whose points it keeps is dropped and
	// counted in Stats.OutsideExtent. The importer passes the state's
	// boundary.
	Keep func(lon, lat float64) bool
	// XML reads OSM XML instead of PBF.
	XML bool
	// Boundary is the polygon the extract was cut by (`osmium extract
	// --polygon`, a Geofabrik .poly); nil: the file's header bounds, else
	// the extent of its nodes. Open coastline chains are closed along it.
	Boundary *Poly
}

// Errors of Read.
var (
	// The texts are what a user reads after the file name.
	ErrFormat  = errors.New("not a readable OSM file")
	ErrEmpty   = errors.New("the extract holds no way")
	ErrOutside = errors.New("the extract does not meet the extent")
)

// scanner is what the PBF and XML scanners have in common.
type scanner interface {
	Scan() bool
	Object() osm.Object
	Err() error
	Close() error
}

// Read is Stream collecting the features, sorted by theme.
func Read(ctx context.Context, open func() (io.ReadCloser, error), o Options) ([]Feature, Stats, error) {
	var out []Feature
	st, err := Stream(ctx, open, o, func(f Feature) error {
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Theme < out[j].Theme })
	return out, st, nil
}

// wayMeta is what a classified way keeps of its tags.
type wayMeta struct {
	theme, class, name string
	width              float64
	layer              int
	bridge, tunnel     bool
}

func metaOf(t osm.Tags) *wayMeta {
	m := &wayMeta{name: t.Find("name")}
	switch {
	case t.Find("natural") == "coastline":
		m.theme, m.class = ThemeCoastline, "coastline"
	case transportClass(t) != "":
		m.theme, m.class = ThemeTransport, transportClass(t)
		m.width, m.layer = widthOf(t, m.class), layerOf(t)
		m.bridge, m.tunnel = yes(t.Find("bridge")), yes(t.Find("tunnel")) || t.Find("covered") == "yes"
	case surfaceClass(t) != "":
		m.theme, m.class = ThemeSurface, surfaceClass(t)
	default:
		return nil
	}
	return m
}

// Stream reads the file open returns three times (relations, then ways,
// then nodes), keeping in memory only the member ways, the node ids of the
// ways it uses and their coordinates, and hands each feature to emit as
// soon as it is complete, so memory follows the kept ways and nodes, not
// the file or the features.
func Stream(ctx context.Context, open func() (io.ReadCloser, error), o Options, emit func(Feature) error) (Stats, error) {
	st := Stats{Features: map[string]int{}}
	clip := o.Clip
	pass := func(skipNodes, skipWays, skipRels bool, each func(osm.Object) error) (*osmpbf.Header, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		cr := &countingReader{r: rc}
		var sc scanner
		var hdr *osmpbf.Header
		if o.XML {
			sc = osmxml.New(ctx, cr)
		} else {
			ps := osmpbf.New(ctx, cr, max(1, runtime.GOMAXPROCS(0)))
			ps.SkipNodes, ps.SkipWays, ps.SkipRelations = skipNodes, skipWays, skipRels
			if h, err := ps.Header(); err == nil {
				hdr = h
			} else {
				ps.Close()
				return nil, fmt.Errorf("%w: %v", ErrFormat, err)
			}
			sc = ps
		}
		defer sc.Close()
		for sc.Scan() {
			obj := sc.Object()
			switch obj.(type) {
			case *osm.Node:
				if skipNodes {
					continue
				}
			case *osm.Way:
				if skipWays {
					continue
				}
			case *osm.Relation:
				if skipRels {
					continue
				}
			}
			if err := each(obj); err != nil {
				return hdr, err
			}
		}
		st.Bytes = max(st.Bytes, cr.n)
		if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
			if ctx.Err() != nil {
				return hdr, ctx.Err()
			}
			return hdr, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return hdr, nil
	}

	// Pass 1: multipolygon relations with a surface class, and the ways
	// they need.
	type rel struct {
		id    int64
		class string
		name  string
		outer []int64
		inner []int64
	}
	var rels []rel
	member := map[int64]bool{}
	hdr, err := pass(true, true, false, func(obj osm.Object) error {
		r := obj.(*osm.Relation)
		st.Relations++
		if r.Tags.Find("type") != "multipolygon" {
			return nil
		}
		class := surfaceClass(r.Tags)
		if class == "" {
			return nil
		}
		x := rel{id: int64(r.ID), class: class, name: r.Tags.Find("name")}
		for _, m := range r.Members {
			if m.Type != osm.TypeWay {
				continue
			}
			if m.Role == "inner" {
				x.inner = append(x.inner, m.Ref)
			} else {
				x.outer = append(x.outer, m.Ref)
			}
			member[m.Ref] = true
		}
		if len(x.outer) > 0 {
			rels = append(rels, x)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if clip == (geo.BBox{}) && hdr != nil && hdr.Bounds != nil {
		b := hdr.Bounds
		clip = geo.BBox{MinLon: b.MinLon, MinLat: b.MinLat, MaxLon: b.MaxLon, MaxLat: b.MaxLat}
	}

	// Pass 2: the ways: classified ones and relation members.
	type way struct {
		id    int64
		nodes []int64
		meta  *wayMeta // only for classified ways
	}
	ways := map[int64]*way{}
	var order []int64
	_, err = pass(true, false, true, func(obj osm.Object) error {
		w := obj.(*osm.Way)
		st.Ways++
		id := int64(w.ID)
		meta := metaOf(w.Tags)
		if meta == nil && !member[id] {
			return nil
		}
		x := &way{id: id, nodes: make([]int64, len(w.Nodes)), meta: meta}
		for i, n := range w.Nodes {
			x.nodes[i] = int64(n.ID)
		}
		ways[id] = x
		order = append(order, id)
		return nil
	})
	if err != nil {
		return st, err
	}

	// Pass 3: the coordinates of the nodes those ways use.
	var need []int64
	for _, w := range ways {
		need = append(need, w.nodes...)
	}
	slices.Sort(need)
	need = slices.Compact(need)
	coords := make([][2]float64, len(need)) // projected x, y
	found := make([]bool, len(need))
	ext := geo.BBox{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	_, err = pass(false, true, true, func(obj osm.Object) error {
		n := obj.(*osm.Node)
		st.Nodes++
		ext.MinLon, ext.MaxLon = math.Min(ext.MinLon, n.Lon), math.Max(ext.MaxLon, n.Lon)
		ext.MinLat, ext.MaxLat = math.Min(ext.MinLat, n.Lat), math.Max(ext.MaxLat, n.Lat)
		if i, ok := slices.BinarySearch(need, int64(n.ID)); ok {
			x, y := geo.ToUTM(o.Zone, n.Lon, n.Lat)
			coords[i], found[i] = [2]float64{x, y}, true
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if st.Ways == 0 {
		return st, ErrEmpty
	}
	// line returns the projected points of a way, false when a node is
	// missing (the way is cut by the extract's edge).
	line := func(ids []int64) ([][2]float64, bool) {
		pts := make([][2]float64, 0, len(ids))
		for _, id := range ids {
			i, ok := slices.BinarySearch(need, id)
			if !ok || !found[i] {
				return nil, false
			}
			pts = append(pts, coords[i])
		}
		return pts, true
	}

	box := clipBox(clip, o.Zone)
	st.Clip = box
	emitted := 0
	var coast []CoastLine
	add := func(f Feature) error {
		if box != nil {
			f = box.apply(f)
		}
		if o.Keep != nil && !keeps(f, o.Zone, o.Keep) {
			f.Polygons, f.Lines = nil, nil
		}
		if len(f.Polygons) == 0 && len(f.Lines) == 0 {
			st.OutsideExtent++
			return nil
		}
		st.Features[f.Theme+"/"+f.Class]++
		emitted++
		return emit(f)
	}
	for _, id := range order {
		w := ways[id]
		if w.meta == nil {
			continue
		}
		pts, ok := line(w.nodes)
		closed := len(w.nodes) > 3 && w.nodes[0] == w.nodes[len(w.nodes)-1]
		mt := w.meta
		f := Feature{ID: id, Type: "way", Name: mt.name, Theme: mt.theme, Class: mt.class}
		if f.Theme == ThemeTransport {
			f.WidthM, f.Layer, f.Bridge, f.Tunnel = mt.width, mt.layer, mt.bridge, mt.tunnel
		}
		if !member[id] {
			w.meta = nil // not needed again: let it go
		}
		if f.Theme == ThemeCoastline {
			coast = append(coast, coastRuns(id, w.nodes, line)...)
		}
		if !ok {
			// A line cut by the extract's edge keeps its pieces of known
			// nodes; an area without all its nodes cannot be closed.
			if f.Theme == ThemeSurface {
				st.SkippedWays++
				continue
			}
			f.Lines = runs(w.nodes, line)
			if len(f.Lines) == 0 {
				st.SkippedWays++
				continue
			}
			if err := add(f); err != nil {
				return st, err
			}
			continue
		}
		switch {
		case f.Theme == ThemeSurface && f.Class == "hedge" && !closed:
			f.Polygons = bufferLine(pts, 0.5)
		case f.Theme == ThemeSurface:
			if !closed {
				continue // an open way with an area tag: not an area
			}
			f.Polygons = [][][][2]float64{{pts}}
		default:
			f.Lines = [][][2]float64{pts}
		}
		if err := add(f); err != nil {
			return st, err
		}
	}
	for _, r := range rels {
		polys, ok := assemble(r.outer, r.inner, func(id int64) ([]int64, bool) {
			w, ok := ways[id]
			if !ok {
				return nil, false
			}
			return w.nodes, true
		}, line)
		if !ok {
			st.SkippedRelations++
			continue
		}
		if err := add(Feature{ID: r.id, Type: "relation", Theme: ThemeSurface, Class: r.class, Name: r.name, Polygons: polys}); err != nil {
			return st, err
		}
	}
	if emitted == 0 && st.OutsideExtent > 0 {
		return st, ErrOutside
	}
	if len(coast) > 0 {
		var hb *geo.BBox
		if hdr != nil && hdr.Bounds != nil {
			b := hdr.Bounds
			hb = &geo.BBox{MinLon: b.MinLon, MinLat: b.MinLat, MaxLon: b.MaxLon, MaxLat: b.MaxLat}
		}
		if err := emitSea(coast, o, hb, ext, box, &st, emit); err != nil {
			return st, err
		}
	}
	return st, nil
}

// keepProbes is how many points of a feature Options.Keep is asked about.
const keepProbes = 8

// keeps reports whether keep keeps any of up to keepProbes points spread
// over the feature's outer rings and lines.
func keeps(f Feature, z geo.Zone, keep func(lon, lat float64) bool) bool {
	var pts [][2]float64
	for _, p := range f.Polygons {
		if len(p) > 0 {
			pts = append(pts, p[0]...)
		}
	}
	for _, l := range f.Lines {
		pts = append(pts, l...)
	}
	if len(pts) == 0 {
		return false
	}
	step := max(1, len(pts)/keepProbes)
	for i := 0; i < len(pts); i += step {
		if keep(geo.FromUTM(z, pts[i][0], pts[i][1])) {
			return true
		}
	}
	return false
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// bufferLine turns a polyline into one polygon per segment, half wide on
// each side (hedges are metres wide; the segments overlap at the joints,
// which a flat cover does not show).
func bufferLine(pts [][2]float64, half float64) [][][][2]float64 {
	var out [][][][2]float64
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*half, dx/l*half
		ring := [][2]float64{{a[0] + nx, a[1] + ny}, {a[0] - nx, a[1] - ny}, {b[0] - nx, b[1] - ny}, {b[0] + nx, b[1] + ny}, {a[0] + nx, a[1] + ny}}
		out = append(out, [][][2]float64{ring})
	}
	return out
}

// coastRuns is a coastline way as CoastLines: whole, or its runs of
// present nodes, each end flagged when a missing node (the extract's cut)
// ends it.
func coastRuns(id int64, ids []int64, line func([]int64) ([][2]float64, bool)) []CoastLine {
	var out []CoastLine
	cur := CoastLine{WayID: id}
	for _, n := range ids {
		p, ok := line([]int64{n})
		if !ok {
			if len(cur.Points) >= 2 {
				cur.CutEnd = true
				out = append(out, cur)
			}
			cur = CoastLine{WayID: id, CutStart: true}
			continue
		}
		cur.Points = append(cur.Points, p[0])
	}
	if len(cur.Points) >= 2 {
		out = append(out, cur)
	}
	return out
}

// runs splits a way into its pieces of at least two consecutive nodes
// that the extract has.
func runs(ids []int64, line func([]int64) ([][2]float64, bool)) [][][2]float64 {
	var out [][][2]float64
	var cur [][2]float64
	for _, id := range ids {
		p, ok := line([]int64{id})
		if !ok {
			if len(cur) >= 2 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, p[0])
	}
	if len(cur) >= 2 {
		out = append(out, cur)
	}
	return out
}
