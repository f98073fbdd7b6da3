package mvt

import (
	"encoding/binary"
	"fmt"
	"math"
)

// DecodedLayer is one layer of a decoded tile.
type DecodedLayer struct {
	Version  int
	Name     string
	Extent   int
	Features []Feature
}

// Feature is one decoded feature. Props holds string, float64 (float and
// double), int64 (int and sint), uint64 and bool values. Parts are the
// geometry's parts as the commands draw them: for a polygon one ring per
// MoveTo (open, as encoded), for a line one line per MoveTo, for points
// one part with every point.
type Feature struct {
	ID    uint64
	HasID bool
	Type  int
	Props map[string]any
	Parts [][]Pt
}

// Decode reads a vector tile (not gzipped). Every error wraps ErrFormat.
// Memory is bounded by the input: nothing is allocated by a count the
// bytes state before those bytes are seen.
func Decode(b []byte) ([]DecodedLayer, error) {
	var out []DecodedLayer
	err := fields(b, func(f int, wire int, v uint64, data []byte) error {
		if f != 3 || wire != 2 {
			return nil
		}
		l, err := decodeLayer(data)
		if err != nil {
			return err
		}
		out = append(out, l)
		return nil
	})
	return out, err
}

func decodeLayer(b []byte) (DecodedLayer, error) {
	l := DecodedLayer{Version: 1, Extent: Extent}
	var keys []string
	var vals []any
	type raw struct {
		tags []uint32
		geom []uint32
	}
	var raws []raw
	err := fields(b, func(f int, wire int, v uint64, data []byte) error {
		switch {
		case f == 15 && wire == 0:
			l.Version = int(v)
		case f == 1 && wire == 2:
			l.Name = string(data)
		case f == 5 && wire == 0:
			if v == 0 || v > math.MaxInt32 {
				return fmt.Errorf("%w: extent %d", ErrFormat, v)
			}
			l.Extent = int(v)
		case f == 3 && wire == 2:
			keys = append(keys, string(data))
		case f == 4 && wire == 2:
			val, err := decodeValue(data)
			if err != nil {
				return err
			}
			vals = append(vals, val)
		case f == 2 && wire == 2:
			var ft Feature
			var r raw
			err := fields(data, func(f int, wire int, v uint64, d []byte) error {
				var err error
				switch {
				case f == 1 && wire == 0:
					ft.ID, ft.HasID = v, true
				case f == 3 && wire == 0:
					ft.Type = int(v)
				case f == 2 && wire == 2:
					r.tags, err = packed(d)
				case f == 4 && wire == 2:
					r.geom, err = packed(d)
				}
				return err
			})
			if err != nil {
				return err
			}
			l.Features = append(l.Features, ft)
			raws = append(raws, r)
		}
		return nil
	})
	if err != nil {
		return l, err
	}
	for i := range l.Features {
		ft := &l.Features[i]
		tags := raws[i].tags
		if len(tags)%2 != 0 {
			return l, fmt.Errorf("%w: layer %q feature %d: odd tag count", ErrFormat, l.Name, i)
		}
		ft.Props = make(map[string]any, len(tags)/2)
		for k := 0; k < len(tags); k += 2 {
			if int(tags[k]) >= len(keys) || int(tags[k+1]) >= len(vals) {
				return l, fmt.Errorf("%w: layer %q feature %d: tag out of range", ErrFormat, l.Name, i)
			}
			ft.Props[keys[tags[k]]] = vals[tags[k+1]]
		}
		if ft.Parts, err = decodeGeometry(raws[i].geom); err != nil {
			return l, fmt.Errorf("layer %q feature %d: %w", l.Name, i, err)
		}
	}
	return l, nil
}

func decodeValue(b []byte) (any, error) {
	var out any
	err := fields(b, func(f int, wire int, v uint64, data []byte) error {
		switch {
		case f == 1 && wire == 2:
			out = string(data)
		case f == 2 && wire == 5:
			out = float64(math.Float32frombits(uint32(v)))
		case f == 3 && wire == 1:
			out = math.Float64frombits(v)
		case f == 4 && wire == 0:
			out = int64(v)
		case f == 5 && wire == 0:
			out = v
		case f == 6 && wire == 0:
			out = int64(v>>1) ^ -int64(v&1)
		case f == 7 && wire == 0:
			out = v != 0
		default:
			return fmt.Errorf("%w: value field %d wire type %d", ErrFormat, f, wire)
		}
		return nil
	})
	if err == nil && out == nil {
		err = fmt.Errorf("%w: empty value", ErrFormat)
	}
	return out, err
}

// decodeGeometry runs the commands (4.3).
func decodeGeometry(g []uint32) ([][]Pt, error) {
	var parts [][]Pt
	var x, y int32
	for i := 0; i < len(g); {
		id, count := g[i]&7, int(g[i]>>3)
		i++
		switch id {
		case 1, 2:
			if count > (len(g)-i)/2 {
				return nil, fmt.Errorf("%w: command count %d beyond the geometry", ErrFormat, count)
			}
			if id == 2 && len(parts) == 0 {
				return nil, fmt.Errorf("%w: LineTo before MoveTo", ErrFormat)
			}
			for range count {
				x += unzig(g[i])
				y += unzig(g[i+1])
				i += 2
				if id == 1 {
					parts = append(parts, nil)
				}
				parts[len(parts)-1] = append(parts[len(parts)-1], Pt{x, y})
			}
		case 7:
			if count != 1 || len(parts) == 0 {
				return nil, fmt.Errorf("%w: ClosePath", ErrFormat)
			}
		default:
			return nil, fmt.Errorf("%w: command %d", ErrFormat, id)
		}
	}
	return parts, nil
}

func unzig(v uint32) int32 { return int32(v>>1) ^ -int32(v&1) }

func packed(b []byte) ([]uint32, error) {
	out := make([]uint32, 0, len(b)/2)
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxUint32 {
			return nil, fmt.Errorf("%w: packed varint", ErrFormat)
		}
		out = append(out, uint32(v))
		b = b[n:]
	}
	return out, nil
}

// fields calls fn for each field of a message: its number, wire type,
// value (varint, fixed32 or fixed64) or bytes (length-delimited).
func fields(b []byte, fn func(f, wire int, v uint64, data []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return fmt.Errorf("%w: field key", ErrFormat)
		}
		b = b[n:]
		f, wire := int(key>>3), int(key&7)
		var v uint64
		var data []byte
		switch wire {
		case 0:
			v, n = binary.Uvarint(b)
			if n <= 0 {
				return fmt.Errorf("%w: varint of field %d", ErrFormat, f)
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return fmt.Errorf("%w: fixed64 of field %d", ErrFormat, f)
			}
			v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 5:
			if len(b) < 4 {
				return fmt.Errorf("%w: fixed32 of field %d", ErrFormat, f)
			}
			v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return fmt.Errorf("%w: length of field %d", ErrFormat, f)
			}
			data, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return fmt.Errorf("%w: wire type %d", ErrFormat, wire)
		}
		if err := fn(f, wire, v, data); err != nil {
			return err
		}
	}
	return nil
}

// Area returns twice the surveyor's area of an open ring in tile units
// (y down): positive for an exterior ring as 4.3.4.4 defines it, negative
// for a hole.
func Area(ring []Pt) int64 {
	var a int64
	for i := range ring {
		p, q := ring[i], ring[(i+1)%len(ring)]
		a += int64(p.X)*int64(q.Y) - int64(q.X)*int64(p.Y)
	}
	return a
}
