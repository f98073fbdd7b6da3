package pack

import (
	"os"
	"path/filepath"
)

// replaceDirFallback replaces dst with src by two renames. Between them dst
// is briefly missing; a rescan in that instant publishes the previous
// snapshot or none, never a partial one.
func replaceDirFallback(src, dst string) error {
	old := filepath.Join(filepath.Dir(dst), ".old-"+filepath.Base(src))
	if err := os.Rename(dst, old); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		_ = os.Rename(old, dst)
		return err
	}
	return os.RemoveAll(old)
}
