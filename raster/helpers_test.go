package raster

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testNodata is the nodata value of generated grids.
const testNodata = -9999.0

// genGrid returns a deterministic terrain-like grid in EPSG:25832 with 1 m
// pixels, a nodata square in the top-left corner (58 % of the shorter side,
// so it covers whole tiles) and scattered nodata pixels.
func genGrid(w, h int, seed uint64) Grid {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := Grid{
		Width: w, Height: h, Data: make([]float32, w*h), EPSG: 25832,
		GeoTransform: [6]float64{480000, 1, 0, 5600000, 0, -1},
	}
	nd := testNodata
	g.Nodata = &nd
	corner := min(w, h) * 58 / 100
	for y := range h {
		for x := range w {
			v := 120 + 30*math.Sin(float64(x)/97) + 20*math.Cos(float64(y)/53) + rng.Float64()
			g.Data[y*w+x] = float32(math.Round(v*1000) / 1000)
			if (x < corner && y < corner) || rng.IntN(500) == 0 {
				g.Data[y*w+x] = float32(nd)
			}
		}
	}
	return g
}

// writeASC writes g as an ESRI ASCII grid, GDAL's input for the interop
// fixtures, and returns its path.
func writeASC(t testing.TB, dir string, g Grid) string {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "ncols %d\nnrows %d\nxllcorner %.6f\nyllcorner %.6f\ncellsize %g\nNODATA_value %g\n",
		g.Width, g.Height, g.GeoTransform[0], g.GeoTransform[3]+float64(g.Height)*g.GeoTransform[5],
		g.GeoTransform[1], *g.Nodata)
	for y := range g.Height {
		for x := range g.Width {
			if x > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(float64(g.Data[y*g.Width+x]), 'f', 3, 32))
		}
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "src.asc")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs a tool and fails the test with its output on error.
func run(t testing.TB, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, out.String(), errb.String())
	}
	return out.String()
}

// randomPoints returns n seeded points in the box widened by 2 % per side.
func randomPoints(seed uint64, n int, minX, minY, maxX, maxY float64) [][2]float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	dx, dy := (maxX-minX)*0.02, (maxY-minY)*0.02
	pts := make([][2]float64, n)
	for i := range pts {
		pts[i] = [2]float64{minX - dx + rng.Float64()*(maxX-minX+2*dx), minY - dy + rng.Float64()*(maxY-minY+2*dy)}
	}
	return pts
}

// gdalValues runs gdallocationinfo -valonly -geoloc once for all points and
// returns one string per point ("" off the raster).
func gdalValues(t testing.TB, tool, path string, pts [][2]float64) []string {
	t.Helper()
	var in strings.Builder
	for _, p := range pts {
		fmt.Fprintf(&in, "%.17g %.17g\n", p[0], p[1])
	}
	out := run(t, in.String(), tool, "-valonly", "-geoloc", path)
	lines := strings.Split(out, "\n")
	if len(lines) < len(pts) {
		t.Fatalf("gdallocationinfo gave %d lines for %d points", len(lines), len(pts))
	}
	return lines[:len(pts)]
}

// openPath opens a GeoTIFF file with a fresh cache.
func openPath(t testing.TB, path string) *COG {
	t.Helper()
	src, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	c, err := Open(context.Background(), src, NewCache(16<<20))
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return c
}

// readLines returns the lines of a file.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		out = append(out, s.Text())
	}
	return out
}
