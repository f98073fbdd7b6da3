package terrain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadXYZ(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		w, h   int
		gt0    float64 // west edge
		gt3    float64 // north edge
		values []float32
	}{
		{"space, row order, gap", "0.5 1.5 1\n1.5 1.5 2\n0.5 0.5 3\n", 2, 2, 0, 2, []float32{1, 2, 3, -9999}},
		{"comma, any order", "1.5,0.5,4\n0.5,1.5,1\n0.5,0.5,3\n1.5,1.5,2\n", 2, 2, 0, 2, []float32{1, 2, 3, 4}},
		{"semicolon, header, CRLF", "x;y;z\r\n10;20;5\r\n12;20;6\r\n10;22;7\r\n12;22;8\r\n", 2, 2, 9, 23, []float32{7, 8, 5, 6}},
		{"tabs and repeated spaces", "0.5\t0.5\t1\n1.5   0.5  2\n0.5 1.5 3\n1.5 1.5 4\n", 2, 2, 0, 2, []float32{3, 4, 1, 2}},
		{"zone prefix", "32000000.5 0.5 1\n32000001.5 0.5 2\n32000000.5 1.5 3\n32000001.5 1.5 4\n", 2, 2, 0, 2, []float32{3, 4, 1, 2}},
		{"nodata value and NaN", "0.5 0.5 -9999\n1.5 0.5 NaN\n0.5 1.5 1\n1.5 1.5 2\n", 2, 2, 0, 2, []float32{1, 2, -9999, -9999}},
		{"comments and blank lines", "# c\n\n0.5 0.5 1\n\n1.5 0.5 2\n0.5 1.5 3\n1.5 1.5 4", 2, 2, 0, 2, []float32{3, 4, 1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadXYZ(strings.NewReader(tc.in), "t.xyz", XYZOptions{EPSG: 25832})
			if err != nil {
				t.Fatal(err)
			}
			if g.Width != tc.w || g.Height != tc.h || g.GeoTransform[0] != tc.gt0 || g.GeoTransform[3] != tc.gt3 || g.EPSG != 25832 {
				t.Fatalf("grid %dx%d gt %v", g.Width, g.Height, g.GeoTransform)
			}
			for i, v := range tc.values {
				if g.Data[i] != v {
					t.Errorf("pixel %d = %v, want %v (all %v)", i, g.Data[i], v, g.Data)
				}
			}
		})
	}
}

func TestReadXYZErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "no points"},
		{"not a number", "0 0 1\n1 0 x\n", "t.xyz:2"},
		{"two values", "0 0 1\n1 0\n", "t.xyz:2: 2 values"},
		{"four values", "0 0 1 5\n", "t.xyz:1: more than 3"},
		{"duplicate", "0 0 1\n1 0 1\n0 1 1\n0 0 2\n", "t.xyz:4: duplicate"},
		{"off grid", "0 0 1\n2 0 1\n0 2 1\n1.3 0 1\n", "off the"},
		{"one column", "0 0 1\n0 1 1\n", "distinct x"},
		{"long line", strings.Repeat("1", 300) + "\n", "t.xyz:1: line longer"},
		{"header only later", "0 0 1\nX Y Z\n", "t.xyz:2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadXYZ(strings.NewReader(tc.in), "t.xyz", XYZOptions{})
			if !errors.Is(err, ErrXYZ) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrXYZ containing %q", err, tc.want)
			}
		})
	}
}

func FuzzReadXYZ(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.xyz")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("0 0 1\n1e7 0 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ReadXYZ(strings.NewReader(string(b)), "f.xyz", XYZOptions{})
		if err != nil {
			if !errors.Is(err, ErrXYZ) {
				t.Fatalf("error not wrapping ErrXYZ: %v", err)
			}
			return
		}
		if g.Width < 2 || g.Height < 2 || len(g.Data) != g.Width*g.Height || len(g.Data) > MaxXYZPixels {
			t.Fatalf("bad grid %dx%d with %d values", g.Width, g.Height, len(g.Data))
		}
	})
}
