//go:build linux

package scalerun

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestWatchMemSplitsAnon runs a child that holds 96 MiB of heap for a
// second, alone and under GNU time as runStage does: the sampled peak
// anonymous RSS is at least those 96 MiB and the file-backed part (the
// test binary's pages) is counted apart.
func TestWatchMemSplitsAnon(t *testing.T) {
	if os.Getenv("SCALERUN_HOLD") != "" {
		b := make([]byte, 96<<20)
		for i := range b {
			b[i] = byte(i)
		}
		time.Sleep(time.Second)
		os.Exit(int(b[len(b)-1] & 0))
	}
	for _, wrapped := range []bool{false, true} {
		args := []string{os.Args[0], "-test.run=^TestWatchMemSplitsAnon$"}
		if wrapped {
			if gnuTime == "" {
				t.Log("GNU time not installed (apt-get install time): the wrapped case is not run")
				continue
			}
			args = append([]string{gnuTime, "-f", "%M", "-o", os.DevNull}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "SCALERUN_HOLD=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := watchMem(cmd.Process.Pid, wrapped)
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		p := stop()
		t.Logf("wrapped %v: anon %d MiB, file %d MiB, VmHWM %d MiB, %d samples", wrapped, p.Anon>>20, p.File>>20, p.HWM>>20, p.Samples)
		if p.Samples == 0 || p.Anon < 96<<20 || p.File <= 0 || p.File > 64<<20 || p.HWM < p.Anon {
			t.Errorf("wrapped %v: anon %d, file %d, VmHWM %d bytes, %d samples: want anon >= 96 MiB, file 0-64 MiB, VmHWM >= anon", wrapped, p.Anon, p.File, p.HWM, p.Samples)
		}
	}
}
