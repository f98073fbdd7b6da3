package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/lod2store"
)

// maxInFlightBytes caps the source bytes of the files parsed but not yet
// written (a parsed file takes about twice its size in memory): with
// 2 x workers files also the cap, peak memory follows the worker count and
// the file sizes, never the number of files. One file is always admitted,
// however large.
const maxInFlightBytes = 256 << 20

// BadFile is an input file an import skipped: unreadable, malformed, or
// not in the import's CRS.
type BadFile struct {
	Name   string // as citygml.Input names it (path, or archive.zip!entry)
	Reason string
}

// run parses the inputs with imp.workers goroutines and writes the
// results in input order from the calling goroutine, so the pack does not
// depend on the worker count or on which file finishes first.
func (imp *lod2Import) run(ctx context.Context, from int) error {
	// The workers stop when the writer does; the writer's own context
	// (which its SQLite transaction is bound to) lives on until Finish.
	wctx, cancel := context.WithCancel(ctx)
	n := len(imp.inputs)
	workers := max(1, min(imp.c.Workers, n))
	if imp.c.Workers <= 0 {
		workers = max(1, min(runtime.NumCPU(), n))
	}
	maxFiles := 2 * workers
	jobs := make(chan int, maxFiles)
	results := make(chan *fileResult, maxFiles)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &worker{st: imp.st, preps: map[int]*lod2store.Preparer{}, bytes: &imp.bytes, parsed: &imp.parsed, prev: imp.prev, known: imp.known}
			for i := range jobs {
				results <- wk.parse(wctx, i, imp.inputs[i])
			}
		}()
	}
	stopProgress := imp.startProgress()
	defer func() {
		cancel()
		close(jobs)
		wg.Wait()
		stopProgress()
	}()
	pending := map[int]*fileResult{}
	disp, inFlight := from, int64(0)
	for next := from; next < n; {
		// Dispatch while the budget allows; jobs and results have room for
		// every dispatched file, so neither send blocks.
		for disp < n && (disp == next || disp-next < maxFiles && inFlight+imp.inputs[disp].Size <= maxInFlightBytes) {
			jobs <- disp
			inFlight += imp.inputs[disp].Size
			disp++
		}
		res := pending[next]
		if res == nil {
			select {
			case r := <-results:
				pending[r.idx] = r
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		delete(pending, next)
		if err := imp.write(ctx, res); err != nil {
			return err
		}
		inFlight -= res.in.Size
		next++
	}
	if len(imp.jr.pending) > 0 && !imp.patching {
		if err := imp.jr.checkpoint(imp, n); err != nil {
			return err
		}
	}
	if imp.w == nil || imp.written.Load() == 0 {
		return fmt.Errorf("%w: no buildings found in %d input file(s)%s", ErrOptions, n, imp.badNote())
	}
	return nil
}

// badNote says how many files were skipped, for the "no buildings" error.
func (imp *lod2Import) badNote() string {
	if len(imp.bad) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d skipped as bad, e.g. %s: %s)", len(imp.bad), imp.bad[0].Name, imp.bad[0].Reason)
}

// write adds one parsed file to the pack, or records it as bad, and
// journals it.
func (imp *lod2Import) write(ctx context.Context, res *fileResult) error {
	imp.lastFile.Store(&res.in.Name)
	var mark lod2store.Mark
	if imp.w != nil {
		mark = imp.w.MarkInput(res.idx)
	}
	if res.reuse != nil && imp.patching {
		imp.keptFile(res)
	} else if res.reuse != nil {
		ok, err := imp.copyFile(ctx, res)
		if err != nil {
			return err
		}
		if !ok { // parse it after all, here
			wk := &worker{st: imp.st, preps: map[int]*lod2store.Preparer{}, bytes: &imp.bytes, parsed: &imp.parsed}
			imp.bytes.Add(-res.in.Size)
			res = wk.parse(ctx, res.idx, res.in)
		}
	}
	if res.copied != nil {
		imp.files.Add(1)
		return imp.journalFile(ctx, res, mark, *res.copied)
	}
	inv, skip := len(imp.invalidDetail), len(imp.skipped)
	var prefixes map[string]int
	var example map[string]string
	if err := imp.writeFile(ctx, res, func(id string) {
		if st, ok := bl.ForID(id); ok {
			if prefixes == nil {
				prefixes, example = map[string]int{}, map[string]string{}
			}
			prefixes[st.Code]++
			if example[st.Code] == "" {
				example[st.Code] = id
			}
		}
	}); err != nil {
		return err
	}
	for code, n := range prefixes {
		imp.addPrefix(code, n, example[code])
	}
	imp.files.Add(1)
	return imp.journalFile(ctx, res, mark, imp.journalEntry(res, inv, skip, prefixes, example))
}

