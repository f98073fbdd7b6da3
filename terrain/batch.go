package terrain

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/raster"
)

// Why a point of a batch has no value.
const (
	ReasonOutside     = "outside"     // no dataset covers the point
	ReasonNoData      = "nodata"      // covered, but the raster holds NoData there (water, gap)
	ReasonUnavailable = "unavailable" // the tile's pass-through source could not be reached
	ReasonDamaged     = "damaged"     // the tile's file is damaged on disk
)

// PointResult is the answer for one point of a batch: a Hit when OK, else
// the Reason and, for a tile that failed, the error (a *TileError).
type PointResult struct {
	Hit
	OK     bool
	Reason string
	Err    error
}

// batchChunk is the number of points a worker takes at a time, and how
// often the context is checked.
const batchChunk = 256

// ElevationBatch samples every point of pts as ElevationWith does and
// answers in input order. A point without a value gets its reason; only a
// cancelled context fails the whole batch. Large batches are spread over
// the CPUs: the points are independent and the tile cache is shared.
func ElevationBatch(ctx context.Context, datasets []*Dataset, pts []geo.LonLat, m Interpolation) ([]PointResult, error) {
	out := make([]PointResult, len(pts))
	chunks := (len(pts) + batchChunk - 1) / batchChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		for c := range chunks {
			if err := elevationChunk(ctx, datasets, pts, out, c, m); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var (
		wg      sync.WaitGroup
		next    = make(chan int, chunks)
		errOnce sync.Once
		first   error
	)
	for c := range chunks {
		next <- c
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for c := range next {
				if err := elevationChunk(ctx, datasets, pts, out, c, m); err != nil {
					errOnce.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

func elevationChunk(ctx context.Context, datasets []*Dataset, pts []geo.LonLat, out []PointResult, c int, m Interpolation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lo, hi := c*batchChunk, min((c+1)*batchChunk, len(pts))
	for i := lo; i < hi; i++ {
		h, err := ElevationWith(ctx, datasets, pts[i].Lon, pts[i].Lat, m)
		r := &out[i]
		switch {
		case err == nil:
			r.Hit, r.OK = h, true
		case errors.Is(err, ErrOutside):
			r.Reason = ReasonOutside
		case errors.Is(err, ErrNoData):
			r.Reason, r.Dataset = ReasonNoData, h.Dataset
		default:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.Dataset, r.Err = h.Dataset, err
			r.Reason = ReasonDamaged
			if errors.Is(err, raster.ErrUnavailable) {
				r.Reason = ReasonUnavailable
			}
		}
	}
	return nil
}
