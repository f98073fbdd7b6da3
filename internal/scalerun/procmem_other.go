//go:build !linux

package scalerun

// memPeak is the resident memory of a stage's svc process; see
// procmem_linux.go. Elsewhere nothing is sampled (Samples 0).
type memPeak struct {
	Anon, File, HWM int64
	Samples         int
}

// watchMem samples nothing outside Linux (no /proc/PID/status).
func watchMem(pid int, wrapped bool) (stop func() memPeak) {
	return func() memPeak { return memPeak{} }
}
