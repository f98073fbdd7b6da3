package pack

import (
	"io"
	"os"
	"path/filepath"
)

// LinkOrCopy hard-links src to dst, copying when linking fails (another
// file system). Published pack files are never written again, so a new
// snapshot or build may share them with the one it reuses them from.
func LinkOrCopy(src, dst string) error {
	// The directory usually exists (a build links thousands of files into
	// a few): link first, and make it only when the link says it is missing.
	if os.Link(src, dst) == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
