package mvt

import "math"

// TileID is a Web Mercator XYZ tile (EPSG:3857, y from the north, as
// OpenStreetMap and every web map number them).
type TileID struct{ Z, X, Y int }

// Valid reports whether the tile exists: z from 0 to 30, x and y below 2^z.
func (t TileID) Valid() bool {
	return t.Z >= 0 && t.Z <= 30 && t.X >= 0 && t.Y >= 0 && t.X < 1<<t.Z && t.Y < 1<<t.Z
}

// BoundsWGS84 returns the tile's extent in degrees: west, south, east, north.
func (t TileID) BoundsWGS84() (west, south, east, north float64) {
	n := math.Exp2(float64(t.Z))
	lon := func(x float64) float64 { return x/n*360 - 180 }
	lat := func(y float64) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*y/n))) * 180 / math.Pi }
	return lon(float64(t.X)), lat(float64(t.Y + 1)), lon(float64(t.X + 1)), lat(float64(t.Y))
}

// BufferedWGS84 is BoundsWGS84 grown by buf tile units (of extent) on
// every side: what a tile with a clip buffer needs of the data.
func (t TileID) BufferedWGS84(extent, buf int) (west, south, east, north float64) {
	n := math.Exp2(float64(t.Z))
	f := float64(buf) / float64(extent)
	lon := func(x float64) float64 { return x/n*360 - 180 }
	lat := func(y float64) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*y/n))) * 180 / math.Pi }
	return lon(float64(t.X) - f), lat(float64(t.Y+1) + f), lon(float64(t.X+1) + f), lat(float64(t.Y) - f)
}

// Projector maps WGS84 longitude and latitude (degrees) to the
// coordinates of one tile: 0 to extent from the west and from the north.
type Projector struct {
	scale, x0, y0 float64
}

// NewProjector returns the projector of tile t with extent units a side.
func NewProjector(t TileID, extent int) Projector {
	n := math.Exp2(float64(t.Z))
	return Projector{scale: n * float64(extent), x0: float64(t.X) * float64(extent), y0: float64(t.Y) * float64(extent)}
}

// Project returns (lon, lat) in tile units, not rounded: World scaled to
// the tile's zoom and shifted to its corner. The scaling is by a power of
// two and the shift by an integer, so for World values from 0.25 to 1
// both are exact (see RoundWorld).
func (p Projector) Project(lon, lat float64) (x, y float64) {
	wx, wy := World(lon, lat)
	return wx*p.scale - p.x0, wy*p.scale - p.y0
}

// World returns (lon, lat) as fractions of the Web Mercator world square:
// 0 to 1 from the antimeridian eastwards and from the north (about 85.05°
// N) southwards.
func World(lon, lat float64) (x, y float64) {
	x = (lon + 180) / 360
	s := math.Sin(lat * math.Pi / 180)
	y = 0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)
	return x, y
}

// WorldBits is the fixed-point resolution of RoundWorld: a World value v
// from 0.25 to 1 is exactly the integer v*2^WorldBits.
const WorldBits = 54

// RoundWorld returns the tile coordinate of a world position q (World
// times 2^WorldBits, an integer) in the tile at zoom z whose corner is
// origin (X or Y times extent) with extent a power of two: what rounding
// Project's value to the nearest integer, halves away from zero, gives,
// computed in integers. shift is WorldBits - z - log2(extent), from 0 to 62.
func RoundWorld(q int64, origin int64, shift uint) int64 {
	t := q - origin<<shift
	if shift == 0 {
		return t
	}
	half := int64(1) << (shift - 1)
	if t >= 0 {
		return (t + half) >> shift
	}
	return -((-t + half) >> shift)
}

// MercatorMetres returns EPSG:3857 metres of (lon, lat), as PROJ gives
// them; tests compare with it.
func MercatorMetres(lon, lat float64) (x, y float64) {
	const r = 6378137.0
	return r * lon * math.Pi / 180, r * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360))
}
