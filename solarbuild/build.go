// Package solarbuild precomputes the solar irradiation of every roof facet
// of a BL's published LoD2 pack (`svc build solar`) into a solar pack
// (package solarstore), computing each building as the solar route does
// on demand (package roofsolar).
//
// Workers compute the buildings of one range of building ids (a chunk) at
// once; the chunk is written, in id order, to a checkpoint file in the
// resumable directory (pack.CreateResumable). A build killed at any moment
// continues with Options.Resume from the chunks written, and the store is
// written from the chunks in order by one writer when all are done: the
// file is the same byte for byte whatever the worker count and however
// often the build was interrupted. Nothing is published before then.
package solarbuild

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/solarstore"
	"github.com/svc-geodata/svc/terrain"
	"github.com/svc-geodata/svc/tiles3d"
)

// Options configure Build.
type Options struct {
	DataDir string
	// LoD2 is the published LoD2 pack of the BL (its manifest and store).
	LoD2         *lod2store.LoD2
	LoD2Manifest pack.Manifest
	// Terrain and Vegetation are the published datasets the shading reads
	// (those in the LoD2 pack's CRS), as the solar route reads them.
	Terrain, Vegetation []*terrain.Dataset
	// Climate is the operator's climate file; nil: every building is
	// computed under DefaultClimate's cell of its first roof vertex, as the
	// solar route on a server without --irradiance computes it.
	Climate        *roofsolar.Climate
	DefaultClimate *roofsolar.DefaultClimates
	Workers        int  // buildings computed at once (default 1)
	Resume         bool // continue an interrupted build of the same inputs
	Strict         bool // a building that fails fails the build
	// ChunkBuildings is the range of building ids per checkpoint (default
	// 1000): what a resumed build computes again at most.
	ChunkBuildings int64
	// BBox, when set, restricts the build to the buildings meeting it
	// (WGS84, the bbox search's test): the others are answered on demand.
	BBox *geo.BBox
	// Progress, when set, is called with the buildings done and the total.
	Progress func(done, total int64)
}

// Failure is a building left out of the store and why.
type Failure struct{ GMLID, Reason string }

// Result is what Build did.
type Result struct {
	Manifest  pack.Manifest
	Info      solarstore.Info
	Computed  int64  // buildings computed by this run
	Resumed   int64  // buildings taken from an interrupted run's checkpoints
	Restarted string // why an interrupted run's checkpoints were not used ("": none, or none there)
	Failed    []Failure
}

// ErrFailed reports buildings that failed under Options.Strict.
var ErrFailed = errors.New("solarbuild: buildings failed")

const (
	journalName = "build-solar.json"
	chunkDir    = "chunks"
	// journalFormat names the checkpoint layout; another is not resumed.
	journalFormat = "svc-solar-build/2"
)

// journal names the inputs of a build; checkpoints of other inputs are
// not resumed.
type journal struct {
	Format         string    `json:"format"`
	BL             string    `json:"bl"`
	LoD2Snapshot   string    `json:"lod2_snapshot"`
	LoD2SHA256     string    `json:"lod2_sha256"`
	ClimateSHA256  string    `json:"climate_sha256"`
	Inputs         []string  `json:"inputs"`
	ChunkBuildings int64     `json:"chunk_buildings"`
	BBox           []float64 `json:"bbox_wgs84,omitempty"`
}

