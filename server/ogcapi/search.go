package ogcapi

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/cql2"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/twpayne/go-geom"
)

// maxSorted bounds the features a sorted request over the surface
// collections may match: they are sorted in memory (the surface store
// keeps them in the order of its spatial index only).
const maxSorted = 100000

// scanChunk is the most surfaces a filtered search reads from the store at
// a time; it starts at twice the page and doubles, so a filter that
// matches often reads little more than the page.
const scanChunk = 2000

// found is the result of a filtered or sorted items search.
type found struct {
	feats   []buildings.Feature
	next    string // cursor of the next page, "" on the last
	damaged []*lod2store.DamagedError
	page    *buildings.Page // the store's page the features were taken from
}

// release gives the store's page back once the features are written.
func (f found) release() {
	if f.page != nil {
		f.page.Release()
	}
}

// search runs an items search: the store's page as it comes without filter
// and sortby, else searchFiltered or searchSorted.
func (s *surface) search(ctx context.Context, q searchQuery) (found, error) {
	switch {
	case q.flt.sort != nil:
		return searchSorted(ctx, q, q.after.sorted)
	case q.flt.expr != nil:
		return searchFiltered(ctx, q)
	}
	page, err := buildings.Search(ctx, q.srcs, q.bbox, q.after.Position, q.limit, q.store)
	if err != nil {
		return found{}, err
	}
	out := found{damaged: page.Damaged, page: &page}
	if out.feats, err = matching(ctx, q, page.Hits); err != nil {
		page.Release()
		return found{}, err
	}
	if page.Next != nil {
		out.next = ogcCursor{Position: *page.Next, Snapshot: q.snapshots[page.Next.BL]}.encode()
	}
	return out, nil
}

// searchQuery is what an items search needs.
type searchQuery struct {
	srcs      []lod2store.Source
	snapshots map[string]string
	bbox      geo.BBox
	store     lod2store.Filter
	roofs     bool
	limit     int
	after     ogcCursor
	flt       itemFilter
}

// searchFiltered pages through the store's federated order, keeping the
// features the filter matches, until a page is full. The next cursor is the
// position of the last feature returned, so it is the plain ogcCursor.
func searchFiltered(ctx context.Context, q searchQuery) (found, error) {
	var out found
	pos := q.after.Position
	chunk := min(scanChunk, 2*q.limit)
	for ; ; chunk = min(scanChunk, 2*chunk) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		page, err := buildings.Search(ctx, q.srcs, q.bbox, pos, chunk, q.store)
		if err != nil {
			return out, err
		}
		out.damaged = append(out.damaged, page.Damaged...)
		feats, err := matching(ctx, q, page.Hits)
		if err != nil {
			return out, err
		}
		for _, f := range feats {
			if len(out.feats) == q.limit {
				// More match after the last one kept.
				last := out.feats[len(out.feats)-1]
				out.next = ogcCursor{Position: lod2store.Position{BL: last.BL, SurfaceID: last.SurfaceID}, Snapshot: q.snapshots[last.BL]}.encode()
				return out, nil
			}
			out.feats = append(out.feats, f)
		}
		if page.Next == nil {
			return out, nil
		}
		pos = *page.Next
		if len(out.feats) == q.limit {
			// Full: a next page exists only if one more matches; look on.
			more, err := anyMatch(ctx, q, pos)
			if err != nil || !more {
				return out, err
			}
			last := out.feats[len(out.feats)-1]
			out.next = ogcCursor{Position: lod2store.Position{BL: last.BL, SurfaceID: last.SurfaceID}, Snapshot: q.snapshots[last.BL]}.encode()
			return out, nil
		}
	}
}

// anyMatch tells whether a feature after pos matches.
func anyMatch(ctx context.Context, q searchQuery, pos lod2store.Position) (bool, error) {
	for chunk := 32; ; chunk = min(scanChunk, 2*chunk) {
		page, err := buildings.Search(ctx, q.srcs, q.bbox, pos, chunk, q.store)
		if err != nil {
			return false, err
		}
		feats, err := matching(ctx, q, page.Hits)
		if err != nil || len(feats) > 0 || page.Next == nil {
			return len(feats) > 0, err
		}
		pos = *page.Next
	}
}

