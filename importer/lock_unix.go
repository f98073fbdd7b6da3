//go:build unix

package importer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockWork holds an exclusive lock on dir's lock file until the returned
// file is closed or the process dies (the kernel drops it, so a killed
// import never blocks its --resume).
func lockWork(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, workLock), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: another import of this snapshot is running (%s)", ErrOptions, dir)
		}
		return nil, err
	}
	return f, nil
}
