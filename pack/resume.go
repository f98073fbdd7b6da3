package pack

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ResumePrefix starts the name of a resumable pack's directory,
// <data>/<product>/<bl>/.resume-<snapshot>. Sweep leaves these alone: they
// hold hours of work that CreateResumable continues.
const ResumePrefix = ".resume-"

// CreateResumable starts a pack for key like Create, in a directory whose
// name depends on the key only, so that an import killed (or stopped by an
// error) before Commit can be continued by a later CreateResumable of the
// same key: what the first one wrote is still in Dir. Fresh reports
// whether the directory was new. Only one writer holds the directory at a
// time; another live one makes it fail. Abort removes the directory,
// Suspend keeps it.
func CreateResumable(dataDir string, key Key) (w *Writer, fresh bool, err error) {
	if err := checkKey(key); err != nil {
		return nil, false, err
	}
	root := filepath.Join(dataDir, string(key.Product), key.BL)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, false, fmt.Errorf("pack: create %s: %w", key, err)
	}
	dir := filepath.Join(root, ResumePrefix+key.Snapshot)
	err = os.Mkdir(dir, 0o755)
	fresh = err == nil
	if err != nil && !os.IsExist(err) {
		return nil, false, fmt.Errorf("pack: create %s: %w", key, err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, false, fmt.Errorf("pack: create %s: %s is in use by another import (%w)", key, dir, err)
	}
	return &Writer{root: root, tmp: dir, key: key, started: time.Now().UTC(), lock: lock}, fresh, nil
}

// Suspend ends the writer without removing what it wrote, for a later
// CreateResumable. It is a no-op after Commit or Abort.
func (w *Writer) Suspend() {
	if !w.done {
		w.done = true
		w.unlock()
	}
}

// Clear removes every file the directory holds (not the lock), for a
// resumable writer that starts over.
func (w *Writer) Clear() error {
	entries, err := os.ReadDir(w.tmp)
	if err != nil {
		return fmt.Errorf("pack: clear %s: %w", w.key, err)
	}
	for _, e := range entries {
		if e.Name() == lockName {
			continue
		}
		if err := os.RemoveAll(filepath.Join(w.tmp, e.Name())); err != nil {
			return fmt.Errorf("pack: clear %s: %w", w.key, err)
		}
	}
	return nil
}
