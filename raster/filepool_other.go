//go:build !unix

package raster

// defaultPoolSize is the bound of the default pool where the descriptor
// limit is not read (Windows handles are not limited like Unix fds; the C
// runtime's 512 is irrelevant to Go, which calls CreateFile directly).
func defaultPoolSize() int { return poolSizeFor(4096) }
