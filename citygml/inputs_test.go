package citygml

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile creates path with its parent directories.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// makeZip writes a zip with the given entries (name -> content); names
// ending in "/stored" are stored, others deflated.
func makeZip(t *testing.T, path string, names []string, content map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		method := zip.Deflate
		if strings.HasSuffix(n, ".stored.gml") {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(content[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, buf.Bytes())
	return buf.Bytes()
}

// readInput reads all buildings of one input.
func readInput(in Input) (int, error) {
	rc, err := in.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	r := NewReader(rc, in.Name)
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			if r.Offset() != in.Size {
				return n, errors.New("offset at EOF differs from Size")
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

func TestInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fixture, err := os.ReadFile("testdata/v1_xlink.gml") // 2 buildings
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "tiles/b/2.gml"), fixture)
	writeFile(t, filepath.Join(dir, "tiles/a.XML"), fixture)
	writeFile(t, filepath.Join(dir, "tiles/readme.txt"), []byte("not CityGML"))
	writeFile(t, filepath.Join(dir, "empty/x.txt"), nil)
	writeFile(t, filepath.Join(dir, "single.citygml"), fixture)
	content := map[string][]byte{"z.gml": fixture, "d/a.stored.gml": fixture, "notes.txt": []byte("x")}
	good := makeZip(t, filepath.Join(dir, "good.zip"), []string{"z.gml", "notes.txt", "d/a.stored.gml"}, content)
	writeFile(t, filepath.Join(dir, "trunc.zip"), good[:len(good)/2])
	makeZip(t, filepath.Join(dir, "nogml.zip"), []string{"notes.txt"}, content)

	tests := []struct {
		name    string
		paths   []string
		want    []string // input names relative to dir
		wantErr error
		errPath string
	}{
		{"directory recursive sorted", []string{"tiles"}, []string{"tiles/a.XML", "tiles/b/2.gml"}, nil, ""},
		{"explicit file of any extension", []string{"single.citygml"}, []string{"single.citygml"}, nil, ""},
		{"zip entries sorted", []string{"good.zip"}, []string{"good.zip!d/a.stored.gml", "good.zip!z.gml"}, nil, ""},
		{"several paths keep order", []string{"good.zip", "tiles"}, []string{"good.zip!d/a.stored.gml", "good.zip!z.gml", "tiles/a.XML", "tiles/b/2.gml"}, nil, ""},
		{"truncated zip", []string{"trunc.zip"}, nil, ErrZip, "trunc.zip"},
		{"zip without gml", []string{"nogml.zip"}, nil, ErrNoInput, "nogml.zip"},
		{"directory without gml", []string{"empty"}, nil, ErrNoInput, "empty"},
		{"no paths", nil, nil, ErrNoInput, ""},
		{"missing", []string{"nope.gml"}, nil, os.ErrNotExist, "nope.gml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for _, p := range tc.paths {
				paths = append(paths, filepath.Join(dir, p))
			}
			ins, err := Inputs(paths)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errPath) {
					t.Fatalf("error %v, want %v naming %q", err, tc.wantErr, tc.errPath)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, in := range ins {
				names = append(names, strings.TrimPrefix(in.Name, dir+"/"))
				n, err := readInput(in)
				if err != nil || n != 2 {
					t.Errorf("%s: %d buildings, %v; want 2", in.Name, n, err)
				}
			}
			if strings.Join(names, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("inputs %v, want %v", names, tc.want)
			}
		})
	}
}

// TestZipCorruptEntry damages deflated data behind an intact central
// directory: reading fails with an error naming the entry and a line.
func TestZipCorruptEntry(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fixture, err := os.ReadFile("testdata/v2_parts.gml")
	if err != nil {
		t.Fatal(err)
	}
	zpath := filepath.Join(dir, "bad.zip")
	data := makeZip(t, zpath, []string{"x.gml"}, map[string][]byte{"x.gml": fixture})
	for i := 60; i < 400; i++ { // inside the compressed data of the only entry
		data[i] ^= 0x55
	}
	writeFile(t, zpath, data)
	ins, err := Inputs([]string{zpath})
	if err != nil {
		t.Fatal(err)
	}
	_, err = readInput(ins[0])
	var pe *Error
	if err == nil || !errors.As(err, &pe) || pe.Name != zpath+"!x.gml" {
		t.Fatalf("error %v, want a positioned error naming %s!x.gml", err, zpath)
	}
}
