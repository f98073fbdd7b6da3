package pack

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Interrupted is the work directory of a resumable import
// (<data>/<product>/<bl>/.resume-<snapshot>, see CreateResumable) that is
// running or was interrupted and not resumed since.
type Interrupted struct {
	Key   Key    // the snapshot the import was making
	Dir   string // the work directory
	Bytes int64  // what it holds
	// LastWrite is the newest modification time of anything in it: how
	// long ago the import last made progress.
	LastWrite time.Time
	// Running says an import holds the directory now.
	Running bool
}

// ListInterrupted returns the resumable imports' work directories under
// dataDir in product, BL and snapshot order; none is an empty result. It
// reads every file's metadata (not contents) of each directory.
func ListInterrupted(dataDir string) ([]Interrupted, error) {
	var out []Interrupted
	var errs []string
	for _, p := range Products() {
		bls, _ := os.ReadDir(filepath.Join(dataDir, string(p)))
		for _, b := range bls {
			entries, _ := os.ReadDir(filepath.Join(dataDir, string(p), b.Name()))
			for _, e := range entries {
				snap, ok := strings.CutPrefix(e.Name(), ResumePrefix)
				if !e.IsDir() || !ok {
					continue
				}
				dir := filepath.Join(dataDir, string(p), b.Name(), e.Name())
				gone, err := writerGone(dir)
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", dir, err))
					continue
				}
				n, last := dirUsage(dir)
				out = append(out, Interrupted{Key: Key{p, b.Name(), snap}, Dir: dir, Bytes: n, LastWrite: last, Running: !gone})
			}
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("pack: list interrupted imports: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// RemoveInterrupted removes the work directories of interrupted imports
// that no import holds and that have not been written for olderThan (0:
// all of them), and the product and BL directories they leave empty. The
// work of a removed import is lost: a later import of its snapshot starts
// over. Errors name the directory; the removal goes on past them.
func RemoveInterrupted(dataDir string, olderThan time.Duration, now time.Time) ([]Leftover, error) {
	list, err := ListInterrupted(dataDir)
	var errs []string
	if err != nil {
		errs = append(errs, err.Error())
	}
	var out []Leftover
	for _, in := range list {
		if in.Running || now.Sub(in.LastWrite) < olderThan {
			continue
		}
		if err := os.RemoveAll(in.Dir); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", in.Dir, err))
			continue
		}
		_ = os.Remove(filepath.Dir(in.Dir)) // fails, harmlessly, unless empty
		_ = os.Remove(filepath.Dir(filepath.Dir(in.Dir)))
		out = append(out, Leftover{Dir: in.Dir, Bytes: in.Bytes})
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("pack: remove interrupted imports: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// dirUsage is the bytes of the files under dir and the newest
// modification time of dir and anything in it.
func dirUsage(dir string) (n int64, last time.Time) {
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			n += info.Size()
		}
		if info.ModTime().After(last) {
			last = info.ModTime()
		}
		return nil
	})
	return n, last
}
