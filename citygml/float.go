package citygml

import (
	"math"
	"strconv"
)

// pow10 holds the powers of ten that are exact in a float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// isSpace reports XML whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// parseFloat parses the decimal number at the start of b, which must end at
// a whitespace byte or at the end of b, and returns it with the number of
// bytes consumed. Plain decimals whose mantissa fits 2^53 and whose exponent
// is at most 22 in magnitude take Clinger's exact fast path (one multiply or
// divide of two exact floats is correctly rounded); everything else goes to
// strconv.ParseFloat, so results equal strconv's bit for bit. NaN and
// infinities are rejected.
func parseFloat(b []byte) (float64, int, bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		mant = mant*10 + uint64(b[i]-'0')
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			exp--
		}
	}
	if digits == 0 || i == start {
		return slowFloat(b)
	}
	if i < len(b) && !isSpace(b[i]) {
		return slowFloat(b)
	}
	if digits > 15 || mant >= 1<<53 || exp < -22 {
		return slowFloat(b)
	}
	f := float64(mant) / pow10[-exp]
	if neg {
		f = -f
	}
	return f, i, true
}

// slowFloat handles what parseFloat's fast path does not: long mantissas,
// exponents, and errors.
func slowFloat(b []byte) (float64, int, bool) {
	i := 0
	for i < len(b) && !isSpace(b[i]) {
		i++
	}
	if i == 0 || i > 64 {
		return 0, i, false
	}
	f, err := strconv.ParseFloat(string(b[:i]), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, i, false
	}
	return f, i, true
}
