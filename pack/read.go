package pack

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxManifestBytes caps what ReadManifest reads: a manifest lists files,
// but a multi-megabyte one is not a manifest this code wrote.
const maxManifestBytes = 16 << 20

// ReadManifest reads and checks the manifest of the pack in dir, which must
// be <data>/<product>/<bl>/<snapshot>. It returns ErrIncomplete when the
// import has not finished (no manifest, or import_finished_at unset) and
// ErrCorrupt when the manifest is unreadable, claims another identity, or a
// listed file is missing or has another size.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	f, err := os.Open(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("%w: no %s", ErrIncomplete, ManifestName)
	}
	if err != nil {
		return m, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return m, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if st.Size() > maxManifestBytes {
		return m, fmt.Errorf("%w: manifest of %d bytes exceeds %d", ErrCorrupt, st.Size(), maxManifestBytes)
	}
	if err := json.NewDecoder(f).Decode(&m); err != nil {
		return m, fmt.Errorf("%w: manifest: %v", ErrCorrupt, err)
	}
	if err := checkIdentity(dir, m); err != nil {
		return m, err
	}
	if m.ImportFinishedAt == nil || m.ImportFinishedAt.IsZero() {
		return m, fmt.Errorf("%w: import_finished_at is not set", ErrIncomplete)
	}
	return m, checkFiles(dir, m.Files)
}

func checkIdentity(dir string, m Manifest) error {
	if m.Format != Format {
		return fmt.Errorf("%w: format %q, want %q", ErrCorrupt, m.Format, Format)
	}
	snap := filepath.Base(dir)
	blDir := filepath.Dir(dir)
	prod := filepath.Base(filepath.Dir(blDir))
	want := Key{Product(prod), filepath.Base(blDir), snap}
	if m.Key() != want {
		return fmt.Errorf("%w: manifest says %s but lies at %s", ErrCorrupt, m.Key(), want)
	}
	if err := checkKey(want); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

func checkFiles(dir string, files []File) error {
	for _, f := range files {
		if !fs.ValidPath(f.Path) || f.Path == "." {
			return fmt.Errorf("%w: invalid file path %q", ErrCorrupt, f.Path)
		}
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return fmt.Errorf("%w: file %s: missing", ErrCorrupt, f.Path)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%w: file %s: not a regular file", ErrCorrupt, f.Path)
		}
		if st.Size() != f.Size {
			return fmt.Errorf("%w: file %s: %d bytes, manifest says %d", ErrCorrupt, f.Path, st.Size(), f.Size)
		}
	}
	return nil
}

// Has reports whether the manifest lists the relative path p.
func (m Manifest) Has(p string) bool {
	for _, f := range m.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}
