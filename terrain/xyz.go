package terrain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/svc-geodata/svc/raster"
)

// Limits of ReadXYZ: a DGM1 tile of 2 km x 2 km has 4 million points.
const (
	MaxXYZPoints = 1 << 24 // points read from one file
	MaxXYZPixels = 1 << 25 // cells of the resulting grid
	maxXYZLine   = 256     // bytes in one line
)

// Nodata is the NoData value of the COGs the importers write (spec 2.7).
const Nodata = -9999.0

// XYZOptions tune ReadXYZ.
type XYZOptions struct {
	EPSG int // CRS of the coordinates, stored in the grid
}

// ReadXYZ reads an XYZ ASCII elevation grid as the state portals deliver
// DGM1: one point "x y z" per line, separated by spaces, tabs, commas or
// semicolons (decimal point only), rows in any order, an optional header
// line and '#' comments. Coordinates are cell centres in metres, as GDAL's
// XYZ driver reads them; eastings with a zone prefix (32477000.5) lose it.
// The grid spacing is the smallest step between distinct coordinates; cells
// without a point (gaps) become Nodata (-9999), as do z values of -9999 or
// NaN. Errors wrap ErrXYZ and name the file and line: malformed lines,
// duplicate or off-grid points, fewer than 2 distinct x or y values, more
// than MaxXYZPoints points or a grid over MaxXYZPixels cells.
func ReadXYZ(r io.Reader, name string, o XYZOptions) (raster.Grid, error) {
	pts, err := readPoints(r, name)
	if err != nil {
		return raster.Grid{}, err
	}
	return pts.grid(name, o.EPSG)
}

type xyzPoints struct {
	x, y []float64
	z    []float32
	line []int32
}

func readPoints(r io.Reader, name string) (*xyzPoints, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	p := &xyzPoints{}
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxXYZLine {
			return nil, fmt.Errorf("%w: %s:%d: line longer than %d bytes", ErrXYZ, name, n, maxXYZLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("terrain: %s:%d: %w", name, n, err)
		}
		if perr := p.add(line, n); perr != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v", ErrXYZ, name, n, perr)
		}
		if len(p.x) > MaxXYZPoints {
			return nil, fmt.Errorf("%w: %s:%d: more than %d points", ErrXYZ, name, n, MaxXYZPoints)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if len(p.x) == 0 {
		return nil, fmt.Errorf("%w: %s: no points", ErrXYZ, name)
	}
	return p, nil
}

var errHeader = errors.New("header")

// add parses one line; blank lines, comments and a first-line header are
// skipped.
func (p *xyzPoints) add(line []byte, n int) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == '#' {
		return nil
	}
	var f [3]float64
	k := 0
	for len(line) > 0 {
		i := bytes.IndexAny(line, " \t,;")
		tok := line
		if i >= 0 {
			tok, line = line[:i], line[i+1:]
		} else {
			line = nil
		}
		if len(tok) == 0 {
			continue // repeated separators, e.g. "1  2"
		}
		if k == 3 {
			return fmt.Errorf("more than 3 values")
		}
		v, err := strconv.ParseFloat(string(tok), 64)
		if err != nil || math.IsInf(v, 0) || (math.IsNaN(v) && k < 2) {
			if n == 1 && k == 0 {
				return nil // a header line such as "X Y Z"
			}
			return fmt.Errorf("%q is not a number", clipBytes(tok))
		}
		f[k] = v
		k++
	}
	if k != 3 {
		return fmt.Errorf("%d values, want x y z", k)
	}
	x := f[0]
	if x >= 32e6 && x < 34e6 { // zone-prefixed easting
		x -= math.Floor(x/1e6) * 1e6
	}
	if math.Abs(x) > 1e8 || math.Abs(f[1]) > 1e8 {
		return fmt.Errorf("coordinate %g %g out of range", f[0], f[1])
	}
	p.x, p.y, p.z, p.line = append(p.x, x), append(p.y, f[1]), append(p.z, float32(f[2])), append(p.line, int32(n))
	return nil
}

func clipBytes(b []byte) string {
	if len(b) > 24 {
		return string(b[:24]) + "…"
	}
	return string(b)
}

// axis is one regular coordinate axis of the grid.
type axis struct {
	min, step float64
	n         int
}

func detectAxis(vs []float64, what string) (axis, error) {
	u := slices.Clone(vs)
	slices.Sort(u)
	u = slices.Compact(u)
	if len(u) < 2 {
		return axis{}, fmt.Errorf("only %d distinct %s value(s); a grid needs 2", len(u), what)
	}
	step := math.Inf(1)
	for i := 1; i < len(u); i++ {
		step = math.Min(step, u[i]-u[i-1])
	}
	span := (u[len(u)-1] - u[0]) / step
	if step < 1e-3 || span > MaxXYZPixels {
		return axis{}, fmt.Errorf("%s spacing %g over %g m is not a grid this reader accepts", what, step, u[len(u)-1]-u[0])
	}
	return axis{min: u[0], step: step, n: int(math.Round(span)) + 1}, nil
}

// index returns the cell of v on the axis, or false when v is off-grid.
func (a axis) index(v float64) (int, bool) {
	f := (v - a.min) / a.step
	i := math.Round(f)
	return int(i), math.Abs(f-i) < 1e-3 && i >= 0 && int(i) < a.n
}

func (p *xyzPoints) grid(name string, epsg int) (raster.Grid, error) {
	ax, err := detectAxis(p.x, "x")
	if err != nil {
		return raster.Grid{}, fmt.Errorf("%w: %s: %v", ErrXYZ, name, err)
	}
	ay, err := detectAxis(p.y, "y")
	if err != nil {
		return raster.Grid{}, fmt.Errorf("%w: %s: %v", ErrXYZ, name, err)
	}
	if ax.n*ay.n > MaxXYZPixels {
		return raster.Grid{}, fmt.Errorf("%w: %s: grid of %d x %d cells exceeds %d", ErrXYZ, name, ax.n, ay.n, MaxXYZPixels)
	}
	nd := Nodata
	g := raster.Grid{Width: ax.n, Height: ay.n, Data: make([]float32, ax.n*ay.n), EPSG: epsg, Nodata: &nd,
		GeoTransform: [6]float64{ax.min - ax.step/2, ax.step, 0, ay.min + float64(ay.n-1)*ay.step + ay.step/2, 0, -ay.step}}
	const unset = float32(-math.MaxFloat32) // marks cells without a point yet
	for i := range g.Data {
		g.Data[i] = unset
	}
	for i := range p.x {
		cx, okx := ax.index(p.x[i])
		cy, oky := ay.index(p.y[i])
		if !okx || !oky {
			return raster.Grid{}, fmt.Errorf("%w: %s:%d: point %g %g is off the %g m grid", ErrXYZ, name, p.line[i], p.x[i], p.y[i], ax.step)
		}
		k := (ay.n-1-cy)*ax.n + cx
		if g.Data[k] != unset {
			return raster.Grid{}, fmt.Errorf("%w: %s:%d: duplicate point %g %g", ErrXYZ, name, p.line[i], p.x[i], p.y[i])
		}
		z := p.z[i]
		if z != z || z == unset {
			z = float32(Nodata)
		}
		g.Data[k] = z
	}
	for i, v := range g.Data {
		if v == unset {
			g.Data[i] = float32(Nodata)
		}
	}
	return g, nil
}
