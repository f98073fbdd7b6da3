//go:build !unix

package importer

import (
	"os"
	"path/filepath"
)

// lockWork opens dir's lock file; without flock two imports of the same
// snapshot are not kept apart.
func lockWork(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, workLock), os.O_CREATE|os.O_RDWR, 0o644)
}