// matching returns the features of hits the filter matches (all of them
// without a filter), with their roof summaries on the roofs collection.
func matching(ctx context.Context, q searchQuery, hits []lod2store.FedHit) ([]buildings.Feature, error) {
	var roofs []buildings.RoofSummary
	if q.roofs {
		var err error
		if roofs, err = buildings.RoofSummaries(ctx, q.srcs, hits); err != nil {
			return nil, err
		}
	}
	out := make([]buildings.Feature, 0, len(hits))
	all := formOf(ogcCollection{roofs: q.roofs}).Properties
	props := make(map[string]any, len(all))
	for i, h := range hits {
		// The feature is evaluated in place: a local passed to Value
		// would escape, one allocation per hit.
		out = append(out, buildings.Feature{FedHit: h})
		f := &out[len(out)-1]
		if roofs != nil {
			f.Roof = roofs[i]
		}
		if q.flt.expr == nil {
			continue
		}
		for _, p := range all {
			props[p.Name] = p.Value(f)
		}
		cf := cql2.Feature{Properties: props}
		if q.flt.needGeom {
			g, err := surfaceGeom(h.Coords)
			if err != nil {
				return nil, buildings.Damaged(sourceOf(q.srcs, h.BL), err)
			}
			cf.Geometry = g
		}
		ok, err := q.flt.expr.Match(cf)
		if err != nil {
			return nil, httpapi.Report(httpapi.ErrMalformed, "Parameter filter cannot be evaluated: %s", strings.TrimPrefix(err.Error(), "cql2: "))
		}
		if !ok {
			out = out[:len(out)-1]
		}
	}
	return out, nil
}

// surfaceGeom decodes the stored GeoJSON MultiPolygon coordinates (WGS84
// with z) of a surface.
func surfaceGeom(coords []byte) (geom.T, error) {
	var mp [][][][]float64
	if err := json.Unmarshal(coords, &mp); err != nil {
		return nil, fmt.Errorf("%w: surface coordinates: %v", lod2store.ErrCorrupt, err)
	}
	out := make([][][]geom.Coord, len(mp))
	for i, poly := range mp {
		out[i] = make([][]geom.Coord, len(poly))
		for j, ring := range poly {
			out[i][j] = make([]geom.Coord, len(ring))
			for k, p := range ring {
				if len(p) < 2 {
					return nil, fmt.Errorf("%w: surface coordinates: a position of %d numbers", lod2store.ErrCorrupt, len(p))
				}
				out[i][j][k] = geom.Coord{p[0], p[1]}
			}
		}
	}
	g, err := geom.NewMultiPolygon(geom.XY).SetCoords(out)
	if err != nil {
		return nil, fmt.Errorf("%w: surface coordinates: %v", lod2store.ErrCorrupt, err)
	}
	return g, nil
}

// sortedCursor is the keyset position of a sorted page: the sort values of
// the last feature, its BL and surface id, and a digest of the snapshots it
// was issued for.
type sortedCursor struct {
	Keys     []any  `json:"k"`
	BL       string `json:"b"`
	SID      int64  `json:"s"`
	Snapshot string `json:"v"`
}

const sortedPrefix = "s."

func (c sortedCursor) encode() string {
	b, _ := json.Marshal(c)
	return sortedPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func decodeSortedCursor(s string) (sortedCursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(s, sortedPrefix))
	var c sortedCursor
	if err != nil || json.Unmarshal(raw, &c) != nil || c.BL == "" || c.SID <= 0 {
		return sortedCursor{}, false
	}
	for _, k := range c.Keys {
		switch k.(type) {
		case nil, string, float64:
		default:
			return sortedCursor{}, false
		}
	}
	return c, true
}

