package importer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/terrain"
)

// RasterSummary is what a raster import did with its sources.
type RasterSummary struct {
	Converted int // tiles converted (or copied, mirror mode) from their source
	Resumed   int // tiles an interrupted import had finished (--resume)
	Reused    int // tiles linked from the previous snapshot: same source bytes and recipe
	// BadFiles lists the bad sources left out, with why, in input order
	// (never with Common.Strict); the LoD2 import's type.
	BadFiles []BadFile
}

// How a tile came to be.
const (
	tileConverted = iota
	tileResumed
	tileReused
	tileSkipped
)

// tileResult is the outcome of one input.
type tileResult struct {
	rec  tileRecord
	role *roleStats // merged into the layer's as soon as the tile is done
	how  int
	err  error // the source's error when skipped
}

// start opens the work directory (not for pass-through, which writes no
// tiles).
func (ri *rasterImport) start(key pack.Key) error {
	if ri.workers = ri.c.Workers; ri.workers <= 0 {
		ri.workers = runtime.NumCPU()
	}
	ri.recipe = fmt.Sprintf("%s|EPSG:%d|%s", ri.mode, ri.epsg, cogRecipe)
	if ri.mode == ModePassThrough {
		return nil
	}
	wk, err := openWork(ri.c.DataDir, key, ri.c.Resume)
	if err != nil {
		return err
	}
	ri.work = wk
	return nil
}

// close releases the work directory after a failure: kept with its
// journal for --resume when the import was interrupted, removed when it
// was refused (see Resumable).
func (ri *rasterImport) close(err error) {
	switch {
	case ri.work == nil:
	case refused(err):
		ri.work.remove()
	default:
		ri.work.close()
	}
}

// finish removes the work directory of a committed import.
func (ri *rasterImport) finish() {
	if ri.work != nil {
		ri.work.remove()
		ri.work = nil
	}
}

// assemble moves the finished tiles into the pack directory, verified.
func (ri *rasterImport) assemble(w *pack.Writer, recs []tileRecord) error {
	if ri.work == nil {
		return nil
	}
	return ri.work.assemble(w, recs, ri.workers)
}

// layer imports the sources of one layer (sub is its directory in the
// pack) with ri.workers at once and returns its tiles and their
// records in name order. Bad sources are skipped (or stop the import with
// Strict); a layer with no good source fails.
func (ri *rasterImport) layer(ctx context.Context, sub string, paths []string) ([]terrain.Tile, []tileRecord, error) {
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%w: no input for %s", ErrOptions, sub)
	}
	ins, zips, err := rasterInputs(paths)
	if err != nil {
		return nil, nil, err
	}
	defer zips.Close()
	if err := ri.checkInputs(ins); err != nil {
		return nil, nil, err
	}
	if ri.work != nil {
		if err := os.MkdirAll(filepath.Join(ri.work.dir, sub), 0o755); err != nil {
			return nil, nil, fmt.Errorf("importer: %w", err)
		}
	}
	ri.place, ri.role = newPlaceCheck(ri.st), newRoleStats()
	ri.prog = Progress{FilesTotal: len(ins)}
	for _, in := range ins {
		ri.prog.BytesTotal += in.size
	}
	res, err := ri.inputs(ctx, sub, ins)
	if err != nil {
		return nil, nil, err
	}
	return ri.collect(sub, ins, res)
}