// journalFile records a written file as a source of the pack (unless it
// was bad) and in the journal, checkpointing every checkpointBytes.
func (imp *lod2Import) journalFile(ctx context.Context, res *fileResult, mark lod2store.Mark, f journalFile) error {
	if res.err == nil && imp.w != nil && !(imp.patching && res.copied != nil) {
		summary, err := json.Marshal(f)
		if err != nil {
			return err
		}
		rel, ns := stamp(res.in)
		src := lod2store.SourceFile{Name: res.in.Name, Size: res.in.Size, SHA256: res.sha256, Summary: string(summary), Rel: rel, MTimeNS: ns, Input: res.idx}
		if err := imp.w.AddSourceFile(ctx, mark, src); err != nil {
			return fmt.Errorf("importer: %w", err)
		}
	}
	imp.jr.pending = append(imp.jr.pending, f)
	imp.jr.since += res.in.Size
	if imp.jr.since >= checkpointBytes && !imp.patching {
		return imp.jr.checkpoint(imp, res.idx+1)
	}
	return nil
}

func (imp *lod2Import) writeFile(ctx context.Context, res *fileResult, prefix func(id string)) error {
	if res.err == nil && res.epsg != 0 && imp.w != nil && res.epsg != imp.epsg {
		res.err = fmt.Errorf("%s: its buildings are in EPSG:%d but the import is in EPSG:%d (set by its first file); import each CRS as its own BL pack",
			res.in.Name, res.epsg, imp.epsg)
	}
	if res.err != nil {
		if imp.c.Strict {
			return fmt.Errorf("importer: %w (--strict stops at the first bad file)", res.err)
		}
		imp.bad = append(imp.bad, BadFile{Name: res.in.Name, Reason: res.err.Error()})
		imp.badFiles.Add(1)
		return nil
	}
	if res.epsg != 0 && imp.w == nil {
		if err := imp.createWriter(res.epsg); err != nil {
			return fmt.Errorf("importer: %s: %w", res.in.Name, err)
		}
	}
	for i, p := range res.blds {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		m := res.meta[i]
		out, err := imp.w.AddPrepared(ctx, p)
		if err != nil {
			return fmt.Errorf("importer: %s:%d: %w", res.in.Name, m.line, err)
		}
		imp.tallyBuilding(res.in.Name, m, out)
		prefix(m.id)
	}
	if res.tally != nil {
		imp.place.addTally(res.in.Name, res.tally)
	}
	return nil
}

// tallyBuilding notes a written building in the summary.
func (imp *lod2Import) tallyBuilding(name string, m buildingMeta, out lod2store.Outcome) {
	switch {
	case out == lod2store.Duplicate:
	case out == lod2store.Empty:
		imp.skipped = append(imp.skipped, m.id)
		imp.skippedAt = append(imp.skippedAt, fmt.Sprintf("%s:%d", name, m.line))
	case m.detail != nil:
		imp.invalid = append(imp.invalid, m.id)
		imp.invalidDetail = append(imp.invalidDetail, *m.detail)
	}
	imp.written.Add(1)
}

// addPrefix counts n building ids of the BL code, e.g. the id example.
func (imp *lod2Import) addPrefix(code string, n int, example string) {
	if imp.prefixes == nil {
		imp.prefixes, imp.example = map[string]int{}, map[string]string{}
	}
	imp.prefixes[code] += n
	if imp.example[code] == "" {
		imp.example[code] = example
	}
}

// progressEvery is how often Common.Progress is called.
const progressEvery = 100 * time.Millisecond

// startProgress calls Common.Progress from its own goroutine every
// progressEvery until the returned function is called, which reports
// once more.
func (imp *lod2Import) startProgress() func() {
	if imp.c.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				imp.c.Progress(imp.progress())
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		imp.c.Progress(imp.progress())
	}
}

// progress is a snapshot of the counters.
func (imp *lod2Import) progress() Progress {
	p := Progress{Files: int(imp.files.Load()), FilesTotal: len(imp.inputs), Bytes: imp.bytes.Load(),
		BytesTotal: imp.bytesTotal, Buildings: imp.written.Load(), BadFiles: int(imp.badFiles.Load()), BytesResumed: imp.bytesResumed}
	if f := imp.lastFile.Load(); f != nil {
		p.File = *f
	}
	p.Bytes = min(p.Bytes, p.BytesTotal)
	if p.Files == p.FilesTotal {
		p.Bytes = p.BytesTotal // bad files stop early
	}
	return p
}

// inputsTotal is the summed size of the inputs.
func inputsTotal(ins []citygml.Input) int64 {
	var n int64
	for _, in := range ins {
		n += in.Size
	}
	return n
}
