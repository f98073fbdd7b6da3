package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// An import over a previous snapshot first looks every input up there
// (hashing it) and, when any file is unchanged, writes the new pack by
// patching a copy of the previous one (lod2store.PatchLoD2): the changed
// files' rows replace those of the files gone, nothing else is written
// again. What a user sees equals a full import of the same files but for
// the ids of the new rows (docs/import.md). When the previous pack cannot
// be patched (lod2store.ErrNoPatch: written before its exact extent was
// recorded, files in another order, the extent changes, a changed file
// repeats a gml:id of a later unchanged one), the import writes a new pack
// copying the unchanged files' rows instead (lod2reuse.go), and says why in
// the summary's NoPatch.
//
// A patching import keeps no checkpoints: killed, it leaves the previous
// snapshot published and untouched, and --resume starts it over (it costs
// what it costs: the changed files).

// match is an input's lookup in the previous pack.
type match struct {
	src  *lod2store.SourceFile // same content there; nil: none
	sum  string
	kept *journalFile // the summary taken over, when its rows are kept
}

// patchAll imports by patching the previous pack.
func (imp *lod2Import) patchAll(w *pack.Writer) (pack.Manifest, error) {
	known, err := imp.lookupAll(imp.ctx)
	if err != nil {
		return pack.Manifest{}, err
	}
	imp.known = known // also for writing a new pack, should patching fail
	pw, _, err := lod2store.PatchLoD2(imp.ctx, filepath.Join(imp.dir, LoD2File), imp.prev.path)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	imp.w, imp.epsg = pw, imp.prev.epsg
	claimed := map[int64]bool{}
	any := false
	for i := range known {
		k := &known[i]
		if k.src == nil || claimed[k.src.FileID] {
			continue
		}
		f, ok := renamedSummary(k.src, imp.inputs[i].Name, i)
		if !ok {
			continue
		}
		data, err := json.Marshal(f)
		if err != nil {
			return pack.Manifest{}, err
		}
		rel, ns := stamp(imp.inputs[i])
		kf := lod2store.SourceFile{Name: imp.inputs[i].Name, Summary: string(data), Rel: rel, MTimeNS: ns}
		if err := pw.KeepFile(imp.ctx, k.src.FileID, i, kf); err != nil {
			return pack.Manifest{}, fmt.Errorf("importer: %w", err)
		}
		claimed[k.src.FileID], k.kept, any = true, &f, true
	}
	if !any {
		return pack.Manifest{}, fmt.Errorf("%w: no file is unchanged", lod2store.ErrNoPatch)
	}
	if err := pw.Drop(imp.ctx); err != nil {
		return pack.Manifest{}, fmt.Errorf("importer: %w", err)
	}
	// The inputs not kept are parsed, however they matched.
	for i := range known {
		if known[i].kept == nil {
			known[i].src = nil
		}
	}
	imp.patching = true
	return imp.finishAll(w, 0)
}

// lookupAll hashes every input, on c.Workers goroutines, and finds it in
// the previous pack.
func (imp *lod2Import) lookupAll(ctx context.Context) ([]match, error) {
	out := make([]match, len(imp.inputs))
	workers := imp.c.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, len(imp.inputs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				src, sum, err := imp.prev.lookup(&fileResult{idx: i, in: imp.inputs[i]})
				if err == nil { // an unreadable file is parsed, and reported bad, later
					out[i] = match{src: src, sum: sum}
				}
			}
		}()
	}
	var err error
	for i := range imp.inputs {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out, err
}

// keptFile takes over the summary of an input whose rows the patched pack
// keeps.
func (imp *lod2Import) keptFile(res *fileResult) {
	f := *imp.known[res.idx].kept
	imp.replay(f)
	imp.files.Add(-1) // write counts the file
	imp.bytes.Add(-f.Size)
	res.copied = &f
	imp.reused++
}

// renamedSummary is the summary the previous import kept of src, under
// the file's present name and input index; false when it does not parse.
func renamedSummary(src *lod2store.SourceFile, name string, idx int) (journalFile, bool) {
	var f journalFile
	if err := json.Unmarshal([]byte(src.Summary), &f); err != nil {
		return f, false
	}
	rename := func(at string) string {
		if rest, ok := strings.CutPrefix(at, src.Name+":"); ok {
			return name + ":" + rest
		}
		return at
	}
	for i := range f.Invalid {
		f.Invalid[i].Source = rename(f.Invalid[i].Source)
	}
	for i := range f.Skipped {
		f.Skipped[i][1] = rename(f.Skipped[i][1])
	}
	f.Name, f.I = name, idx
	return f, true
}
