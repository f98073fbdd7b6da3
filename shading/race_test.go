//go:build race

package shading

// raceEnabled: the race detector slows the code 5-10 x, so CPU bars skip.
const raceEnabled = true
