package raster

import "encoding/binary"

// undoHorizontal reverses TIFF predictor 2 in place: each sample of a row
// of w samples of bps bytes was stored as the difference to its left
// neighbour, in the file's byte order and with wrap-around arithmetic.
func undoHorizontal(buf []byte, w, bps int, bo binary.ByteOrder) {
	row := w * bps
	for r := 0; r+row <= len(buf); r += row {
		line := buf[r : r+row]
		switch bps {
		case 1:
			for i := 1; i < len(line); i++ {
				line[i] += line[i-1]
			}
		case 2:
			prev := bo.Uint16(line)
			for i := 2; i < len(line); i += 2 {
				prev += bo.Uint16(line[i:])
				bo.PutUint16(line[i:], prev)
			}
		case 4:
			prev := bo.Uint32(line)
			for i := 4; i < len(line); i += 4 {
				prev += bo.Uint32(line[i:])
				bo.PutUint32(line[i:], prev)
			}
		case 8:
			prev := bo.Uint64(line)
			for i := 8; i < len(line); i += 8 {
				prev += bo.Uint64(line[i:])
				bo.PutUint64(line[i:], prev)
			}
		}
	}
}

// undoFloat reverses TIFF predictor 3 (Adobe Technical Note 3) in place for
// rows of w samples of bps bytes. A row is stored as bps byte planes, most
// significant byte first, then byte-wise differenced; the planes do not
// depend on the file's byte order. The result is little-endian.
func undoFloat(buf []byte, w, bps int) {
	row := w * bps
	tmp := make([]byte, row)
	for r := 0; r+row <= len(buf); r += row {
		line := buf[r : r+row]
		var acc byte
		for i, b := range line {
			acc += b
			tmp[i] = acc
		}
		for b := range bps {
			plane := tmp[b*w : (b+1)*w]
			out := bps - 1 - b
			for i, v := range plane {
				line[i*bps+out] = v
			}
		}
	}
}

// applyFloat applies TIFF predictor 3 to rows of w little-endian samples of
// bps bytes, from src into dst (same length); it is the inverse of undoFloat.
func applyFloat(dst, src []byte, w, bps int) {
	row := w * bps
	for r := 0; r+row <= len(src); r += row {
		in, out := src[r:r+row], dst[r:r+row]
		for b := range bps {
			plane := out[b*w : (b+1)*w]
			from := bps - 1 - b
			for i := range plane {
				plane[i] = in[i*bps+from]
			}
		}
		for i := len(out) - 1; i > 0; i-- {
			out[i] -= out[i-1]
		}
	}
}
