package lod2store

import (
	"context"
	"errors"
	"sort"

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
	srcs := append([]Source(nil), sources...)
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].BL < srcs[j].BL })
	results := make([][]Hit, len(srcs))
	damaged := make([]*DamagedError, len(srcs))
	g, gctx := errgroup.WithContext(ctx)
	for i, src := range srcs {
		if (after.BL != "" && src.BL < after.BL) || !f.All && !bbox.Intersects(src.LoD2.BBox()) {
			continue
		}
		var from int64
		if src.BL == after.BL {
			from = after.SurfaceID
		}
		g.Go(func() error {
			hits, err := src.LoD2.SearchFiltered(gctx, bbox, from, limit+1, f)
			if errors.Is(err, ErrCorrupt) {
				damaged[i] = &DamagedError{BL: src.BL, Pack: src.Pack, Err: err}
				return nil
			}
			results[i] = hits
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, nil, err
	}
	var skipped []*DamagedError
	for _, d := range damaged {
		if d != nil {
			skipped = append(skipped, d)
		}
	}
	var out []FedHit
	for i, hits := range results {
		for _, h := range hits {
			out = append(out, FedHit{BL: srcs[i].BL, Hit: h})
		}
	}
	if len(out) <= limit {
		return out, nil, skipped, nil
	}
	out = out[:limit]
	last := out[limit-1]
	return out, &Position{BL: last.BL, SurfaceID: last.SurfaceID}, skipped, nil
}
