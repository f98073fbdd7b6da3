//go:build unix

package scalerun

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own and kills the whole
// group when its context ends (a browser's helper processes with it).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
