//go:build unix

package scalerun

import (
	"os"
	"syscall"
	"time"
)

// usage returns the CPU time (user + system) and the peak resident set
// size in bytes of a finished child process (wait4 rusage).
func usage(ps *os.ProcessState) (cpu time.Duration, peakRSS int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return ps.UserTime() + ps.SystemTime(), 0
	}
	rss := ru.Maxrss * 1024 // kilobytes on Linux
	return ps.UserTime() + ps.SystemTime(), rss
}

// fileBlocks returns the bytes a file takes on disk and its inode, so hard
// links (a rebuilt vegetation version links the unchanged COGs) count once.
func fileBlocks(fi os.FileInfo) (bytes int64, inode uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512, uint64(st.Ino)
	}
	return fi.Size(), 0
}
