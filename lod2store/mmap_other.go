//go:build !unix

package lod2store

func mapFile(path string) ([]byte, func() error, error) { return readAll(path) }
