//go:build !linux

package pack

import "os"

func replaceDir(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	return replaceDirFallback(src, dst)
}
