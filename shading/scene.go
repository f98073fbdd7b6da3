package shading

import (
	"fmt"
	"math"
	"sort"
)

// Scene is the triangles of the buildings around a facet in a uniform grid
// of square cells (local metres from an origin, to keep UTM values out of
// the products), the acceleration structure the beam rays and the horizon
// rays walk. A Scene is immutable once built and safe for concurrent use.
type Scene struct {
	ox, oy   float64   // origin (UTM metres) of the local coordinates
	tri      []float64 // 9 floats per triangle: local x, y, z of its three corners
	edge     []float64 // 6 floats per triangle: corner 1 − corner 0, corner 2 − corner 0
	cellM    float64
	nx, ny   int
	minX     float64 // local x, y of the grid's south-west corner
	minY     float64
	cells    [][]int32 // triangle indices per cell, row-major from the south-west
	cellMaxZ []float64
	maxZ     float64
	// Per triangle, in descending order of zMax (the triangles are sorted
	// so, and the ones above a height are a prefix): its highest corner and
	// its plan box (local x0, y0, x1, y1).
	zMax []float64
	box  []float64
}

// sceneCellM is the grid cell: a few triangles of a house per cell.
const sceneCellM = 4.0

// maxSceneTriangles bounds a scene (a 500 m radius of a dense centre holds
// ~200,000).
const maxSceneTriangles = 2_000_000

// NewScene builds a scene around origin ox, oy (UTM metres) from triangles
// given as 9 UTM coordinates each (x, y, z of three corners). Degenerate
// triangles are dropped. Errors: ErrInvalid for a non-finite coordinate, a
// length not a multiple of 9, or more than 2,000,000 triangles.
func NewScene(ox, oy float64, triangles []float64) (*Scene, error) {
	if len(triangles)%9 != 0 || len(triangles)/9 > maxSceneTriangles {
		return nil, fmt.Errorf("shading: %d triangle coordinates: %w", len(triangles), ErrInvalid)
	}
	s := &Scene{ox: ox, oy: oy, cellM: sceneCellM, maxZ: math.Inf(-1)}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := 0; i < len(triangles); i += 9 {
		var t [9]float64
		for k := range 9 {
			v := triangles[i+k]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("shading: triangle %d: %w", i/9, ErrInvalid)
			}
			switch k % 3 {
			case 0:
				v -= ox
			case 1:
				v -= oy
			}
			t[k] = v
		}
		e1 := [3]float64{t[3] - t[0], t[4] - t[1], t[5] - t[2]}
		e2 := [3]float64{t[6] - t[0], t[7] - t[1], t[8] - t[2]}
		c := cross(e1, e2)
		if c[0]*c[0]+c[1]*c[1]+c[2]*c[2] < 1e-8 {
			continue
		}
		s.tri = append(s.tri, t[:]...)
		for k := 0; k < 9; k += 3 {
			minX, maxX = math.Min(minX, t[k]), math.Max(maxX, t[k])
			minY, maxY = math.Min(minY, t[k+1]), math.Max(maxY, t[k+1])
			s.maxZ = math.Max(s.maxZ, t[k+2])
		}
	}
	if len(s.tri) == 0 {
		return s, nil
	}
	s.sortByTop()
	s.edge = make([]float64, 0, len(s.tri)/9*6)
	s.box = make([]float64, 0, len(s.tri)/9*4)
	for i := 0; i < len(s.tri); i += 9 {
		t := s.tri[i : i+9]
		s.edge = append(s.edge, t[3]-t[0], t[4]-t[1], t[5]-t[2], t[6]-t[0], t[7]-t[1], t[8]-t[2])
		s.box = append(s.box, min(t[0], t[3], t[6]), min(t[1], t[4], t[7]), max(t[0], t[3], t[6]), max(t[1], t[4], t[7]))
	}
	s.buildGrid(minX, minY, maxX, maxY)
	return s, nil
}

