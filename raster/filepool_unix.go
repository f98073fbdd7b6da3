//go:build unix

package raster

import "syscall"

// defaultPoolSize derives the bound of the default pool from the soft
// RLIMIT_NOFILE (which the Go runtime raises to the hard limit at start).
func defaultPoolSize() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return poolSizeFor(1024)
	}
	return poolSizeFor(rl.Cur)
}
