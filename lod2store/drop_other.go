//go:build !linux

package lod2store

// dropPages does nothing where madvise is not at hand: the mapped pages
// stay resident until the mapping is closed.
func dropPages([]byte) {}
