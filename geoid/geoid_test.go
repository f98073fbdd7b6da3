package geoid

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

const egm96 = "/usr/share/proj/egm96_15.gtx"

// points spread over Germany: the corners of its bounding box, the BL
// capitals, grid nodes and cell middles, the subset's margin.
var points = [][2]float64{
	{5.87, 47.27}, {15.04, 55.06}, {5.87, 55.06}, {15.04, 47.27},
	{13.405, 52.52}, {8.682, 50.11}, {6.96, 50.94}, {9.99, 53.55}, {11.58, 48.14}, {7.86, 54.18},
	{10.0, 51.0}, {10.125, 51.125}, {12.3, 49.01}, {4.1, 46.1}, {16.9, 56.9},
}

// TestEGM96AgainstPROJ: the embedded subset gives what PROJ computes from
// the full egm96_15.gtx (cct with +proj=vgridshift, bilinear) to 1 mm.
func TestEGM96AgainstPROJ(t *testing.T) {
	cct := testtool.Require(t, "cct", "apt-get install proj-bin")
	testtool.File(t, egm96, "apt-get install proj-data")
	var in bytes.Buffer
	for _, p := range points {
		fmt.Fprintf(&in, "%.6f %.6f 0\n", p[0], p[1])
	}
	cmd := exec.Command(cct, "-d", "6", "+proj=vgridshift", "+grids="+egm96, "+multiplier=1")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cct: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(points) {
		t.Fatalf("cct gave %d lines for %d points:\n%s", len(lines), len(points), out)
	}
	m := EGM96()
	for i, p := range points {
		f := strings.Fields(lines[i])
		want, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("cct line %q", lines[i])
		}
		got, ok := m.Undulation(p[0], p[1])
		if !ok || math.Abs(got-want) > 0.001 {
			t.Errorf("N(%.3f, %.3f) = %.4f (ok %v), PROJ %.4f", p[0], p[1], got, ok, want)
		}
	}
}

// TestAgainstGDALNodes: at the grid's nodes the value is the node's, as
// gdallocationinfo reads it from PROJ's file (nearest pixel).
func TestAgainstGDALNodes(t *testing.T) {
	gli := testtool.Require(t, "gdallocationinfo", "apt-get install gdal-bin")
	testtool.File(t, egm96, "apt-get install proj-data")
	m := EGM96()
	for _, p := range [][2]float64{{8.0, 50.0}, {13.25, 52.5}, {10.5, 47.75}, {6.0, 54.0}} {
		out, err := exec.Command(gli, "-valonly", "-geoloc", egm96, fmt.Sprint(p[0]), fmt.Sprint(p[1])).Output()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if got, ok := m.Undulation(p[0], p[1]); !ok || math.Abs(got-want) > 1e-4 {
			t.Errorf("node %v: %.5f, gdallocationinfo %.5f", p, got, want)
		}
	}
}

func TestEGM96CoversEveryBL(t *testing.T) {
	for _, m := range []*Model{EGM96(), Default()} {
		if err := m.Validate(4.87, 46.27, 16.04, 56.06); err != nil { // Germany plus one degree
			t.Fatal(err)
		}
		for _, p := range [][2]float64{{3.9, 50}, {17.1, 50}, {10, 45.9}, {10, 57.1}} {
			if _, ok := m.Undulation(p[0], p[1]); ok {
				t.Errorf("%s: %v is outside the subset but answered", m.ID(), p)
			}
		}
	}
	if id := EGM96().ID(); !strings.HasPrefix(id, "EGM96") {
		t.Errorf("ID %q", id)
	}
}

// TestLoadFormats: the same grid as .gtx and as GeoTIFF (gdal_translate, both
// pixel conventions) gives the same model.
func TestLoadFormats(t *testing.T) {
	translate := testtool.Require(t, "gdal_translate", "apt-get install gdal-bin")
	dir := t.TempDir()
	gtx := filepath.Join(dir, "de.gtx")
	os.WriteFile(gtx, egm96DE, 0o644)
	tif := filepath.Join(dir, "de.tif")
	point := filepath.Join(dir, "de-point.tif")
	for _, args := range [][]string{{"-q", "-of", "GTiff", gtx, tif},
		{"-q", "-of", "GTiff", "-mo", "AREA_OR_POINT=Point", "-co", "TILED=YES", "-co", "COMPRESS=DEFLATE", gtx, point}} {
		if out, err := exec.Command(translate, args...).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate: %v\n%s", err, out)
		}
	}
	ref := EGM96()
	for _, path := range []string{gtx, tif, point} {
		m, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if m.ID() != filepath.Base(path) {
			t.Errorf("ID %q", m.ID())
		}
		for _, p := range points[:10] {
			a, _ := ref.Undulation(p[0], p[1])
			b, ok := m.Undulation(p[0], p[1])
			if !ok || math.Abs(a-b) > 1e-4 {
				t.Errorf("%s at %v: %.5f, want %.5f", filepath.Base(path), p, b, a)
			}
		}
	}
}

// TestBadGrids: each broken grid is refused with an error saying what is wrong.
func TestBadGrids(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	m := EGM96()
	scaled := func(f float32) []byte {
		v := make([]float32, len(m.v))
		for i, x := range m.v {
			v[i] = x * f
		}
		mm := *m
		mm.v = v
		return appendGTX(nil, &mm, 0, 0, m.cols, m.rows)
	}
	holed := func() []byte {
		mm := *m
		mm.v = append([]float32(nil), m.v...)
		mm.v[20*m.cols+25] = float32(math.NaN()) // about 10.25 E, 51 N
		return appendGTX(nil, &mm, 0, 0, m.cols, m.rows)
	}
	small, _ := Subset(write("full.gtx", egm96DE), 9, 49, 11, 51)
	for _, tc := range []struct {
		name, file string
		data       []byte
		load, use  string // expected error text from Load, or from Validate over Germany
	}{
		{"truncated", "t.gtx", egm96DE[:len(egm96DE)-10], "truncated", ""},
		{"header only", "h.gtx", egm96DE[:30], "header", ""},
		{"not a grid", "x.bin", []byte("hello world"), "neither", ""},
		{"text as gtx", "x.gtx", bytes.Repeat([]byte("a"), 100), "nodes", ""},
		{"millimetres", "mm.gtx", scaled(1000), "", "wrong unit"},
		{"hole", "hole.gtx", holed(), "", "no value"},
		{"too small", "small.gtx", small, "", "covers"},
		{"not a tiff", "n.tif", []byte("II*\x00garbage"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Load(write(tc.file, tc.data))
			if tc.load != "" || tc.name == "not a tiff" {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.load) {
					t.Fatalf("Load = %v, want ErrInvalid with %q", err, tc.load)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			err = g.Validate(5.87, 47.27, 15.04, 55.06)
			if err == nil || !strings.Contains(err.Error(), tc.use) {
				t.Errorf("Validate = %v, want %q", err, tc.use)
			}
		})
	}
}

func FuzzParseGTX(f *testing.F) {
	f.Add(egm96DE)
	f.Add(egm96DE[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseGTX(b, "fuzz")
		if err != nil {
			return
		}
		for _, p := range points {
			if n, ok := m.Undulation(p[0], p[1]); ok && math.IsNaN(n) {
				t.Fatal("NaN with ok")
			}
		}
		m.Validate(5, 47, 15, 55)
	})
}
