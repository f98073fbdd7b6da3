//go:build !unix

package testtool

import "time"

// CPUTime is 0 where getrusage is missing.
func CPUTime() time.Duration { return 0 }
