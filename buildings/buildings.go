// Package buildings is the LoD2 building use case over a catalog view,
// beside query (point answers over rasters) and export (GLB): which packs
// answer (Sources), a building or its roof by gml:id (Building, Roof), the
// federated bbox search (Search) and the one GeoJSON encoding of a surface
// feature (Form) that GET /v1/buildings and the OGC API both write, with
// the CRS as a parameter. It holds no HTTP: the server's handlers turn its
// answers and errors into responses.
//
// Data found damaged while answering comes back as a *lod2store.DamagedError
// naming the pack (it wraps lod2store.ErrCorrupt), so that every caller reports
// the damage the same way a federated search reports a skipped state.
package buildings

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// maxGMLIDLen bounds the ids looked up: longer ones are not ids of any
// building and are answered as not found without a query.
const maxGMLIDLen = 256

// Sources returns the published LoD2 stores of v, ordered by BL code.
func Sources(v *catalog.View) []lod2store.Source {
	ps := v.Packs(pack.LoD2)
	out := make([]lod2store.Source, 0, len(ps))
	for _, p := range ps {
		if p.LoD2 != nil {
			out = append(out, lod2store.Source{BL: p.Manifest.BL, Pack: p.ID(), LoD2: p.LoD2})
		}
	}
	return out
}

// Damaged wraps an error of src that is damage (lod2store.ErrCorrupt) as a
// *lod2store.DamagedError naming src's pack; other errors pass unchanged.
func Damaged(src lod2store.Source, err error) error {
	var d *lod2store.DamagedError
	if err == nil || !errors.Is(err, lod2store.ErrCorrupt) || errors.As(err, &d) {
		return err
	}
	return &lod2store.DamagedError{BL: src.BL, Pack: src.Pack, Err: err}
}

// find resolves a gml:id: it calls f with the source of the BL the id's
// prefix names first, then with every other source, until f returns
// something other than an error wrapping lod2store.ErrNotFound. The error wraps
// lod2store.ErrNotFound when no source has the id.
func find(srcs []lod2store.Source, gmlid string, f func(src lod2store.Source) error) error {
	notFound := fmt.Errorf("buildings: no building %q in any published BL: %w", gmlid, lod2store.ErrNotFound)
	if len(gmlid) == 0 || len(gmlid) > maxGMLIDLen {
		return notFound
	}
	order := append([]lod2store.Source(nil), srcs...)
	if st, ok := bl.ForID(gmlid); ok {
		for i, src := range order {
			if src.BL == st.Code {
				order[0], order[i] = order[i], order[0]
				break
			}
		}
	}
	for _, src := range order {
		err := f(src)
		if errors.Is(err, lod2store.ErrNotFound) {
			continue
		}
		return Damaged(src, err)
	}
	return notFound
}

// Building returns the building (or building part) gmlid with the geometry
// of all its surfaces, and the source that has it. Errors wrap
// lod2store.ErrNotFound, or are a *lod2store.DamagedError.
func Building(ctx context.Context, srcs []lod2store.Source, gmlid string) (lod2store.Source, lod2store.Building, error) {
	var (
		at  lod2store.Source
		out lod2store.Building
	)
	err := find(srcs, gmlid, func(src lod2store.Source) error {
		b, err := src.LoD2.Building(ctx, gmlid)
		at, out = src, b
		return err
	})
	return at, out, err
}

// Roof returns the planar roof facets of building gmlid (empty for a
// building without roof surfaces) and the source that has it. Errors as
// Building.
func Roof(ctx context.Context, srcs []lod2store.Source, gmlid string) (lod2store.Source, []lod2store.Facet, error) {
	var (
		at  lod2store.Source
		out []lod2store.Facet
	)
	err := find(srcs, gmlid, func(src lod2store.Source) error {
		fs, err := src.LoD2.Roof(ctx, gmlid)
		at, out = src, fs
		return err
	})
	return at, out, err
}

// Page is one page of a federated search.
type Page struct {
	Hits []lod2store.FedHit
	// Next is where the next page starts; nil on the last page.
	Next *lod2store.Position
	// Damaged are the states skipped because their data is damaged; the
	// page holds the others' surfaces.
	Damaged []*lod2store.DamagedError
	// pooled is the slice Hits was taken from, returned by Release.
	pooled *[]lod2store.FedHit
}

