package pack

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/svc-geodata/svc/bl"
)

// Writer builds one pack in a temporary directory that no reader sees until
// Commit renames it into place.
type Writer struct {
	root    string // <data>/<product>/<bl>
	tmp     string
	key     Key
	started time.Time
	done    bool
	lock    *os.File // held while writing, so Sweep leaves the directory alone
	mu      sync.Mutex
	reused  map[string]reusedFile // by path relative to tmp, slashed
}

// reusedFile is a hard link to a published pack's file (Writer.Reuse).
type reusedFile struct {
	src    os.FileInfo
	sha256 string
}

// Reuse records that path (a file under Dir) is a hard link to a file of a
// published pack, src its os.Stat, whose manifest lists its SHA-256: Commit
// takes that hash instead of reading the file again, provided path is
// still the same file (device and inode) and size then. Published files
// are never written again, so the recorded hash still holds; anything
// else (a copy, a file replaced since) is hashed. Safe for concurrent use.
func (w *Writer) Reuse(path string, src os.FileInfo, sha256 string) {
	rel, err := filepath.Rel(w.tmp, path)
	if err != nil || sha256 == "" || src == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reused == nil {
		w.reused = map[string]reusedFile{}
	}
	w.reused[filepath.ToSlash(rel)] = reusedFile{src: src, sha256: sha256}
}

// Create starts a pack for key under the data directory. The caller writes
// its files below Dir and then calls Commit or Abort.
func Create(dataDir string, key Key) (*Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	root := filepath.Join(dataDir, string(key.Product), key.BL)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("pack: create %s: %w", key, err)
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("pack: create %s: %w", key, err)
	}
	tmp := filepath.Join(root, ".tmp-"+key.Snapshot+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("pack: create %s: %w", key, err)
	}
	lock, err := lockDir(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("pack: create %s: lock: %w", key, err)
	}
	return &Writer{root: root, tmp: tmp, key: key, started: time.Now().UTC(), lock: lock}, nil
}

func checkKey(k Key) error {
	if !k.Product.Valid() {
		return fmt.Errorf("%w: unknown product %q", ErrInvalid, k.Product)
	}
	if _, ok := bl.Lookup(k.BL); !ok || k.BL != bl.Canonical(k.BL) {
		return fmt.Errorf("%w: unknown BL code %q", ErrInvalid, k.BL)
	}
	if !ValidSnapshot(k.Snapshot) {
		return fmt.Errorf("%w: snapshot %q is not a date YYYY-MM-DD", ErrInvalid, k.Snapshot)
	}
	return nil
}

// Dir is the temporary directory the pack's files go into.
func (w *Writer) Dir() string { return w.tmp }

// Key is the pack being written.
func (w *Writer) Key() Key { return w.key }

// Abort removes everything written so far. It is safe after Commit (then a
// no-op), so callers may defer it.
func (w *Writer) Abort() {
	if !w.done {
		w.done = true
		_ = os.RemoveAll(w.tmp)
		w.unlock()
		// A failed first import leaves no empty <product>/<bl> behind
		// (Remove fails, harmlessly, on a directory that holds anything).
		_ = os.Remove(w.root)
		_ = os.Remove(filepath.Dir(w.root))
	}
}

// Commit finishes the pack: it lists the files with their sizes, stamps the
// identity and import times into m, writes the manifest (temporary name,
// fsync, rename) and renames the directory into place, replacing an older
// pack of the same snapshot in one step where the OS allows it. It returns
// the manifest as written.
func (w *Writer) Commit(ctx context.Context, m Manifest) (Manifest, error) {
	if w.done {
		return m, fmt.Errorf("pack: commit %s: writer already finished", w.key)
	}
	w.mu.Lock()
	files, err := listFiles(ctx, w.tmp, w.reused)
	w.mu.Unlock()
	if err != nil {
		return m, fmt.Errorf("pack: commit %s: %w", w.key, err)
	}
	finished := time.Now().UTC()
	m.Format, m.Product, m.BL, m.Snapshot = Format, w.key.Product, w.key.BL, w.key.Snapshot
	m.ImportStartedAt, m.ImportFinishedAt, m.Files = w.started, &finished, files
	if err := writeFileAtomic(filepath.Join(w.tmp, ManifestName), m); err != nil {
		return m, fmt.Errorf("pack: commit %s: %w", w.key, err)
	}
	if err := ctx.Err(); err != nil {
		return m, fmt.Errorf("pack: commit %s: %w", w.key, err)
	}
	final := filepath.Join(w.root, w.key.Snapshot)
	if err := replaceDir(w.tmp, final); err != nil {
		return m, fmt.Errorf("pack: commit %s: %w", w.key, err)
	}
	w.done = true
	// The lock file came along with the rename; the pack does not list it.
	_ = os.Remove(filepath.Join(final, lockName))
	w.unlock()
	return m, syncDir(w.root)
}

// listFiles walks dir and returns every regular file with its size and
// SHA-256, sorted; the hash of a file of reused that is still the reused
// file is taken from there.
func listFiles(ctx context.Context, dir string, reused map[string]reusedFile) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || (d.Name() == lockName && filepath.Dir(p) == dir) {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel == ManifestName {
			return nil
		}
		f := File{Path: filepath.ToSlash(rel), Size: info.Size()}
		if r, ok := reused[f.Path]; ok && os.SameFile(r.src, info) && r.src.Size() == f.Size {
			f.SHA256 = r.sha256
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, hashFiles(ctx, dir, files)
}

// hashFiles sets the SHA256 of each file (relative to dir), hashing up to
// one file per core at a time: a pack's large files (a LoD2 pack's
// SpatiaLite and search files) need not wait for each other.
func hashFiles(ctx context.Context, dir string, files []File) error {
	errs := make([]error, len(files))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i := range files {
		if err := ctx.Err(); err != nil {
			errs[i] = err
			break
		}
		if files[i].SHA256 != "" { // a reused file (Writer.Reuse)
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			files[i].SHA256, errs[i] = fileSHA256(filepath.Join(dir, filepath.FromSlash(files[i].Path)))
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// writeFileAtomic writes v as indented JSON to path through a temporary
// file that is fsynced before the rename, so readers see all or nothing.
func writeFileAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Base(dir), err)
	}
	return nil
}

func (w *Writer) unlock() {
	if w.lock != nil {
		w.lock.Close()
		w.lock = nil
	}
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
