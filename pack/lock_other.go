//go:build !unix

package pack

import (
	"os"
	"time"
)

// lockDir is a no-op where the package has no file locks.
func lockDir(string) (*os.File, error) { return nil, nil }

// writerGone: without locks, a temporary directory untouched for a day is
// taken as abandoned.
func writerGone(dir string) (bool, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return false, err
	}
	return time.Since(st.ModTime()) > 24*time.Hour, nil
}