// Build computes every building of o.LoD2 and publishes the solar pack
// <data>/solar/<bl>/<LoD2 snapshot>/ (the snapshot of the LoD2 pack whose
// surface ids it holds; a rebuild replaces it). Errors: a
// tiles3d.MissingError without a DGM in the LoD2 pack's CRS, ErrFailed
// under Strict, the stores', ctx's (the checkpoints are kept for Resume).
func Build(ctx context.Context, o Options) (Result, error) {
	if o.LoD2 == nil || o.LoD2Manifest.LoD2 == nil || (o.Climate == nil && o.DefaultClimate == nil) {
		return Result{}, errors.New("solarbuild: LoD2 pack and climate required")
	}
	in := roofsolar.Inputs{LoD2: o.LoD2, Terrain: o.Terrain, Vegetation: o.Vegetation, Workers: 1}
	if !in.HasDGM() {
		return Result{}, &tiles3d.MissingError{Product: pack.Terrain, BL: o.LoD2Manifest.BL, DataDir: o.DataDir}
	}
	if o.Workers < 1 {
		o.Workers = 1
	}
	if o.ChunkBuildings < 1 {
		o.ChunkBuildings = 1000
	}
	lm := o.LoD2Manifest
	w, fresh, err := pack.CreateResumable(o.DataDir, pack.Key{Product: pack.Solar, BL: lm.BL, Snapshot: lm.Snapshot})
	if err != nil {
		return Result{}, fmt.Errorf("solarbuild: %w", err)
	}
	// An earlier run's directory is kept on failure whatever this run did.
	b := &build{o: o, in: in, w: w, kept: !fresh, j: journal{Format: journalFormat, BL: lm.BL, LoD2Snapshot: lm.Snapshot,
		LoD2SHA256: lm.FileSHA256(lm.LoD2.File), ClimateSHA256: climateSHA256(o), Inputs: in.Keys(), ChunkBuildings: o.ChunkBuildings}}
	if o.BBox != nil {
		b.j.BBox = []float64{o.BBox.MinLon, o.BBox.MinLat, o.BBox.MaxLon, o.BBox.MaxLat}
	}
	res, err := b.run(ctx, fresh)
	if err != nil {
		if b.kept {
			w.Suspend()
		} else {
			w.Abort()
		}
		return res, err
	}
	return res, nil
}

// climateSHA256 is the identity of the build's climate: the file's
// SHA-256 or the default climate's.
func climateSHA256(o Options) string {
	if o.Climate != nil {
		return o.Climate.SHA256
	}
	return roofsolar.DefaultSHA256()
}

type build struct {
	o    Options
	in   roofsolar.Inputs
	w    *pack.Writer
	j    journal
	kept bool // the directory holds checkpoints worth resuming
	done atomic.Int64
	res  Result
	// spans are the chunks: building ids first to last, only those of ids
	// when ids is not nil (a build restricted to a bbox).
	spans []span
	total int64
}

type span struct {
	first, last int64
	ids         []int64
}

func (b *build) run(ctx context.Context, fresh bool) (Result, error) {
	if err := b.takeOver(fresh); err != nil {
		return b.res, err
	}
	if err := b.plan(ctx); err != nil {
		return b.res, err
	}
	for k, sp := range b.spans {
		if err := b.chunk(ctx, int64(k), sp); err != nil {
			return b.res, err
		}
	}
	return b.finish(ctx)
}

// plan splits the building ids into chunks: ranges of ChunkBuildings ids,
// or with a bbox runs of ChunkBuildings of the ids meeting it.
func (b *build) plan(ctx context.Context) error {
	c := b.o.ChunkBuildings
	if b.o.BBox != nil {
		ids, err := b.o.LoD2.BuildingIDsIn(ctx, *b.o.BBox, -1)
		if err != nil {
			return fmt.Errorf("solarbuild: %w", err)
		}
		for lo := int64(0); lo < int64(len(ids)); lo += c {
			part := ids[lo:min(lo+c, int64(len(ids)))]
			b.spans = append(b.spans, span{first: part[0], last: part[len(part)-1], ids: part})
		}
		b.total = int64(len(ids))
		return nil
	}
	maxID, err := b.o.LoD2.MaxBuildingID(ctx)
	if err != nil {
		return fmt.Errorf("solarbuild: %w", err)
	}
	for k := int64(0); k*c < maxID; k++ {
		b.spans = append(b.spans, span{first: k*c + 1, last: min((k+1)*c, maxID)})
	}
	b.total, _ = b.o.LoD2.Counts()
	return nil
}