// buildGrid files the triangles in the grid's cells over their plan box
// minX..maxX, minY..maxY (local metres) with a cell of margin.
func (s *Scene) buildGrid(minX, minY, maxX, maxY float64) {
	s.minX, s.minY = minX-s.cellM, minY-s.cellM
	s.nx = int((maxX-s.minX)/s.cellM) + 2
	s.ny = int((maxY-s.minY)/s.cellM) + 2
	s.cells = make([][]int32, s.nx*s.ny)
	s.cellMaxZ = make([]float64, s.nx*s.ny)
	for i := range s.cellMaxZ {
		s.cellMaxZ[i] = math.Inf(-1)
	}
	for ti := 0; ti < len(s.tri)/9; ti++ {
		t := s.tri[ti*9 : ti*9+9]
		b := s.box[ti*4 : ti*4+4]
		r0, r1 := s.cellY(b[1]), s.cellY(b[3])
		for r := r0; r <= r1; r++ {
			// The triangle's x-range within the row's band: the clipped
			// edges' end points span it (the band cuts a convex polygon).
			// A sliver of a long earcut fan enters only the cells it
			// crosses, not every cell of its box.
			y0 := s.minY + float64(r)*s.cellM
			x0, x1, ok := bandRange(t, y0, y0+s.cellM)
			if !ok {
				continue
			}
			for c := s.cellX(x0); c <= s.cellX(x1); c++ {
				k := r*s.nx + c
				s.cells[k] = append(s.cells[k], int32(ti))
				s.cellMaxZ[k] = math.Max(s.cellMaxZ[k], s.zMax[ti])
			}
		}
	}
}

// bandRange is the x-range of triangle t (9 local coordinates) within the
// band y0 <= y <= y1, widened by a millimetre; ok is false when the band
// misses it.
func bandRange(t []float64, y0, y1 float64) (x0, x1 float64, ok bool) {
	const eps = 1e-3
	y0, y1 = y0-eps, y1+eps
	x0, x1 = math.Inf(1), math.Inf(-1)
	for k := range 3 {
		j := (k + 1) % 3
		ax, ay, bx, by := t[k*3], t[k*3+1], t[j*3], t[j*3+1]
		if ay > by {
			ax, ay, bx, by = bx, by, ax, ay
		}
		if by < y0 || ay > y1 {
			continue
		}
		// Clip the edge to the band.
		lo, hi := ax, bx
		if by-ay > 1e-12 {
			f0 := math.Max(0, (y0-ay)/(by-ay))
			f1 := math.Min(1, (y1-ay)/(by-ay))
			lo, hi = ax+f0*(bx-ax), ax+f1*(bx-ax)
		}
		x0, x1 = math.Min(x0, math.Min(lo, hi)), math.Max(x1, math.Max(lo, hi))
	}
	if x0 > x1 {
		return 0, 0, false
	}
	return x0 - eps, x1 + eps, true
}

// sortByTop orders the triangles by descending highest corner and sets
// zMax, so the triangles above a height are a prefix (above).
func (s *Scene) sortByTop() {
	n := len(s.tri) / 9
	order := make([]int, n)
	top := make([]float64, n)
	for i := range order {
		order[i] = i
		t := s.tri[i*9 : i*9+9]
		top[i] = max(t[2], t[5], t[8])
	}
	sort.SliceStable(order, func(a, b int) bool { return top[order[a]] > top[order[b]] })
	tri := make([]float64, len(s.tri))
	s.zMax = make([]float64, n)
	for k, i := range order {
		copy(tri[k*9:k*9+9], s.tri[i*9:i*9+9])
		s.zMax[k] = top[i]
	}
	s.tri = tri
}

// above returns how many triangles have their highest corner above z (the
// prefix of the sorted triangles).
func (s *Scene) above(z float64) int {
	return sort.Search(len(s.zMax), func(i int) bool { return !(s.zMax[i] > z) })
}

// Triangles returns the number of triangles in the scene.
func (s *Scene) Triangles() int { return len(s.tri) / 9 }

