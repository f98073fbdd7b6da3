package tiles3d

import (
	"math"

	"github.com/svc-geodata/svc/geo"
)

// GRS80 (the ETRS89 ellipsoid; WGS84 differs by 0.1 mm in b).
const (
	semiMajor = 6378137.0
	flat80    = 1 / 298.257222101
)

// ecef returns earth-centred coordinates (metres) of lon, lat (degrees)
// and ellipsoidal height h (metres).
func ecef(lon, lat, h float64) [3]float64 {
	e2 := flat80 * (2 - flat80)
	sl, cl := math.Sincos(lon * math.Pi / 180)
	sp, cp := math.Sincos(lat * math.Pi / 180)
	n := semiMajor / math.Sqrt(1-e2*sp*sp)
	return [3]float64{(n + h) * cp * cl, (n + h) * cp * sl, (n*(1-e2) + h) * sp}
}

// frame is an affine map: columns of a 3x3 linear part and a translation.
type frame struct {
	col [3][3]float64
	t   [3]float64
}

// frameAt is the East-North-Up frame at a UTM point (height 0), in ECEF.
func frameAt(z geo.Zone, e, n float64) frame {
	lon, lat := geo.FromUTM(z, e, n)
	sl, cl := math.Sincos(lon * math.Pi / 180)
	sp, cp := math.Sincos(lat * math.Pi / 180)
	return frame{col: [3][3]float64{{-sl, cl, 0}, {-sp * cl, -sp * sl, cp}, {cp * cl, cp * sl, sp}}, t: ecef(lon, lat, 0)}
}

// gridFrame maps UTM grid offsets (dx east, dy north, metres) and height
// around (e, n) to ECEF: the grid axes at the point, with their scale and
// convergence, taken by central differences over 100 m.
func gridFrame(z geo.Zone, e, n float64) frame {
	const d = 50.0
	at := func(x, y float64) [3]float64 { lon, lat := geo.FromUTM(z, x, y); return ecef(lon, lat, 0) }
	px, mx, py, my := at(e+d, n), at(e-d, n), at(e, n+d), at(e, n-d)
	enu := frameAt(z, e, n)
	var f frame
	for k := range 3 {
		f.col[0][k] = (px[k] - mx[k]) / (2 * d)
		f.col[1][k] = (py[k] - my[k]) / (2 * d)
	}
	f.col[2] = enu.col[2]
	f.t = enu.t
	return f
}

// apply maps a point.
func (f frame) apply(p [3]float64) [3]float64 {
	var out [3]float64
	for k := range 3 {
		out[k] = f.col[0][k]*p[0] + f.col[1][k]*p[1] + f.col[2][k]*p[2] + f.t[k]
	}
	return out
}

// inverse of a rigid frame (orthonormal columns): transpose and back-translate.
func (f frame) inverse() frame {
	var g frame
	for i := range 3 {
		for k := range 3 {
			g.col[k][i] = f.col[i][k]
		}
	}
	for i := range 3 {
		g.t[i] = -(f.col[i][0]*f.t[0] + f.col[i][1]*f.t[1] + f.col[i][2]*f.t[2])
	}
	return g
}

// mul returns f after g (f(g(p))).
func (f frame) mul(g frame) frame {
	var h frame
	for c := range 3 {
		for k := range 3 {
			h.col[c][k] = f.col[0][k]*g.col[c][0] + f.col[1][k]*g.col[c][1] + f.col[2][k]*g.col[c][2]
		}
	}
	h.t = f.apply(g.t)
	return h
}

// matrix is the column-major 4x4 of 3D Tiles' tile.transform.
func (f frame) matrix() []float64 {
	m := make([]float64, 16)
	for c := range 3 {
		copy(m[4*c:4*c+3], f.col[c][:])
	}
	copy(m[12:15], f.t[:])
	m[15] = 1
	return m
}

// frameOf is the frame of a column-major 4x4 (matrix's inverse).
func frameOf(m []float64) frame {
	var f frame
	if len(m) != 16 {
		return f
	}
	for c := range 3 {
		copy(f.col[c][:], m[4*c:4*c+3])
	}
	copy(f.t[:], m[12:15])
	return f
}