// takeOver clears the resumable directory unless it holds checkpoints of
// the same inputs and Resume is set, and writes the journal.
func (b *build) takeOver(fresh bool) error {
	if !fresh {
		why := "build run without --resume"
		if b.o.Resume {
			why = b.sameInputs()
		}
		if why != "" {
			if _, err := os.Stat(filepath.Join(b.w.Dir(), journalName)); err == nil {
				b.res.Restarted = why
			}
			if err := b.w.Clear(); err != nil {
				return fmt.Errorf("solarbuild: %w", err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(b.w.Dir(), chunkDir), 0o755); err != nil {
		return fmt.Errorf("solarbuild: %w", err)
	}
	if err := writeJSONAtomic(filepath.Join(b.w.Dir(), journalName), b.j); err != nil {
		return fmt.Errorf("solarbuild: journal: %w", err)
	}
	return nil
}

// chunk computes the buildings of chunk k unless an earlier run wrote
// them.
func (b *build) chunk(ctx context.Context, k int64, sp span) error {
	if n, ok := chunkDone(b.w.Dir(), k); ok {
		b.res.Resumed += n
		b.kept = true
		b.progress(n)
		return nil
	}
	var bs []*lod2store.RoofBuilding
	next := 0
	if err := b.o.LoD2.RoofsIn(ctx, sp.first, sp.last, func(rb *lod2store.RoofBuilding) error {
		if sp.ids != nil {
			for next < len(sp.ids) && sp.ids[next] < rb.BuildingID {
				next++
			}
			if next == len(sp.ids) || sp.ids[next] != rb.BuildingID {
				return nil
			}
		}
		bs = append(bs, rb)
		return nil
	}); err != nil {
		return fmt.Errorf("solarbuild: %w", err)
	}
	recs := make([]record, len(bs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.o.Workers)
	shading := b.in.Evaluated()
	for i, rb := range bs {
		g.Go(func() error {
			rec, err := b.compute(gctx, rb, shading)
			if err != nil {
				if cerr := gctx.Err(); cerr != nil {
					return cerr
				}
				rec = record{b: solarstore.Building{ID: rb.BuildingID, GMLID: rb.GMLID}, failed: err.Error()}
			}
			recs[i] = rec
			b.progress(1)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := writeChunk(b.w.Dir(), k, recs); err != nil {
		return fmt.Errorf("solarbuild: checkpoint: %w", err)
	}
	b.res.Computed += int64(len(bs))
	b.kept = true
	return nil
}

// compute computes building rb under the build's climate: the file, or
// the default climate of the cell of its first roof vertex, whose best
// plane each of its facets then holds (their share_of_best's base). A
// building without roof facets needs no climate.
func (b *build) compute(ctx context.Context, rb *lod2store.RoofBuilding, shading string) (record, error) {
	c := b.o.Climate
	if c == nil {
		if lon, lat, ok := roofsolar.FacetLonLat(rb.Facets); ok {
			var err error
			if c, err = b.o.DefaultClimate.At(ctx, lat, lon); err != nil {
				return record{}, err
			}
		} else if len(rb.Facets) > 0 {
			return record{}, fmt.Errorf("solarbuild: building %q: no roof vertex to place it", rb.GMLID)
		}
	}
	r, err := roofsolar.Compute(ctx, c, b.in, rb.Facets)
	if err != nil {
		return record{}, err
	}
	sb := roofsolar.ToStore(rb, r, shading)
	if b.o.Climate == nil && c != nil {
		best := int64(math.Round(c.BestWhM2))
		for i := range sb.Facets {
			sb.Facets[i].BestWhM2 = best
		}
	}
	return record{b: sb}, nil
}

func (b *build) progress(n int64) {
	d := b.done.Add(n)
	if b.o.Progress != nil {
		b.o.Progress(d, b.total)
	}
}

// chunkDone returns the record count of chunk k when a complete file of it
// exists.
func chunkDone(dir string, k int64) (int64, bool) {
	c, err := openChunk(chunkPath(dir, k))
	if err != nil {
		return 0, false
	}
	defer c.Close()
	if c.n > math.MaxInt64 {
		return 0, false
	}
	return int64(c.n), true
}

// sameInputs says why the journal in the directory is not one of this
// build's inputs ("" when it is).
func (b *build) sameInputs() string {
	var j journal
	if err := readJSON(filepath.Join(b.w.Dir(), journalName), &j); err != nil {
		return "no checkpoint of a solar build there"
	}
	switch {
	case j.Format != b.j.Format:
		return "checkpoints of another format (" + j.Format + ")"
	case j.LoD2SHA256 != b.j.LoD2SHA256 || j.LoD2Snapshot != b.j.LoD2Snapshot:
		return "checkpoints of another LoD2 pack"
	case j.ClimateSHA256 != b.j.ClimateSHA256:
		return "checkpoints computed with another climate (file or default)"
	case fmt.Sprint(j.Inputs) != fmt.Sprint(b.j.Inputs):
		return fmt.Sprintf("checkpoints computed with other terrain or vegetation packs (%v)", j.Inputs)
	case j.ChunkBuildings != b.j.ChunkBuildings:
		return "checkpoints of another chunk size"
	case fmt.Sprint(j.BBox) != fmt.Sprint(b.j.BBox):
		return "checkpoints of another --bbox"
	}
	return ""
}
