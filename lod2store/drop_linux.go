//go:build linux

package lod2store

import "syscall"

// dropPages tells the kernel that the mapped file pages of b are not
// needed for now: they leave the process's resident set (they stay in the
// page cache and are read again on the next touch).
func dropPages(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
