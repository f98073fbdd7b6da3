package citygml

import (
	"bytes"
	"errors"
	"fmt"
)

// errNumber and errCount are the details of coordinate errors.
var errNumber = errors.New("bad number")

// coordError positions a coordinate error at the start tag of the element.
func (r *Reader) coordError(f *frame, err error) error {
	sentinel := ErrCoordinates
	if errors.Is(err, ErrTooLarge) {
		sentinel = ErrTooLarge
	}
	msg := err.Error()
	if m, ok := bytes.CutPrefix([]byte(msg), []byte(sentinel.Error()+": ")); ok {
		msg = string(m)
	}
	return &Error{Name: r.name, Line: int(f.line), Err: sentinel, Msg: msg}
}

// quoteNumber returns a short quoted excerpt of a bad number.
func quoteNumber(b []byte) string {
	i := 0
	for i < len(b) && !isSpace(b[i]) && i < 32 {
		i++
	}
	return fmt.Sprintf("%q", b[:i])
}

// parsePosList appends the points of a gml:posList; the dimension is the
// srsDimension in force, 3 by default.
func (r *Reader) parsePosList(f *frame) error {
	dim := int(f.dim)
	if dim == 0 {
		dim = 3
	}
	t := r.text
	pts := r.b.pts
	var p Point
	k, n := 0, 0
	for i := 0; ; {
		for i < len(t) && isSpace(t[i]) {
			i++
		}
		if i == len(t) {
			break
		}
		v, m, ok := parseFloat(t[i:])
		if !ok {
			r.b.pts = pts
			return fmt.Errorf("%w %s in gml:posList", errNumber, quoteNumber(t[i:]))
		}
		i += m
		n++
		p[k] = v
		if k++; k == dim {
			pts = append(pts, p)
			k = 0
			if len(pts) > MaxPoints {
				break
			}
		}
	}
	r.b.pts = pts
	if k != 0 {
		return fmt.Errorf("gml:posList has %d numbers, not a multiple of srsDimension %d", n, dim)
	}
	return nil
}

// parsePos appends the point of one gml:pos: 2 or 3 numbers, or exactly
// srsDimension when given.
func (r *Reader) parsePos(f *frame) error {
	var p Point
	k, err := parseTuple(r.text, &p, ' ')
	if err != nil {
		return fmt.Errorf("%w in gml:pos", err)
	}
	if k < 2 || k > 3 || (f.dim != 0 && k != int(f.dim)) {
		return fmt.Errorf("gml:pos has %d numbers, want %s", k, wantDim(f.dim))
	}
	r.b.pts = append(r.b.pts, p)
	return nil
}

func wantDim(d int8) string {
	if d == 0 {
		return "2 or 3"
	}
	return fmt.Sprint(d)
}

// parseCoordinates appends the tuples of a GML 2 gml:coordinates element
// with the default separators: "x,y[,z] x,y[,z] ...".
func (r *Reader) parseCoordinates(f *frame) error {
	for _, tup := range bytes.Fields(r.text) {
		var p Point
		k, err := parseTuple(tup, &p, ',')
		if err != nil {
			return fmt.Errorf("%w in gml:coordinates", err)
		}
		if k < 2 || k > 3 || (f.dim != 0 && k != int(f.dim)) {
			return fmt.Errorf("gml:coordinates tuple has %d numbers, want %s", k, wantDim(f.dim))
		}
		r.b.pts = append(r.b.pts, p)
		if len(r.b.pts) > MaxPoints {
			return nil
		}
	}
	return nil
}

// parseTuple parses up to three numbers separated by sep (and whitespace)
// into p and returns how many there were; more than three is an error
// reported as 4.
func parseTuple(t []byte, p *Point, sep byte) (int, error) {
	k := 0
	for i := 0; ; {
		for i < len(t) && (isSpace(t[i]) || (sep != ' ' && t[i] == sep && k > 0)) {
			i++
		}
		if i == len(t) {
			return k, nil
		}
		j := i
		for j < len(t) && !isSpace(t[j]) && t[j] != sep {
			j++
		}
		v, m, ok := parseFloat(t[i:j])
		if !ok || m != j-i {
			return k, fmt.Errorf("%w %s", errNumber, quoteNumber(t[i:]))
		}
		if k == 3 {
			return 4, nil
		}
		p[k] = v
		k++
		i = j
	}
}
