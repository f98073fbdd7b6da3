package citygml

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// appendDecoded appends raw character data or an attribute value to dst,
// replacing the five predefined entities and numeric character references.
// Other entities are an error: GML files declare none.
func appendDecoded(dst, raw []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(raw, '&')
		if i < 0 {
			return append(dst, raw...), nil
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		j := bytes.IndexByte(raw, ';')
		if j < 0 || j > 12 {
			return dst, synErr("unterminated entity reference")
		}
		ent := raw[1:j]
		raw = raw[j+1:]
		switch string(ent) {
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "amp":
			dst = append(dst, '&')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			r, ok := charRef(ent)
			if !ok {
				return dst, synErr("unknown entity &" + string(ent) + ";")
			}
			dst = utf8.AppendRune(dst, r)
		}
	}
}

// charRef decodes "#123" or "#x7B".
func charRef(ent []byte) (rune, bool) {
	if len(ent) < 2 || ent[0] != '#' {
		return 0, false
	}
	base, digits := 10, ent[1:]
	if digits[0] == 'x' {
		base, digits = 16, digits[1:]
	}
	n, err := strconv.ParseUint(string(digits), base, 32)
	if err != nil || n == 0 || n > utf8.MaxRune || (n >= 0xD800 && n <= 0xDFFF) {
		return 0, false
	}
	return rune(n), true
}

// decodeString returns the decoded attribute value as a string.
func decodeString(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '&') < 0 {
		return string(raw), nil
	}
	b, err := appendDecoded(nil, raw)
	return string(b), err
}
