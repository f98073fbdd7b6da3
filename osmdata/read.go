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
	"sync/atomic"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
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
	SkippedWays int `json:"skipped_ways"`
	// Skipped names each of SkippedWays and SkippedRelations and why, in
	// the order read (ways, then relations); at most maxSkipped of them.
	Skipped       []Skip `json:"skipped,omitempty"`
	OutsideExtent int    `json:"outside_extent"`
	// Clip is the UTM box the features were clipped to (nil: none).
	Clip *Box `json:"clip,omitempty"`
	// Sea is what became of the coastline (nil: the extract has none),
	// in the form the pack's manifest keeps it.
	Sea *pack.OSMSea `json:"sea,omitempty"`
}

// Skip is a way or relation of the extract that could not be used, and
// why: an area cut by the extract's edge, a line of which no two
// consecutive nodes are in the extract, a multipolygon missing a member
// or whose ring does not close.
type Skip struct {
	Type  string `json:"type"` // "way" or "relation"
	ID    int64  `json:"id"`
	Class string `json:"class"` // "<theme>/<class>"
	// Lon, Lat (WGS84) is a node of it next to the trouble: the last node
	// the extract has before a missing one; both 0 when none is known.
	Lon    float64 `json:"lon,omitempty"`
	Lat    float64 `json:"lat,omitempty"`
	Reason string  `json:"reason"`
}

// maxSkipped caps Stats.Skipped: a state cut by a polygon with osmium's
// simple strategy has a few thousand areas across the cut; the counts
// stay exact beyond it.
const maxSkipped = 100_000

