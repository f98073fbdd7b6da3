//go:build !unix

package store

func mapFile(path string) ([]byte, func() error, error) { return readAll(path) }