// hitSlices recycles the hits of pages: a page of limit 1000 holds 80 KB
// of them, which would otherwise be garbage after every request.
var hitSlices = sync.Pool{New: func() any { return new([]lod2store.FedHit) }}

// maxPooledHits bounds the slices kept: an OGC page of 10,000 hits is
// rare and is left to the garbage collector.
const maxPooledHits = 4096

// Release gives the page's hits back for the next search; p.Hits must not
// be used afterwards. A page not released is simply garbage.
func (p *Page) Release() {
	if p.pooled == nil {
		return
	}
	hits := p.Hits[:cap(p.Hits)]
	if cap(hits) <= maxPooledHits {
		clear(hits) // keep no gml:id strings alive
		*p.pooled = hits[:0]
		hitSlices.Put(p.pooled)
	}
	p.Hits, p.pooled = nil, nil
}

// Search runs the federated search over srcs: the surfaces f admits that
// meet bbox (WGS84), after position after, at most limit, in the federated
// order (lod2store.SearchFiltered). Errors wrap lod2store.ErrCursor for a cursor
// that is not one of srcs' surfaces. Release the page once it is written.
func Search(ctx context.Context, srcs []lod2store.Source, bbox geo.BBox, after lod2store.Position, limit int, f lod2store.Filter) (Page, error) {
	pooled := hitSlices.Get().(*[]lod2store.FedHit)
	hits, next, damaged, err := lod2store.AppendSearch(ctx, (*pooled)[:0], srcs, bbox, after, limit, f)
	if err != nil {
		clear((*pooled)[:cap(*pooled)])
		hitSlices.Put(pooled)
		return Page{}, err
	}
	return Page{Hits: hits, Next: next, Damaged: damaged, pooled: pooled}, nil
}

// Surface returns surface sid of the source of BL code in srcs. Errors
// wrap lod2store.ErrNotFound (no such BL or surface), or are a
// *lod2store.DamagedError.
func Surface(srcs []lod2store.Source, code string, sid int64) (lod2store.FedHit, error) {
	for _, src := range srcs {
		if src.BL == code {
			h, err := src.LoD2.Surface(sid)
			return lod2store.FedHit{BL: code, Hit: h}, Damaged(src, err)
		}
	}
	return lod2store.FedHit{}, fmt.Errorf("buildings: no BL %q: %w", code, lod2store.ErrNotFound)
}

// RoofSummary sums up the roof facets of one roof surface: the area of all
// its polygons, and tilt and azimuth of the largest (nil without facets;
// azimuth also nil for a flat facet).
type RoofSummary struct {
	AreaM2     float64
	Facets     int
	TiltDeg    *float64
	AzimuthDeg *float64
}

// Summarize sums up the facets of one roof surface; the area is rounded
// to 2 decimals.
func Summarize(facets []lod2store.Facet) RoofSummary {
	var s RoofSummary
	big := -1
	for i, f := range facets {
		s.AreaM2 += f.AreaM2
		if big < 0 || f.AreaM2 > facets[big].AreaM2 {
			big = i
		}
	}
	s.AreaM2, s.Facets = round(s.AreaM2, 2), len(facets)
	if big >= 0 {
		s.TiltDeg, s.AzimuthDeg = &facets[big].TiltDeg, facets[big].AzimuthDeg
	}
	return s
}

// RoofSummaries measures the roof surfaces hits (all of class
// lod2store.ClassRoof, found in srcs), one query each.
func RoofSummaries(ctx context.Context, srcs []lod2store.Source, hits []lod2store.FedHit) ([]RoofSummary, error) {
	out := make([]RoofSummary, len(hits))
	for i, h := range hits {
		var src lod2store.Source
		for _, s := range srcs {
			if s.BL == h.BL {
				src = s
				break
			}
		}
		if src.LoD2 == nil {
			return nil, fmt.Errorf("buildings: surface %d of BL %s: no such source", h.SurfaceID, h.BL)
		}
		fs, err := src.LoD2.RoofSurface(ctx, h.SurfaceID)
		if err != nil {
			return nil, Damaged(src, err)
		}
		out[i] = Summarize(fs)
	}
	return out, nil
}
