package contour

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestTrace: lines on small grids whose contours are known exactly.
func TestTrace(t *testing.T) {
	nan := float32(math.NaN())
	t.Run("cone gives closed rings at the radius", func(t *testing.T) {
		const w = 51
		g := make([]float32, w*w)
		for j := range w {
			for i := range w {
				g[j*w+i] = float32(100.5 - math.Hypot(float64(i-25), float64(j-25)))
			}
		}
		lines := Trace(g, w, w, 5)
		levels := map[float64]int{}
		for _, l := range lines {
			levels[l.Level]++
			n := len(l.XY)
			if l.Level >= 80 && (l.XY[0] != l.XY[n-2] || l.XY[1] != l.XY[n-1]) {
				t.Errorf("level %g: ring not closed", l.Level)
			}
			for k := 0; k < n; k += 2 {
				// Linear interpolation of a cone: within 0.1 of the radius.
				if r := math.Hypot(l.XY[k]-25, l.XY[k+1]-25); math.Abs(r-(100.5-l.Level)) > 0.1 {
					t.Fatalf("level %g: vertex at radius %.3f", l.Level, r)
				}
			}
		}
		// Radii 0.5 to 20.5 fit in the grid (levels 100 to 80), one ring
		// each; 25.5 and 30.5 (75, 70) leave it at the four sides.
		if len(levels) != 7 || levels[100] != 1 || levels[80] != 1 || levels[75] != 4 || levels[70] != 4 {
			t.Errorf("levels %v", levels)
		}
	})
	t.Run("a value on the level counts as above it", func(t *testing.T) {
		// 9 | 10 | 11: the 10 m line passes just left of the middle
		// column (GDAL moves 10 up by 1e-6), never through two cells.
		g := []float32{9, 10, 11, 9, 10, 11}
		lines := Trace(g, 3, 2, 10)
		if len(lines) != 1 || len(lines[0].XY) != 4 || math.Abs(lines[0].XY[0]-1) > 1e-5 || lines[0].XY[0] >= 1 {
			t.Fatalf("%+v", lines)
		}
	})
	t.Run("no data ends a line half a pixel into the gap", func(t *testing.T) {
		// A ramp rising east with a NaN row in the middle: the 10 m line
		// is two lines, each ending half way to the NaN row, as GDAL's.
		const w, h = 4, 5
		g := make([]float32, w*h)
		for j := range h {
			for i := range w {
				g[j*w+i] = float32(8 + i)
				if j == 2 {
					g[j*w+i] = nan
				}
			}
		}
		lines := Trace(g, w, h, 10)
		if len(lines) != 2 {
			t.Fatalf("%d lines: %+v", len(lines), lines)
		}
		for _, l := range lines {
			ys := []float64{}
			for k := 0; k < len(l.XY); k += 2 {
				if math.Abs(l.XY[k]-2) > 1e-5 {
					t.Errorf("vertex x %g, want 2", l.XY[k])
				}
				ys = append(ys, l.XY[k+1])
			}
			lo, hi := math.Min(ys[0], ys[len(ys)-1]), math.Max(ys[0], ys[len(ys)-1])
			if !(lo == 0 && hi == 1.5 || lo == 2.5 && hi == 4) {
				t.Errorf("line from y %g to %g", lo, hi)
			}
		}
	})
	t.Run("empty and all-NaN grids give no lines", func(t *testing.T) {
		if Trace(nil, 0, 0, 1) != nil || Trace([]float32{nan, nan, nan, nan}, 2, 2, 1) != nil {
			t.Error("lines from nothing")
		}
	})
}

// TestTileRange: tiles outside MinZoom to MaxZoom or the grid are ErrTile;
// a tile without data is empty.
func TestTileRange(t *testing.T) {
	tl := NewTiler(nil)
	for _, c := range [][3]int{{MinZoom - 1, 0, 0}, {MaxZoom + 1, 0, 0}, {14, 1 << 14, 0}, {14, -1, 0}} {
		if _, err := tl.Tile(context.Background(), c[0], c[1], c[2]); !errors.Is(err, ErrTile) {
			t.Errorf("%v: %v", c, err)
		}
	}
	if b, err := tl.Tile(context.Background(), 14, 100, 100); err != nil || len(b) != 0 {
		t.Errorf("no data: %d bytes, %v", len(b), err)
	}
}

func TestInterval(t *testing.T) {
	for z, want := range map[int]int{10: 50, 11: 50, 12: 10, 13: 10, 14: 5, 15: 5, 16: 1, 18: 1} {
		if got := Interval(z); got != want {
			t.Errorf("z%d: %d m, want %d", z, got, want)
		}
	}
}