// skip records a way or relation that could not be used.
func (st *Stats) skip(s Skip) {
	if s.Type == "relation" {
		st.SkippedRelations++
	} else {
		st.SkippedWays++
	}
	if len(st.Skipped) < maxSkipped {
		st.Skipped = append(st.Skipped, s)
	}
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
	// the box of the nodes its kept ways use. Open coastline chains are
	// closed along it.
	Boundary *Poly
	// Workers is how many goroutines decode a PBF's blocks (0:
	// GOMAXPROCS); OSM XML is decoded by one. The features and their order
	// do not depend on it.
	Workers int
	// Progress, when set, is called with the bytes read so far over the
	// four passes (each reads the whole file), as reading advances, from
	// one goroutine at a time.
	Progress func(read int64)
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

// filters pick the objects a pass keeps (see Stream); they run
// concurrently and must only read shared state.
type filters struct {
	node func(*osm.Node) bool
	way  func(*osm.Way) bool
	rel  func(*osm.Relation) bool
}

// classified reports whether metaOf keeps a way, without allocating.
func classified(t osm.Tags) bool {
	return t.Find("natural") == "coastline" || transportClass(t) != "" || surfaceClass(t) != ""
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

// Stream reads the file open returns four times (relations, ways, nodes,
// ways again), keeping in memory only the ids of the nodes the kept ways
// use (delta encoded, about 2 bytes each), their coordinates (8 bytes) and
// the node lists of multipolygon members, and hands each feature to emit
// as soon as it is complete, so memory follows the used nodes, not the
// ways, the file or the features.
func Stream(ctx context.Context, open func() (io.ReadCloser, error), o Options, emit func(Feature) error) (Stats, error) {
	st := Stats{Features: map[string]int{}}
	clip := o.Clip
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var read int64 // by the passes before this one
	// pass reads the file once, handing each to object its filter keeps;
	// a nil filter skips that type. The PBF decoder runs the filters in
	// its goroutines, so objects not kept are dropped as soon as decoded,
	// and its blocks in flight hold only what is kept (a state's route
	// relations decoded whole held 400 MB).
	pass := func(f filters, each func(osm.Object) error) (*osmpbf.Header, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		cr := &countingReader{r: rc, base: read, seen: o.Progress}
		defer func() { read += cr.n }()
		var sc scanner
		var hdr *osmpbf.Header
		if o.XML {
			sc = osmxml.New(ctx, cr)
		} else {
			ps := osmpbf.New(ctx, cr, workers)
			ps.SkipNodes, ps.SkipWays, ps.SkipRelations = f.node == nil, f.way == nil, f.rel == nil
			ps.FilterNode, ps.FilterWay, ps.FilterRelation = f.node, f.way, f.rel
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
			keep := false
			switch x := obj.(type) {
			case *osm.Node:
				keep = f.node != nil && (!o.XML || f.node(x))
			case *osm.Way:
				keep = f.way != nil && (!o.XML || f.way(x))
			case *osm.Relation:
				keep = f.rel != nil && (!o.XML || f.rel(x))
			}
			if !keep {
				continue
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
	var members []int64 // ids of the member ways
	var nRels, nWays, nNodes atomic.Int64
	hdr, err := pass(filters{rel: func(r *osm.Relation) bool {
		nRels.Add(1)
		return r.Tags.Find("type") == "multipolygon" && surfaceClass(r.Tags) != ""
	}}, func(obj osm.Object) error {
		r := obj.(*osm.Relation)
		class := surfaceClass(r.Tags)
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
			members = append(members, m.Ref)
		}
		if len(x.outer) > 0 {
			rels = append(rels, x)
		}
		return nil
	})
	st.Relations = nRels.Load()
	if err != nil {
		return st, err
	}
	if clip == (geo.BBox{}) && hdr != nil && hdr.Bounds != nil {
		b := hdr.Bounds
		clip = geo.BBox{MinLon: b.MinLon, MinLat: b.MinLat, MaxLon: b.MaxLon, MaxLat: b.MaxLat}
	}

	// Pass 2: the ids of the nodes the classified ways and the relation
	// members use (an idSet), and the node lists of the members (delta
	// encoded). Classified ways are not kept: pass 4 reads them again.
	isMember := func(id int64) bool {
		_, ok := slices.BinarySearch(members, id)
		return ok
	}
	slices.Sort(members)
	members = slices.Compact(members)
	var need idCollector
	memberAt := map[int64]int{} // offset in memberNodes
	var memberNodes []byte
	ids := make([]int64, 0, 2000)
	_, err = pass(filters{way: func(w *osm.Way) bool {
		nWays.Add(1)
		return classified(w.Tags) || isMember(int64(w.ID))
	}}, func(obj osm.Object) error {
		w := obj.(*osm.Way)
		id := int64(w.ID)
		m := isMember(id)
		ids = ids[:0]
		for _, n := range w.Nodes {
			ids = append(ids, int64(n.ID))
		}
		need.add(ids...)
		if m {
			memberAt[id] = len(memberNodes)
			memberNodes = appendIDs(memberNodes, ids)
		}
		return nil
	})
	st.Ways = nWays.Load()
	if err != nil {
		return st, err
	}

	// Pass 3: the coordinates of those nodes, WGS84 in 1e-7 degrees (the
	// precision OSM stores), by rank in the set; noCoord where the extract
	// lacks the node. A sorted file (ids ascending, as osmium and Geofabrik
	// write) is matched in one merge; otherwise each node is looked up.
	set := need.done()
	coords := make([]int32, 2*set.n)
	for i := range set.n {
		coords[2*i] = noCoord
	}
	// ext is the box of the nodes the kept ways use: the boundary of the
	// sea when the file has neither a polygon nor header bounds.
	ext := geo.BBox{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	it, last := set.iter(), int64(math.MinInt64)
	_, err = pass(filters{node: func(n *osm.Node) bool {
		nNodes.Add(1)
		_, ok := set.rank(int64(n.ID))
		return ok
	}}, func(obj osm.Object) error {
		n := obj.(*osm.Node)
		ext.MinLon, ext.MaxLon = math.Min(ext.MinLon, n.Lon), math.Max(ext.MaxLon, n.Lon)
		ext.MinLat, ext.MaxLat = math.Min(ext.MinLat, n.Lat), math.Max(ext.MaxLat, n.Lat)
		id := int64(n.ID)
		r, ok := -1, false
		if id > last && it != nil {
			for !it.done && it.id < id {
				it.next()
			}
			r, ok = it.i, !it.done && it.id == id
		} else {
			it = nil // not sorted: look each node up
			r, ok = set.rank(id)
		}
		last = id
		if ok {
			coords[2*r], coords[2*r+1] = int32(math.Round(n.Lon*1e7)), int32(math.Round(n.Lat*1e7))
		}
		return nil
	})
	st.Nodes = nNodes.Load()
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
			r, ok := set.rank(id)
			if !ok || coords[2*r] == noCoord {
				return nil, false
			}
			x, y := geo.ToUTM(o.Zone, float64(coords[2*r])/1e7, float64(coords[2*r+1])/1e7)
			pts = append(pts, [2]float64{x, y})
		}
		return pts, true
	}

	// lonLat is where a node is (WGS84), false when the extract lacks it.
	lonLat := func(id int64) (float64, float64, bool) {
		r, ok := set.rank(id)
		if !ok || coords[2*r] == noCoord {
			return 0, 0, false
		}
		return float64(coords[2*r]) / 1e7, float64(coords[2*r+1]) / 1e7, true
	}
	// cut records a way with nodes missing from the extract.
	cut := func(f Feature, ids []int64, so string) {
		missing, near := cutOf(ids, line)
		sk := Skip{Type: "way", ID: f.ID, Class: f.Theme + "/" + f.Class,
			Reason: fmt.Sprintf("cut by the extract: %d of its %d nodes missing; %s", missing, len(ids), so)}
		sk.Lon, sk.Lat, _ = lonLat(near)
		st.skip(sk)
	}

	box := clipBox(clip, o.Zone)
	st.Clip = box
	emitted := 0
	var coast []CoastLine
	var probes landProbes // where roads and paths lie: land, to check the sea against
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
		if f.Theme == ThemeTransport && !f.Bridge && len(f.Lines) > 0 {
			probes.add(f.Lines[0][len(f.Lines[0])/2])
		}
		return emit(f)
	}
	// Pass 4: the classified ways again, each emitted as soon as read.
	_, err = pass(filters{way: func(w *osm.Way) bool { return classified(w.Tags) }}, func(obj osm.Object) error {
		w := obj.(*osm.Way)
		mt := metaOf(w.Tags)
		id := int64(w.ID)
		ids = ids[:0]
		for _, n := range w.Nodes {
			ids = append(ids, int64(n.ID))
		}
		f := Feature{ID: id, Type: "way", Name: mt.name, Theme: mt.theme, Class: mt.class}
		if f.Theme == ThemeTransport {
			f.WidthM, f.Layer, f.Bridge, f.Tunnel = mt.width, mt.layer, mt.bridge, mt.tunnel
		}
		if f.Theme == ThemeCoastline {
			coast = append(coast, coastRuns(id, ids, line)...)
		}
		pts, ok := line(ids)
		closed := len(ids) > 3 && ids[0] == ids[len(ids)-1]
		if !ok {
			// A line cut by the extract's edge keeps its pieces of known
			// nodes; an area without all its nodes cannot be closed.
			if f.Theme == ThemeSurface {
				so := "an area cannot be closed without them (which side of its present part is inside is unknown)"
				switch {
				case !closed && f.Class == "hedge":
					so = "a cut hedge line is left out"
				case !closed:
					so = "a way with an area tag whose ends do not meet is no area"
				}
				cut(f, ids, so)
				return nil
			}
			if f.Lines = runs(ids, line); len(f.Lines) == 0 {
				cut(f, ids, "no two consecutive nodes are left, so no piece of it is kept")
				return nil
			}
			return add(f)
		}
		switch {
		case f.Theme == ThemeSurface && f.Class == "hedge" && !closed:
			f.Polygons = bufferLine(pts, 0.5)
		case f.Theme == ThemeSurface:
			if !closed {
				return nil // an open way with an area tag: not an area
			}
			f.Polygons = [][][][2]float64{{pts}}
		default:
			f.Lines = [][][2]float64{pts}
		}
		return add(f)
	})
	if err != nil {
		return st, err
	}
	for _, r := range rels {
		polys, fail := assemble(r.outer, r.inner, func(id int64) ([]int64, bool) {
			off, ok := memberAt[id]
			if !ok {
				return nil, false
			}
			return readIDs(memberNodes[off:]), true
		}, line)
		if fail != nil {
			sk := Skip{Type: "relation", ID: r.id, Class: ThemeSurface + "/" + r.class, Reason: "multipolygon: " + fail.why}
			sk.Lon, sk.Lat, _ = lonLat(fail.node)
			st.skip(sk)
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
		if err := emitSea(coast, o, hb, ext, box, &probes, &st, emit); err != nil {
			return st, err
		}
	}
	return st, nil
}
