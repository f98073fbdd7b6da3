//go:build unix

package testtool

import (
	"syscall"
	"time"
)

// CPUTime is the user plus system CPU time this process has used so far,
// for benchmarks on a shared machine, where wall time depends on the
// others' load and CPU time per operation does not.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
