package pack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Damage is one file of a pack that is not what its manifest says.
type Damage struct {
	Path    string // slash-separated, relative to the pack directory
	Problem string // missing, size, checksum
}

// Verify checks every file of the pack in dir against its manifest m: it
// exists, has the recorded size and, where the manifest has one, the
// recorded SHA-256. It reads every byte; ctx stops it between files.
func Verify(ctx context.Context, dir string, m Manifest) ([]Damage, error) {
	var out []Damage
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		st, err := os.Stat(p)
		switch {
		case err != nil:
			out = append(out, Damage{f.Path, "missing"})
			continue
		case st.Size() != f.Size:
			out = append(out, Damage{f.Path, fmt.Sprintf("%d bytes, the manifest says %d", st.Size(), f.Size)})
			continue
		case f.SHA256 == "":
			continue
		}
		sum, err := fileSHA256(p)
		if err != nil {
			out = append(out, Damage{f.Path, "unreadable: " + err.Error()})
		} else if sum != f.SHA256 {
			out = append(out, Damage{f.Path, "checksum differs from the manifest's (the file was changed or damaged)"})
		}
	}
	return out, nil
}

// Found is one pack directory of a data directory: its key, directory and
// manifest, or why the manifest could not be read.
type Found struct {
	Key      Key
	Dir      string
	Manifest Manifest
	Err      error
}

// List returns every snapshot directory under dataDir (not the .tmp-*
// ones), in product, BL and snapshot order.
func List(dataDir string) []Found {
	var out []Found
	for _, p := range Products() {
		bls, _ := os.ReadDir(filepath.Join(dataDir, string(p)))
		for _, b := range bls {
			snaps, _ := os.ReadDir(filepath.Join(dataDir, string(p), b.Name()))
			for _, s := range snaps {
				if !s.IsDir() || !ValidSnapshot(s.Name()) {
					continue
				}
				dir := filepath.Join(dataDir, string(p), b.Name(), s.Name())
				m, err := ReadManifest(dir)
				out = append(out, Found{Key: Key{p, b.Name(), s.Name()}, Dir: dir, Manifest: m, Err: err})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out
}
