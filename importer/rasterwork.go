package importer

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// A raster import converts its tiles into a work directory beside the
// snapshots of its BL, <data>/<product>/<bl>/.resume-<snapshot>/ (made,
// locked, cleared and removed by pack.CreateResumable like the LoD2
// import's), and
// appends a line to its journal for each tile once the tile's file is on
// disk (written, fsynced, renamed). Only when every tile is done does it
// create the pack, hard-link the tiles into it, check each against the
// journal's SHA-256 and commit: a killed import publishes nothing, and
// --resume takes up its journal and converts only the tiles it lacks.
// The work directory is not committed itself: the tiles are linked into a
// pack.Create directory, so that a resumed import whose inputs changed
// publishes only the tiles of this run, never a stale one left in the work
// directory. Readers and pack.Sweep ignore the work directory (its name is
// no snapshot and not .tmp-*); a successful import removes it.
const (
	rasterJournal = "journal.jsonl"
	// SourcesFile lists, in a raster pack, the source of each tile by
	// content (SHA-256) and the conversion that made it, so that the next
	// snapshot's import reuses tiles whose source is unchanged.
	SourcesFile = "sources.json"
	// cogRecipe names the conversion of ModeConvert; change it when
	// writeCOGFile's output changes, so old tiles are not reused.
	cogRecipe = "cog-deflate-pred3-512-v1"
)

// tileRecord is one finished tile: in the journal of a running import and
// in the SourcesFile of a pack.
type tileRecord struct {
	Layer string `json:"layer"`
	// Source is the SHA-256 of the source bytes (uncompressed zip entry).
	Source string `json:"source_sha256"`
	// Recipe is what turned the source into the tile (mode, CRS, recipe,
	// bridge mask); a tile is reused only under the same recipe.
	Recipe string       `json:"recipe"`
	Tile   terrain.Tile `json:"tile"`
	SHA256 string       `json:"sha256"` // of the tile's file
}

// sourcesDoc is the SourcesFile.
type sourcesDoc struct {
	Tiles []tileRecord `json:"tiles"`
}

// rasterWork is the work directory of one raster import.
type rasterWork struct {
	w    *pack.Writer // the resumable directory, never committed
	dir  string
	mu   sync.Mutex
	jf   *os.File
	done map[string]tileRecord // layer/name -> journaled tile
	prev map[string]prevTile   // source sha256 + recipe -> tile of the previous pack
	// Resumed counts tiles found in the journal at the start.
	resumed int
}

// prevTile is a tile of the previous snapshot's pack.
type prevTile struct {
	path string // absolute
	rec  tileRecord
	// sha256 is the file's SHA-256 as the pack's manifest lists it.
	sha256 string
}

// openWork opens (resume) or starts afresh the work directory of key,
// locks it and indexes the newest published pack of the product and BL
// for reuse.
func openWork(dataDir string, key pack.Key, resume bool) (*rasterWork, error) {
	root := filepath.Join(dataDir, string(key.Product), key.BL)
	w, _, err := pack.CreateResumable(dataDir, key)
	if err != nil {
		return nil, fmt.Errorf("importer: %w", err)
	}
	dir := w.Dir()
	wk := &rasterWork{w: w, dir: dir, done: map[string]tileRecord{}}
	if !resume {
		if err := w.Clear(); err != nil {
			wk.close()
			return nil, err
		}
	} else if err := wk.readJournal(); err != nil {
		wk.close()
		return nil, err
	}
	if wk.jf, err = os.OpenFile(filepath.Join(dir, rasterJournal), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		wk.close()
		return nil, fmt.Errorf("importer: %w", err)
	}
	wk.prev = previousTiles(root)
	return wk, nil
}

// readJournal loads the finished tiles of an interrupted import. A torn
// last line (a kill while appending) is ignored: its tile is redone.
func (wk *rasterWork) readJournal() error {
	f, err := os.Open(filepath.Join(wk.dir, rasterJournal))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("importer: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r tileRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Tile.Path == "" {
			continue
		}
		wk.done[r.Layer+"/"+r.Tile.Name] = r
	}
	wk.resumed = len(wk.done)
	return sc.Err()
}

// previousTiles indexes the tiles of the newest published pack under root
// (any snapshot) by source and recipe; empty without one or without a
// SourcesFile.
func previousTiles(root string) map[string]prevTile {
	out := map[string]prevTile{}
	ents, err := os.ReadDir(root)
	if err != nil {
		return out
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() > ents[j].Name() })
	for _, e := range ents {
		if !e.IsDir() || !pack.ValidSnapshot(e.Name()) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		m, err := pack.ReadManifest(dir)
		if err != nil {
			continue
		}
		sums := make(map[string]string, len(m.Files))
		for _, f := range m.Files {
			sums[f.Path] = f.SHA256
		}
		b, err := os.ReadFile(filepath.Join(dir, SourcesFile))
		if err != nil {
			return out
		}
		var doc sourcesDoc
		if json.Unmarshal(b, &doc) != nil {
			return out
		}
		for _, r := range doc.Tiles {
			if r.Source != "" && r.Tile.Path != "" {
				out[r.Source+"|"+r.Recipe] = prevTile{path: filepath.Join(dir, filepath.FromSlash(r.Tile.Path)), rec: r, sha256: sums[r.Tile.Path]}
			}
		}
		return out
	}
	return out
}