func (s *Scene) cellX(x float64) int { return min(max(int((x-s.minX)/s.cellM), 0), s.nx-1) }
func (s *Scene) cellY(y float64) int { return min(max(int((y-s.minY)/s.cellM), 0), s.ny-1) }

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// walk visits the cells a horizontal ray from local (px, py) in direction
// (dx, dy) (unit or zero) crosses, in order, with the horizontal distance
// at which the ray enters each, until visit returns false, the ray leaves
// the grid or passes maxT (2D DDA, Amanatides and Woo 1987).
func (s *Scene) walk(px, py, dx, dy, maxT float64, visit func(cell int, tEnter float64) bool) {
	if s.nx == 0 {
		return
	}
	fx, fy := (px-s.minX)/s.cellM, (py-s.minY)/s.cellM
	base := 0.0 // ray parameter (cells) where the walk starts
	if fx < 0 || fy < 0 || fx >= float64(s.nx) || fy >= float64(s.ny) {
		// Start outside: clip to the grid's box.
		t0, ok := clipRay(fx, fy, dx, dy, float64(s.nx), float64(s.ny))
		if !ok {
			return
		}
		base = t0
		fx, fy = fx+dx*t0, fy+dy*t0
		fx, fy = min(max(fx, 0), float64(s.nx)-1e-9), min(max(fy, 0), float64(s.ny)-1e-9)
	}
	c, r := int(fx), int(fy)
	stepC, stepR := 1, 1
	tMaxX, tMaxY := math.Inf(1), math.Inf(1)
	tDX, tDY := math.Inf(1), math.Inf(1)
	if dx > 1e-12 {
		tMaxX, tDX = (float64(c+1)-fx)/dx, 1/dx
	} else if dx < -1e-12 {
		stepC, tMaxX, tDX = -1, (fx-float64(c))/-dx, -1/dx
	}
	if dy > 1e-12 {
		tMaxY, tDY = (float64(r+1)-fy)/dy, 1/dy
	} else if dy < -1e-12 {
		stepR, tMaxY, tDY = -1, (fy-float64(r))/-dy, -1/dy
	}
	t := 0.0
	for {
		if !visit(r*s.nx+c, (base+t)*s.cellM) {
			return
		}
		if tMaxX < tMaxY {
			t, tMaxX, c = tMaxX, tMaxX+tDX, c+stepC
		} else {
			t, tMaxY, r = tMaxY, tMaxY+tDY, r+stepR
		}
		if math.IsInf(t, 1) || (base+t)*s.cellM > maxT || c < 0 || r < 0 || c >= s.nx || r >= s.ny {
			return
		}
	}
}

// clipRay is the parameter at which a ray from outside the box [0,w)x[0,h)
// enters it (slab test).
func clipRay(fx, fy, dx, dy, w, h float64) (float64, bool) {
	t0, t1 := 0.0, math.Inf(1)
	for _, a := range [2][3]float64{{fx, dx, w}, {fy, dy, h}} {
		if math.Abs(a[1]) < 1e-12 {
			if a[0] < 0 || a[0] >= a[2] {
				return 0, false
			}
			continue
		}
		ta, tb := (0-a[0])/a[1], (a[2]-a[0])/a[1]
		if ta > tb {
			ta, tb = tb, ta
		}
		t0, t1 = math.Max(t0, ta), math.Min(t1, tb)
	}
	return t0, t0 <= t1
}

// Blocked reports whether the ray from UTM point p toward the unit
// direction d (east, north, up; grid axes) hits a triangle of the scene.
func (s *Scene) Blocked(px, py, pz, dx, dy, dz float64) bool {
	if len(s.tri) == 0 || dz <= 0 && pz > s.maxZ {
		return false
	}
	lx, ly := px-s.ox, py-s.oy
	h := math.Hypot(dx, dy)
	hx, hy := 0.0, 0.0
	if h > 1e-12 {
		hx, hy = dx/h, dy/h
	}
	slope := math.Inf(1) // rise per horizontal metre
	if h > 1e-12 {
		slope = dz / h
	}
	hit := false
	s.walk(lx, ly, hx, hy, math.Inf(1), func(cell int, tEnter float64) bool {
		zEnter := pz + tEnter*slope
		if tEnter == 0 {
			zEnter = pz
		}
		if zEnter > s.maxZ && slope >= 0 {
			return false
		}
		if zEnter > s.cellMaxZ[cell] && slope >= 0 {
			return true
		}
		for _, ti := range s.cells[cell] {
			if s.hits(int(ti), lx, ly, pz, dx, dy, dz) {
				hit = true
				return false
			}
		}
		return true
	})
	return hit
}

