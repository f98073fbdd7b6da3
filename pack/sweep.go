package pack

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// lockName is the file a Writer holds locked while it writes its
// temporary directory, so a sweep can tell a live import from a dead one.
const lockName = ".writer.lock"

// Leftover is a temporary directory of an interrupted import that Sweep
// removed.
type Leftover struct {
	Dir   string // path of the removed directory
	Bytes int64  // what it held
}

// Sweep removes the temporary directories (".tmp-*") of imports that no
// longer run: killed, crashed or powered off before Commit or Abort. A
// directory whose writer still holds its lock is left alone, so a sweep is
// safe while another import runs. Without file locks (Windows) only
// directories untouched for a day are removed. Errors name the directory;
// the sweep goes on past them.
func Sweep(dataDir string) ([]Leftover, error) {
	var out []Leftover
	var errs []string
	for _, p := range Products() {
		bls, _ := os.ReadDir(filepath.Join(dataDir, string(p)))
		for _, b := range bls {
			if !b.IsDir() {
				continue
			}
			entries, _ := os.ReadDir(filepath.Join(dataDir, string(p), b.Name()))
			for _, e := range entries {
				if !e.IsDir() || !strings.HasPrefix(e.Name(), ".tmp-") {
					continue
				}
				dir := filepath.Join(dataDir, string(p), b.Name(), e.Name())
				dead, err := writerGone(dir)
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", dir, err))
					continue
				}
				if !dead {
					continue
				}
				n := dirBytes(dir)
				if err := os.RemoveAll(dir); err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", dir, err))
					continue
				}
				out = append(out, Leftover{Dir: dir, Bytes: n})
			}
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("pack: sweep: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
