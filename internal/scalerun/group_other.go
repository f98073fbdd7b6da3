//go:build !unix

package scalerun

import "os/exec"

// ownGroup leaves cmd as it is where process groups do not exist: the
// context kills the process alone.
func ownGroup(cmd *exec.Cmd) {}
