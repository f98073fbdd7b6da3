//go:build !unix

package scalerun

import (
	"os"
	"time"
)

// usage returns the CPU time of a finished child process; the peak RSS is
// unknown (0) where wait4 does not report it.
func usage(ps *os.ProcessState) (cpu time.Duration, peakRSS int64) {
	return ps.UserTime() + ps.SystemTime(), 0
}

// fileBlocks returns the file's size (no inode where the platform does not
// say).
func fileBlocks(fi os.FileInfo) (bytes int64, inode uint64) { return fi.Size(), 0 }
