package pack

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// replaceDir moves src to dst. When dst exists the two are exchanged
// atomically (renameat2 RENAME_EXCHANGE), so readers never find dst
// missing, and the old contents, now at src, are removed.
func replaceDir(src, dst string) error {
	err := os.Rename(src, dst)
	if err == nil {
		return nil
	}
	if _, statErr := os.Stat(dst); statErr != nil {
		return err
	}
	if err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE); err != nil {
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
			return replaceDirFallback(src, dst)
		}
		return err
	}
	return os.RemoveAll(src)
}