// snapshotDigest names the snapshots of srcs in one short string.
func snapshotDigest(snaps map[string]string) string {
	keys := make([]string, 0, len(snaps))
	for k := range snaps {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := fnv.New64a()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s;", k, snaps[k])
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// sortRow is a matching feature with its sort values.
type sortRow struct {
	f    buildings.Feature
	keys []any
}

// compareKeys orders two sort value tuples by sortby, nulls first
// ascending and last descending, then BL and surface id ascending.
func compareKeys(sort []sortKey, a []any, aBL string, aSID int64, b []any, bBL string, bSID int64) int {
	for i, k := range sort {
		c := compareValue(a[i], b[i])
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Or(strings.Compare(aBL, bBL), cmp.Compare(aSID, bSID))
}

// compareValue orders nil < numbers < strings; numbers as float64.
func compareValue(a, b any) int {
	rank := func(v any) int {
		switch v.(type) {
		case nil:
			return 0
		case string:
			return 2
		}
		return 1
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch a := a.(type) {
	case string:
		return strings.Compare(a, b.(string))
	case nil:
		return 0
	}
	return cmp.Compare(toFloat(a), toFloat(b))
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// searchSorted reads every matching feature (at most maxSorted), sorts
// them by sortby and returns the page after the cursor's keys.
func searchSorted(ctx context.Context, q searchQuery, after string) (found, error) {
	var out found
	digest := snapshotDigest(q.snapshots)
	var cur *sortedCursor
	if after != "" {
		c, ok := decodeSortedCursor(after)
		if !ok || len(c.Keys) != len(q.flt.sort) {
			return out, httpapi.Report(httpapi.ErrMalformed, "Parameter cursor is not one of this sorted query; follow the next link unchanged.")
		}
		if c.Snapshot != digest {
			return out, httpapi.Report(httpapi.ErrMalformed, "The data changed since this cursor was issued; restart paging without a cursor.")
		}
		cur = &c
	}
	props := make([]*buildings.Property, len(q.flt.sort))
	for i, k := range q.flt.sort {
		for _, p := range formOf(ogcCollection{roofs: q.roofs}).Properties {
			if p.Name == k.name {
				props[i] = p
			}
		}
	}
	var rows []sortRow
	var pos lod2store.Position
	for {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		page, err := buildings.Search(ctx, q.srcs, q.bbox, pos, scanChunk, q.store)
		if err != nil {
			return out, err
		}
		out.damaged = append(out.damaged, page.Damaged...)
		feats, err := matching(ctx, q, page.Hits)
		if err != nil {
			return out, err
		}
		for _, f := range feats {
			keys := make([]any, len(props))
			for i, p := range props {
				keys[i] = p.Value(&f)
			}
			if cur != nil && compareKeys(q.flt.sort, keys, f.BL, f.SurfaceID, cur.Keys, cur.BL, cur.SID) <= 0 {
				continue
			}
			rows = append(rows, sortRow{f: f, keys: keys})
		}
		if len(rows) > maxSorted {
			return out, httpapi.Report(httpapi.ErrMalformed, "Parameter sortby: more than %d features match; narrow the request with bbox or filter.", maxSorted)
		}
		if page.Next == nil {
			break
		}
		pos = *page.Next
	}
	slices.SortFunc(rows, func(a, b sortRow) int {
		return compareKeys(q.flt.sort, a.keys, a.f.BL, a.f.SurfaceID, b.keys, b.f.BL, b.f.SurfaceID)
	})
	n := min(len(rows), q.limit)
	for _, r := range rows[:n] {
		out.feats = append(out.feats, r.f)
	}
	if len(rows) > n {
		last := rows[n-1]
		keys := make([]any, len(last.keys))
		for i, k := range last.keys {
			if iv, ok := k.(int64); ok {
				k = float64(iv)
			}
			keys[i] = k
		}
		out.next = sortedCursor{Keys: keys, BL: last.f.BL, SID: last.f.SurfaceID, Snapshot: digest}.encode()
	}
	return out, nil
}
