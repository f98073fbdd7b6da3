//go:build unix

package lod2store

import (
	"os"
	"syscall"
)

// mapFile maps path read-only. Pages are shared with the OS page cache, so
// memory does not grow with the number of open packs or requests.
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() == 0 {
		return nil, func() error { return nil }, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readAll(path)
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
