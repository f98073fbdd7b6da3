package pmtiles

import "math/bits"

// maxZoom is the deepest zoom a tile id of 64 bits addresses here (the
// ids of zoom 31 end below 2^64).
const maxZoom = 31

// rotate is the quadrant rotation of the Hilbert curve.
func rotate(n, x, y, rx, ry uint32) (uint32, uint32) {
	if ry == 0 {
		if rx != 0 {
			x, y = n-1-x, n-1-y
		}
		return y, x
	}
	return x, y
}

// TileID is the Hilbert tile id of z/x/y (spec 4.1): the tiles of all
// lower zooms, then the position on zoom z's Hilbert curve. z is at most
// 31, x and y below 2^z.
func TileID(z uint8, x, y uint32) uint64 {
	acc := (uint64(1)<<(2*uint(z)) - 1) / 3
	for s := uint32(1) << z >> 1; s > 0; s >>= 1 {
		rx, ry := s&x, s&y
		acc += uint64(s) * uint64(s) * uint64((3*b2(rx))^b2(ry))
		x, y = rotate(s, x, y, rx, ry)
	}
	return acc
}

func b2(v uint32) uint32 {
	if v != 0 {
		return 1
	}
	return 0
}

// ZXY is the inverse of TileID.
func ZXY(id uint64) (z uint8, x, y uint32) {
	z = uint8((bits.Len64(3*id+1) - 1) / 2)
	t := id - (uint64(1)<<(2*uint(z))-1)/3
	for a := uint8(0); a < z; a++ {
		s := uint32(1) << a
		rx := uint32(1 & (t >> 1))
		ry := uint32(1 & (t ^ uint64(rx)))
		x, y = rotate(s, x, y, rx, ry)
		x += rx << a
		y += ry << a
		t >>= 2
	}
	return z, x, y
}
