package lod2store

import (
	"context"
	"errors"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/geo"
)

// Source is one published BL's LoD2 file.
type Source struct {
	BL   string
	Pack string // the pack's identity (lod2/<bl>/<snapshot>), naming it in damage reports
	LoD2 *LoD2
}

// Position is a place in the federated order: after surface SurfaceID of
// BL. The zero Position is the start.
type Position struct {
	BL        string
	SurfaceID int64
}

// from is where a search of BL bl starts for this position: after its
// surface in bl itself, from the start (0) elsewhere.
func (p Position) from(bl string) int64 {
	if bl == p.BL {
		return p.SurfaceID
	}
	return 0
}

// FedHit is a Hit with the BL it came from.
type FedHit struct {
	BL string
	Hit
}

// DamagedError is the error of a source found damaged: one a federated
// search skipped, or one whose data an answer could not be built from. It
// wraps ErrCorrupt.
type DamagedError struct {
	BL   string
	Pack string // Source.Pack
	Err  error
}

func (e *DamagedError) Error() string { return "LoD2 data of " + e.BL + ": " + e.Err.Error() }
func (e *DamagedError) Unwrap() error { return e.Err }

// Search runs a bbox search over every source whose extent meets bbox,
// concurrently, and merges the results in the federated order: by BL code,
// then by each file's search order. It returns up to limit hits after
// `after` and the position to continue from, or nil when nothing follows.
//
// A source whose file turns out damaged (ErrCorrupt) is skipped, not fatal:
// the other states keep answering, and the skipped ones come back in
// damaged (one *DamagedError each) for the caller to report.
func Search(ctx context.Context, sources []Source, bbox geo.BBox, after Position, limit int) ([]FedHit, *Position, []*DamagedError, error) {
	return SearchFiltered(ctx, sources, bbox, after, limit, Filter{})
}

// SearchFiltered is Search keeping only the surfaces f admits.
func SearchFiltered(ctx context.Context, sources []Source, bbox geo.BBox, after Position, limit int, f Filter) ([]FedHit, *Position, []*DamagedError, error) {
	return AppendSearch(ctx, nil, sources, bbox, after, limit, f)
}

// AppendSearch is SearchFiltered appending the hits to dst (which it may
// grow), so that a caller can reuse one slice for many pages. A page whose
// box meets one source (the usual 1 km² search) is searched in the calling
// goroutine, straight into dst; several sources are searched concurrently.
func AppendSearch(ctx context.Context, dst []FedHit, sources []Source, bbox geo.BBox, after Position, limit int, f Filter) ([]FedHit, *Position, []*DamagedError, error) {
	srcs := sources
	if !slices.IsSortedFunc(srcs, func(a, b Source) int { return strings.Compare(a.BL, b.BL) }) {
		srcs = slices.SortedFunc(slices.Values(sources), func(a, b Source) int { return strings.Compare(a.BL, b.BL) })
	}
	searched, only := 0, 0
	for i, src := range srcs {
		if (after.BL != "" && src.BL < after.BL) || !f.All && !bbox.Intersects(src.LoD2.BBox()) {
			continue
		}
		searched, only = searched+1, i
	}
	start := len(dst)
	var skipped []*DamagedError
	switch searched {
	case 0:
	case 1:
		src := srcs[only]
		var err error
		dst, err = src.LoD2.appendSearch(ctx, dst, src.BL, bbox, after.from(src.BL), limit+1, f)
		if errors.Is(err, ErrCorrupt) {
			skipped = append(skipped, &DamagedError{BL: src.BL, Pack: src.Pack, Err: err})
		} else if err != nil {
			return dst[:start], nil, nil, err
		}
	default:
		results := make([][]FedHit, len(srcs))
		damaged := make([]*DamagedError, len(srcs))
		g, gctx := errgroup.WithContext(ctx)
		for i, src := range srcs {
			if (after.BL != "" && src.BL < after.BL) || !f.All && !bbox.Intersects(src.LoD2.BBox()) {
				continue
			}
			g.Go(func() error {
				hits, err := src.LoD2.appendSearch(gctx, nil, src.BL, bbox, after.from(src.BL), limit+1, f)
				if errors.Is(err, ErrCorrupt) {
					damaged[i] = &DamagedError{BL: src.BL, Pack: src.Pack, Err: err}
					return nil
				}
				results[i] = hits
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return dst[:start], nil, nil, err
		}
		for i, hits := range results {
			if d := damaged[i]; d != nil {
				skipped = append(skipped, d)
			}
			// Only the first limit+1 hits in the federated order matter.
			dst = append(dst, hits[:min(len(hits), limit+1-(len(dst)-start))]...)
		}
	}
	if len(dst)-start <= limit {
		return dst, nil, skipped, nil
	}
	dst = dst[:start+limit]
	last := dst[len(dst)-1]
	return dst, &Position{BL: last.BL, SurfaceID: last.SurfaceID}, skipped, nil
}
