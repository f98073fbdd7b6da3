package raster

import (
	"encoding/binary"
	"math"
	"slices"
)

// field is one IFD entry to write, its value already encoded little-endian.
type field struct {
	tag   uint16
	typ   uint16
	count int
	data  []byte
}

// shortField returns a SHORT entry.
func shortField(tag uint16, v ...uint16) field {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return field{tag: tag, typ: typeShort, count: len(v), data: b}
}

// longField returns a LONG entry.
func longField(tag uint16, v ...uint32) field {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return field{tag: tag, typ: typeLong, count: len(v), data: b}
}

// offsetField returns a LONG (classic TIFF) or LONG8 (BigTIFF) entry.
func offsetField(tag uint16, big bool, v []uint64) field {
	if !big {
		l := make([]uint32, len(v))
		for i, x := range v {
			l[i] = uint32(x)
		}
		return longField(tag, l...)
	}
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return field{tag: tag, typ: typeLong8, count: len(v), data: b}
}

// doubleField returns a DOUBLE entry.
func doubleField(tag uint16, v ...float64) field {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return field{tag: tag, typ: typeDouble, count: len(v), data: b}
}

// asciiField returns a NUL-terminated ASCII entry.
func asciiField(tag uint16, s string) field {
	b := append([]byte(s), 0)
	return field{tag: tag, typ: typeASCII, count: len(b), data: b}
}

// ifdSize returns the bytes an IFD with fields takes, out-of-line values
// included (each padded to an even length).
func ifdSize(fields []field, big bool) int {
	countSize, entrySize, inline := 2, 12, 4
	if big {
		countSize, entrySize, inline = 8, 20, 8
	}
	n := countSize + len(fields)*entrySize + inline
	for _, f := range fields {
		if len(f.data) > inline {
			n += len(f.data) + len(f.data)%2
		}
	}
	return n
}

// encodeIFD appends the IFD at file offset at, followed by its out-of-line
// values, with next as the offset of the following IFD (0 for none).
func encodeIFD(dst []byte, fields []field, big bool, at, next uint64) []byte {
	fields = slices.Clone(fields)
	slices.SortFunc(fields, func(a, b field) int { return int(a.tag) - int(b.tag) })
	le := binary.LittleEndian
	entrySize, inline := 12, 4
	if big {
		entrySize, inline = 20, 8
		dst = le.AppendUint64(dst, uint64(len(fields)))
	} else {
		dst = le.AppendUint16(dst, uint16(len(fields)))
	}
	head := 2
	if big {
		head = 8
	}
	ext := at + uint64(head+len(fields)*entrySize+inline)
	var tail []byte
	for _, f := range fields {
		dst = le.AppendUint16(dst, f.tag)
		dst = le.AppendUint16(dst, f.typ)
		if big {
			dst = le.AppendUint64(dst, uint64(f.count))
		} else {
			dst = le.AppendUint32(dst, uint32(f.count))
		}
		val := make([]byte, inline)
		if len(f.data) <= inline {
			copy(val, f.data)
		} else {
			off := ext + uint64(len(tail))
			if big {
				le.PutUint64(val, off)
			} else {
				le.PutUint32(val, uint32(off))
			}
			tail = append(tail, f.data...)
			if len(f.data)%2 == 1 {
				tail = append(tail, 0)
			}
		}
		dst = append(dst, val...)
	}
	if big {
		dst = le.AppendUint64(dst, next)
	} else {
		dst = le.AppendUint32(dst, uint32(next))
	}
	return append(dst, tail...)
}
