package mvt

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: Decode never panics, and what it refuses wraps ErrFormat.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.mvt"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x1a, 0x02, 0x78, 0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		layers, err := Decode(b)
		if err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("error %v does not wrap ErrFormat", err)
		}
		if err == nil {
			for _, l := range layers {
				for _, ft := range l.Features {
					_ = len(ft.Parts)
				}
			}
		}
	})
}
