package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"

	"github.com/svc-geodata/svc/citygml"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// An import reuses the previous snapshot: a file whose size and SHA-256
// equal those of a source file of the newest other published LoD2 pack of
// the BL has its buildings, surfaces and search records copied from that
// pack (lod2store.CopySource) instead of parsed, with the same result.
// Not reused: files that repeated gml:ids of earlier files there (which
// building a repeat keeps depends on the files before it), files whose
// gml:ids clash with those written before them now, and packs in another
// CRS or written before source files were recorded.

// An input whose relative name, size and modification time (ns) equal
// those the previous pack recorded of one of its files is taken to have
// that file's content without being read, as rsync's quick check does;
// any difference, a name recorded twice, or Common.Checksum, and it is
// hashed. The content's SHA-256 stays what identifies a file.

// previous is the pack an import copies unchanged files from.
type previous struct {
	path     string // its LoD2 file
	snapshot string
	epsg     int
	byKey    map[string]lod2store.SourceFile // sha256 + "/" + size
	byRel    map[string]lod2store.SourceFile // for the quick check; nil with Common.Checksum
	quick    atomic.Int64                    // inputs taken as unchanged without reading them
}

// findPrevious opens the newest published LoD2 pack of the BL other than
// snapshot; nil when there is none or it records no source files.
func findPrevious(ctx context.Context, dataDir, blCode, snapshot string, checksum bool) *previous {
	var best *pack.Found
	for _, f := range pack.List(dataDir) {
		if f.Err != nil || f.Key.Product != pack.LoD2 || f.Key.BL != blCode || f.Key.Snapshot == snapshot || f.Manifest.LoD2 == nil {
			continue
		}
		if best == nil || f.Key.Snapshot > best.Key.Snapshot {
			best = &f
		}
	}
	if best == nil {
		return nil
	}
	path := filepath.Join(best.Dir, best.Manifest.LoD2.File)
	srcs, epsg, err := lod2store.ReadSources(ctx, path)
	if err != nil || len(srcs) == 0 {
		return nil
	}
	p := &previous{path: path, snapshot: best.Key.Snapshot, epsg: epsg, byKey: map[string]lod2store.SourceFile{}}
	if !checksum {
		p.byRel = map[string]lod2store.SourceFile{}
	}
	twice := map[string]bool{}
	for _, s := range srcs {
		if s.Duplicates != 0 {
			continue
		}
		p.byKey[fmt.Sprintf("%s/%d", s.SHA256, s.Size)] = s
		if p.byRel == nil || s.Rel == "" {
			continue
		}
		if _, ok := p.byRel[s.Rel]; ok {
			twice[s.Rel] = true
		}
		p.byRel[s.Rel] = s
	}
	for rel := range twice {
		delete(p.byRel, rel)
	}
	return p
}

// stamp is what the quick check compares of an input besides its size:
// its relative name and modification time in ns; "" when it has no
// usable time.
func stamp(in citygml.Input) (rel string, ns int64) {
	if in.Rel == "" || in.ModTime.IsZero() || in.ModTime.Year() < 1678 || in.ModTime.Year() > 2261 {
		return "", 0 // UnixNano holds years 1678 to 2262
	}
	return in.Rel, in.ModTime.UnixNano()
}

// lookup returns the previous pack's record of the input's content, if
// any, and the content's SHA-256: the record's when the quick check finds
// the input unchanged (not read), else the input is hashed.
func (p *previous) lookup(res *fileResult) (*lod2store.SourceFile, string, error) {
	if rel, ns := stamp(res.in); rel != "" && p.byRel != nil {
		if s, ok := p.byRel[rel]; ok && s.Size == res.in.Size && s.MTimeNS == ns {
			p.quick.Add(1)
			return &s, s.SHA256, nil
		}
	}
	rc, err := res.in.Open()
	if err != nil {
		return nil, "", err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return nil, "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if s, ok := p.byKey[fmt.Sprintf("%s/%d", sum, n)]; ok {
		return &s, sum, nil
	}
	return nil, sum, nil
}

// copyFile writes a reused file from the previous pack. It reports false
// when the rows cannot be copied (a gml:id clash, another CRS): the caller
// parses the file instead.
func (imp *lod2Import) copyFile(ctx context.Context, res *fileResult) (bool, error) {
	src := res.reuse
	if imp.w != nil && imp.epsg != imp.prev.epsg {
		return false, nil
	}
	f, ok := renamedSummary(src, res.in.Name, res.idx)
	if !ok {
		return false, nil
	}
	if imp.w == nil {
		if err := imp.createWriter(imp.prev.epsg); err != nil {
			return false, fmt.Errorf("importer: %s: %w", res.in.Name, err)
		}
	}
	if _, err := imp.w.CopySource(ctx, *src); errors.Is(err, lod2store.ErrConflict) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("importer: %s: %w", res.in.Name, err)
	}
	imp.replay(f)
	imp.files.Add(-1) // write counts the file
	imp.bytes.Add(-f.Size)
	res.copied = &f
	imp.reused++
	return true, nil
}

// createWriter creates the store in the CRS epsg.
func (imp *lod2Import) createWriter(epsg int) error {
	prev := ""
	if imp.prev != nil && imp.prev.epsg == epsg {
		prev = imp.prev.path
	}
	w, err := lod2store.CreateLoD2From(imp.ctx, filepath.Join(imp.dir, LoD2File), epsg, prev)
	if err != nil {
		return err
	}
	imp.w, imp.epsg = w, epsg
	return nil
}
