//go:build linux

package scalerun

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// memEvery is how often the resident memory of a running stage is read.
const memEvery = 50 * time.Millisecond

// memPeak is the resident memory of a stage's svc process: the high-water
// marks of its anonymous (heap, stacks: what the process holds) and
// file-backed (mmapped pack files, the binary: pages the kernel may drop)
// pages, each the largest of the samples taken every memEvery, and the
// kernel's exact high-water mark of the sum (VmHWM, GNU time's %M).
type memPeak struct {
	Anon, File, HWM int64
	Samples         int
}

// watchMem samples the memory of pid, or of its child when wrapped is set
// (pid is GNU time, which forks svc), until stop is called; stop returns
// the peaks. A process gone or unreadable leaves the samples taken so far.
func watchMem(pid int, wrapped bool) (stop func() memPeak) {
	done := make(chan struct{})
	res := make(chan memPeak, 1)
	go func() {
		var p memPeak
		target := pid
		if wrapped {
			target = 0
		}
		t := time.NewTicker(memEvery)
		defer t.Stop()
		for {
			if target == 0 {
				target = childOf(pid)
			}
			if target != 0 {
				if a, f, h, ok := memOf(target); ok {
					p.Anon, p.File, p.HWM = max(p.Anon, a), max(p.File, f), max(p.HWM, h)
					p.Samples++
				}
			}
			select {
			case <-done:
				res <- p
				return
			case <-t.C:
			}
		}
	}()
	return func() memPeak {
		close(done)
		return <-res
	}
}

// childOf returns a child process of pid, 0 when there is none (yet).
// /proc/PID/task/TID/children needs CONFIG_PROC_CHILDREN, which not
// every kernel has: the parent ids of /proc/*/stat are read instead.
func childOf(pid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	want := " " + strconv.Itoa(pid) + " "
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+3 > len(b) {
			continue
		}
		if f := b[i+2:]; len(f) > 2 && bytes.HasPrefix(f[1:], []byte(want)) {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			return n
		}
	}
	return 0
}

// memOf reads RssAnon, RssFile and VmHWM of a process (bytes); ok is
// false when the process is gone.
func memOf(pid int) (anon, file, hwm int64, ok bool) {
	anon, file, hwm = procStatus(pid, "RssAnon:"), procStatus(pid, "RssFile:"), procStatus(pid, "VmHWM:")
	return anon, file, hwm, hwm > 0
}