// finished returns the journaled tile of layer and name when its source
// and recipe are unchanged and its file is still there.
func (wk *rasterWork) finished(layer, name, source, recipe string) (tileRecord, bool) {
	wk.mu.Lock()
	r, ok := wk.done[layer+"/"+name]
	wk.mu.Unlock()
	if !ok || r.Source != source || r.Recipe != recipe {
		return r, false
	}
	if _, err := os.Stat(filepath.Join(wk.dir, filepath.FromSlash(r.Tile.Path))); err != nil {
		return r, false
	}
	return r, true
}

// reuse hard-links (or copies) the previous pack's tile of the same source
// and recipe into the work directory under rel; ok is false when there is
// none.
func (wk *rasterWork) reuse(source, recipe, rel string) (tileRecord, bool, error) {
	p, ok := wk.prev[source+"|"+recipe]
	if !ok {
		return tileRecord{}, false, nil
	}
	dst := filepath.Join(wk.dir, filepath.FromSlash(rel))
	_ = os.Remove(dst)
	if err := pack.LinkOrCopy(p.path, dst); err != nil {
		return tileRecord{}, false, nil // the old pack went away: convert
	}
	return p.rec, true, nil
}

// record appends a finished tile to the journal (fsynced, so the tile
// counts as done after a crash only when its line is complete).
func (wk *rasterWork) record(r tileRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if _, err := wk.jf.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := wk.jf.Sync(); err != nil {
		return err
	}
	wk.done[r.Layer+"/"+r.Tile.Name] = r
	return nil
}

// assemble hard-links the tiles into the pack directory of w, checking
// each file against its journaled SHA-256 (a tile changed or damaged since
// it was written fails the import: nothing unverified is published), and
// writes the SourcesFile. A tile that is still the previous pack's file
// (the same inode, linked by reuse) is not read: its SHA-256 is the one
// that pack's manifest lists, and w.Reuse hands it on to Commit, so an
// incremental import reads only the tiles it converted.
func (wk *rasterWork) assemble(w *pack.Writer, recs []tileRecord, workers int) error {
	dst := w.Dir()
	g := new(errgroup.Group)
	g.SetLimit(workers)
	for _, r := range recs {
		g.Go(func() error {
			src := filepath.Join(wk.dir, filepath.FromSlash(r.Tile.Path))
			prev, linked := wk.linkedFromPrevious(src, r)
			if !linked {
				sum, err := fileSHA256(src)
				if err != nil {
					return fmt.Errorf("importer: %s: %w", r.Tile.Name, err)
				}
				if sum != r.SHA256 {
					return fmt.Errorf("importer: tile %s changed since it was written (SHA-256 %s, journal %s); run the import again without --resume",
						r.Tile.Name, sum, r.SHA256)
				}
			}
			to := filepath.Join(dst, filepath.FromSlash(r.Tile.Path))
			if err := pack.LinkOrCopy(src, to); err != nil {
				return fmt.Errorf("importer: %s: %w", r.Tile.Name, err)
			}
			if linked {
				w.Reuse(to, prev, r.SHA256)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	sort.Slice(recs, func(i, j int) bool {
		return recs[i].Layer < recs[j].Layer || recs[i].Layer == recs[j].Layer && recs[i].Tile.Name < recs[j].Tile.Name
	})
	b, err := json.MarshalIndent(sourcesDoc{Tiles: recs}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, SourcesFile), append(b, '\n'), 0o644)
}

// linkedFromPrevious reports whether the work directory's file src of r
// is the previous pack's file of the same source and recipe (the same
// inode and size, a hard link made by reuse) whose manifest lists r's
// SHA-256, and returns that file's os.Stat. Published files are never
// written again, so its hash holds without reading it.
func (wk *rasterWork) linkedFromPrevious(src string, r tileRecord) (os.FileInfo, bool) {
	p, ok := wk.prev[r.Source+"|"+r.Recipe]
	if !ok || p.sha256 == "" || p.sha256 != r.SHA256 {
		return nil, false
	}
	pi, err := os.Stat(p.path)
	if err != nil {
		return nil, false
	}
	si, err := os.Stat(src)
	if err != nil || !os.SameFile(pi, si) || pi.Size() != si.Size() {
		return nil, false
	}
	return pi, true
}

// close releases the journal and the lock and keeps the work directory
// for --resume.
func (wk *rasterWork) close() {
	if wk.jf != nil {
		wk.jf.Close()
	}
	wk.w.Suspend()
}

// remove deletes the work directory (and the product and BL directories
// it leaves empty) after a successful or refused import.
func (wk *rasterWork) remove() {
	if wk.jf != nil {
		wk.jf.Close()
	}
	wk.w.Abort()
}

// Resumable reports whether a failed raster import kept its finished
// tiles for --resume: it was interrupted (cancelled, a write failed, a bad
// source with Strict). An import refused for its options or its data
// (ErrOptions, ErrWrongBL, ErrWrongRole) keeps nothing.
func Resumable(err error) bool {
	return err != nil && !refused(err)
}

func refused(err error) bool {
	return errors.Is(err, ErrOptions) || errors.Is(err, ErrWrongBL) || errors.Is(err, ErrWrongRole)
}

// fileSHA256 is the hex SHA-256 of a file.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return readerSHA256(f)
}

func readerSHA256(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