// hits is the Möller-Trumbore test of triangle ti against the ray from
// (px, py, pz) along d, for hits at distance > 1 mm.
func (s *Scene) hits(ti int, px, py, pz, dx, dy, dz float64) bool {
	t := s.tri[ti*9 : ti*9+3]
	e := s.edge[ti*6 : ti*6+6]
	e1 := [3]float64{e[0], e[1], e[2]}
	e2 := [3]float64{e[3], e[4], e[5]}
	p := cross([3]float64{dx, dy, dz}, e2)
	det := e1[0]*p[0] + e1[1]*p[1] + e1[2]*p[2]
	if math.Abs(det) < 1e-12 {
		return false
	}
	inv := 1 / det
	o := [3]float64{px - t[0], py - t[1], pz - t[2]}
	u := (o[0]*p[0] + o[1]*p[1] + o[2]*p[2]) * inv
	if u < 0 || u > 1 {
		return false
	}
	q := cross(o, e1)
	v := (dx*q[0] + dy*q[1] + dz*q[2]) * inv
	if v < 0 || u+v > 1 {
		return false
	}
	return (e2[0]*q[0]+e2[1]*q[1]+e2[2]*q[2])*inv > 1e-3
}

// Horizon returns the buildings' horizon seen from UTM point p along rays
// of true azimuth i·360/rays (convDeg the grid convergence), out to maxDistM:
// per ray, the highest elevation angle at which the vertical half-plane of
// the ray cuts a triangle (the elevation along a straight cut is monotonic,
// so the cut's end points carry it).
func (s *Scene) Horizon(px, py, pz float64, rays int, convDeg, maxDistM float64) Horizon {
	h := NewHorizon(rays)
	if len(s.tri) == 0 {
		return h
	}
	lx, ly := px-s.ox, py-s.oy
	for i := range rays {
		az := (float64(i)*360/float64(rays) + convDeg) * math.Pi / 180
		dx, dy := math.Sin(az), math.Cos(az)
		best := math.Inf(-1) // tan of the elevation
		s.walk(lx, ly, dx, dy, maxDistM, func(cell int, tEnter float64) bool {
			if tEnter > 0 && s.cellMaxZ[cell]-pz <= best*tEnter {
				return true // nothing in this cell rises above the horizon so far
			}
			for _, ti := range s.cells[cell] {
				best = math.Max(best, s.cutTan(int(ti), lx, ly, pz, dx, dy))
			}
			return true
		})
		if !math.IsInf(best, -1) {
			h.ElevDeg[i] = math.Atan(best) * 180 / math.Pi
		}
	}
	return h
}

// cutTan is the highest tan(elevation) of the cut of triangle ti by the
// vertical half-plane from (px, py) along (dx, dy), -Inf when none.
func (s *Scene) cutTan(ti int, px, py, pz, dx, dy float64) float64 {
	t := s.tri[ti*9 : ti*9+9]
	var side, along, z [3]float64
	for k := range 3 {
		ex, ey := t[k*3]-px, t[k*3+1]-py
		side[k] = dx*ey - dy*ex
		along[k] = dx*ex + dy*ey
		z[k] = t[k*3+2] - pz
	}
	best := math.Inf(-1)
	consider := func(a, zz float64) {
		if a > 0.05 {
			best = math.Max(best, zz/a)
		}
	}
	for k := range 3 {
		j := (k + 1) % 3
		if side[k] == 0 {
			consider(along[k], z[k])
		}
		if side[k]*side[j] < 0 {
			f := side[k] / (side[k] - side[j])
			consider(along[k]+f*(along[j]-along[k]), z[k]+f*(z[j]-z[k]))
		}
	}
	return best
}