// inputs makes the tiles of ins, ri.workers at once, and returns
// their outcomes in input order. It stops at the first write failure, at
// a bad source with Strict, and when ctx ends.
func (ri *rasterImport) inputs(ctx context.Context, sub string, ins []rasterInput) ([]tileResult, error) {
	res := make([]tileResult, len(ins))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(ri.workers)
	for i, in := range ins {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r := ri.input(gctx, sub, in)
			if r.how == tileSkipped {
				var ioe ioError
				if ri.c.Strict || errors.As(r.err, &ioe) || gctx.Err() != nil {
					return fmt.Errorf("importer: %s: %w", in.name, r.err)
				}
			}
			ri.done(in, &r)
			res[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ri.mu.Lock()
	ri.report(true)
	ri.mu.Unlock()
	return res, nil
}

// done merges a finished tile's role samples (counts and medians do not
// depend on the order tiles are added in; merged now, the tile's samples
// are freed) and advances the progress.
func (ri *rasterImport) done(in rasterInput, r *tileResult) {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	if r.role != nil {
		ri.role.merge(r.role)
		r.role = nil
	}
	ri.prog.File = in.name
	ri.prog.Files++
	ri.prog.Bytes += in.size
	if r.how == tileSkipped {
		ri.prog.BadFiles++
	} else {
		ri.prog.Tiles++
	}
	ri.report(false)
}

// collect takes the outcomes in input order: the tiles and their records,
// the place check, the summary; then checks the layer.
func (ri *rasterImport) collect(sub string, ins []rasterInput, res []tileResult) ([]terrain.Tile, []tileRecord, error) {
	tiles := make([]terrain.Tile, 0, len(ins))
	recs := make([]tileRecord, 0, len(ins))
	var skipped []BadFile
	for i, r := range res {
		if r.how == tileSkipped {
			skipped = append(skipped, BadFile{Name: ins[i].name, Reason: r.err.Error()})
			continue
		}
		tiles = append(tiles, r.rec.Tile)
		if r.rec.Tile.Path != "" && ri.work != nil {
			recs = append(recs, r.rec)
		}
		ri.place.addBBox(ins[i].name, ri.zone, r.rec.Tile.BBox)
		ri.count(r.how)
	}
	if s := ri.summary; s != nil {
		s.BadFiles = append(s.BadFiles, skipped...)
	}
	if len(tiles) == 0 {
		return nil, nil, fmt.Errorf("%w: none of the %d %s sources could be imported; the first: %s: %s",
			ErrOptions, len(ins), sub, skipped[0].Name, skipped[0].Reason)
	}
	if err := ri.checkLayer(sub); err != nil {
		return nil, nil, err
	}
	return tiles, recs, nil
}

// count adds a tile's outcome to the summary.
func (ri *rasterImport) count(how int) {
	s := ri.summary
	if s == nil {
		return
	}
	switch how {
	case tileConverted:
		s.Converted++
	case tileResumed:
		s.Resumed++
	case tileReused:
		s.Reused++
	}
}

// input makes the tile of one source: from the journal of an interrupted
// import (--resume), linked from the previous snapshot when the source's
// bytes are unchanged, or converted; it is journaled once on disk.
func (ri *rasterImport) input(ctx context.Context, sub string, in rasterInput) tileResult {
	r := tileResult{role: newRoleStats()}
	if ri.work == nil { // pass-through: the index only
		r.rec.Tile, r.err = ri.tile(ctx, "", "", in, r.role)
		if r.err != nil {
			r.how = tileSkipped
		}
		return r
	}
	rel := path.Join(sub, in.stem+".tif")
	fail := func(err error) tileResult { return tileResult{how: tileSkipped, err: err} }
	src, err := in.sha256()
	if err != nil {
		return fail(err)
	}
	recipe := ri.recipe
	if ri.mask != nil {
		recipe += "|mask:" + ri.maskSHA
	}
	dst := filepath.Join(ri.work.dir, filepath.FromSlash(rel))
	if rec, ok := ri.work.finished(sub, in.stem, src, recipe); ok {
		r.rec, r.how = rec, tileResumed
		return ri.statsOf(ctx, dst, r)
	}
	if rec, ok, err := ri.work.reuse(src, recipe, rel); err != nil {
		return fail(ioError{err})
	} else if ok {
		rec.Layer, rec.Tile.Name, rec.Tile.Path = sub, in.stem, rel
		r.rec, r.how = rec, tileReused
		if err := ri.work.record(rec); err != nil {
			return fail(ioError{err})
		}
		// Not sampled for the role check: the same bytes were published
		// as this product in the previous snapshot.
		return r
	}
	part := dst + ".part"
	t, err := ri.tile(ctx, part, rel, in, r.role)
	if err != nil {
		os.Remove(part)
		return fail(err)
	}
	sum, err := fileSHA256(part)
	if err == nil {
		err = os.Rename(part, dst)
	}
	r.rec = tileRecord{Layer: sub, Source: src, Recipe: recipe, Tile: t, SHA256: sum}
	if err == nil {
		err = ri.work.record(r.rec)
	}
	if err != nil {
		return fail(ioError{err})
	}
	return r
}

// statsOf samples a finished tile's file for the role check (the tile was
// not read this run).
func (ri *rasterImport) statsOf(ctx context.Context, file string, r tileResult) tileResult {
	f, err := raster.OpenFile(file)
	if err != nil {
		return tileResult{how: tileSkipped, err: ioError{err}}
	}
	defer f.Close()
	c, err := raster.Open(ctx, f, nil)
	if err != nil {
		return tileResult{how: tileSkipped, err: ioError{err}}
	}
	defer c.Close()
	if err := r.role.addCOG(ctx, c); err != nil {
		return tileResult{how: tileSkipped, err: ioError{err}}
	}
	return r
}

// sha256 is the SHA-256 of the source's bytes (a zip entry's uncompressed
// ones).
func (in rasterInput) sha256() (string, error) {
	if in.zf == nil {
		return fileSHA256(in.path)
	}
	rc, err := in.zf.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	return readerSHA256(rc)
}

// merge adds the samples of o to s.
func (s *roleStats) merge(o *roleStats) {
	s.n += o.n
	s.empty += o.empty
	s.neg += o.neg
	s.pairs += o.pairs
	s.edges += o.edges
	s.vals.merge(&o.vals)
	s.diffs.merge(&o.diffs)
}
