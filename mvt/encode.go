package mvt

import (
	"encoding/binary"
	"math"
	"slices"
)

// Value is one attribute value of a feature: a string, a double, a signed
// or an unsigned integer or a boolean (4.1, Value message). Values are
// comparable, so a layer stores each distinct one once.
type Value struct {
	kind uint8 // the protobuf field number of the value
	s    string
	n    uint64
}

// String returns a string value.
func String(s string) Value { return Value{kind: 1, s: s} }

// Double returns a double value.
func Double(f float64) Value { return Value{kind: 3, n: math.Float64bits(f)} }

// Int returns a signed integer value (sint64, zig-zag encoded).
func Int(i int64) Value { return Value{kind: 6, n: uint64(i)} }

// Uint returns an unsigned integer value.
func Uint(u uint64) Value { return Value{kind: 5, n: u} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	v := Value{kind: 7}
	if b {
		v.n = 1
	}
	return v
}

// Prop is one attribute of a feature.
type Prop struct {
	Key   string
	Value Value
}

// Layer collects the features of one layer. Keys and values are
// deduplicated across its features (4.4). The zero Layer is not usable;
// make one with NewLayer.
type Layer struct {
	name   string
	extent int
	keys   map[string]uint32 // beyond smallKeys keys; below, keyLst is searched
	keyLst []string
	// The values' indexes: strings, and the other kinds (no pointer: no
	// write barrier, a cheaper hash) apart.
	strVals map[string]uint32
	numVals [8]map[uint64]uint32 // by kind
	valLst  []Value
	feats   []byte // encoded Feature messages, each with its tag and length
	n       int
	tags    []uint32
	geom    []uint32
}

// NewLayer returns an empty layer of the name with extent units a side.
func NewLayer(name string, extent int) *Layer {
	return &Layer{name: name, extent: extent, keys: map[string]uint32{}, strVals: map[string]uint32{}}
}

// Reset empties l for the next tile, keeping its memory (the key and
// value maps keep their size).
func (l *Layer) Reset() {
	clear(l.keys)
	clear(l.strVals)
	for _, m := range l.numVals {
		clear(m)
	}
	l.keyLst, l.valLst, l.feats, l.n = l.keyLst[:0], l.valLst[:0], l.feats[:0], 0
}

// Len returns the number of features added.
func (l *Layer) Len() int { return l.n }

// AddPolygon adds a polygon feature. g holds the rings of its polygons as
// Rings makes them: each exterior ring (positive area, clockwise with y
// down) followed by its holes, without the closing point. A feature whose
// g is empty is not added. id 0 means no id.
func (l *Layer) AddPolygon(id uint64, g Rings, props []Prop) {
	if len(g.Ends) == 0 {
		return
	}
	l.geom = l.geom[:0]
	var cx, cy int32
	start := 0
	for _, end := range g.Ends {
		ring := g.Pts[start:end]
		start = end
		l.geom = append(l.geom, command(1, 1), zigzag(ring[0].X-cx), zigzag(ring[0].Y-cy))
		cx, cy = ring[0].X, ring[0].Y
		l.geom = append(l.geom, command(2, len(ring)-1))
		for _, p := range ring[1:] {
			l.geom = append(l.geom, zigzag(p.X-cx), zigzag(p.Y-cy))
			cx, cy = p.X, p.Y
		}
		l.geom = append(l.geom, command(7, 1))
	}
	l.add(id, Polygon, props)
}

func (l *Layer) add(id uint64, typ int, props []Prop) {
	l.tags = l.tags[:0]
	for _, p := range props {
		k := l.key(p.Key)
		v := l.value(p.Value)
		l.tags = append(l.tags, k, v)
	}
	size := 0
	if id != 0 {
		size += 1 + uvarintLen(id)
	}
	tagsLen := packedLen(l.tags)
	if len(l.tags) > 0 {
		size += 1 + uvarintLen(uint64(tagsLen)) + tagsLen
	}
	size += 2 // type
	geomLen := packedLen(l.geom)
	size += 1 + uvarintLen(uint64(geomLen)) + geomLen
	b := l.feats
	b = append(b, 2<<3|2) // Layer.features
	b = binary.AppendUvarint(b, uint64(size))
	if id != 0 {
		b = append(b, 1<<3|0)
		b = binary.AppendUvarint(b, id)
	}
	if len(l.tags) > 0 {
		b = appendPacked(append(b, 2<<3|2), l.tags, tagsLen)
	}
	b = append(b, 3<<3|0, byte(typ))
	b = appendPacked(append(b, 4<<3|2), l.geom, geomLen)
	l.feats = b
	l.n++
}

// smallKeys is how many keys a layer finds by comparing them all: a tile's
// few keys (eleven in a building layer) cost less so than hashed.
const smallKeys = 16

// key returns the index of key k, adding it.
func (l *Layer) key(k string) uint32 {
	if len(l.keyLst) < smallKeys {
		for i, s := range l.keyLst {
			if s == k {
				return uint32(i)
			}
		}
		l.keyLst = append(l.keyLst, k)
		return uint32(len(l.keyLst) - 1)
	}
	if len(l.keys) == 0 { // the map takes over
		for i, s := range l.keyLst {
			l.keys[s] = uint32(i)
		}
	}
	i, ok := l.keys[k]
	if !ok {
		i = uint32(len(l.keyLst))
		l.keys[k] = i
		l.keyLst = append(l.keyLst, k)
	}
	return i
}

// value returns the index of value v, adding it.
func (l *Layer) value(v Value) uint32 {
	next := uint32(len(l.valLst))
	if v.kind == 1 {
		i, ok := l.strVals[v.s]
		if !ok {
			l.strVals[v.s], i = next, next
			l.valLst = append(l.valLst, v)
		}
		return i
	}
	m := l.numVals[v.kind&7]
	if m == nil {
		m = map[uint64]uint32{}
		l.numVals[v.kind&7] = m
	}
	i, ok := m[v.n]
	if !ok {
		m[v.n], i = next, next
		l.valLst = append(l.valLst, v)
	}
	return i
}

// AppendTile appends a tile of the layers to dst; layers without features
// are left out (4.1: a layer should hold at least one feature).
func AppendTile(dst []byte, layers ...*Layer) []byte {
	for _, l := range layers {
		if l.n == 0 {
			continue
		}
		size := 2 + 1 + uvarintLen(uint64(len(l.name))) + len(l.name) + len(l.feats) + 1 + uvarintLen(uint64(l.extent))
		for _, k := range l.keyLst {
			size += 1 + uvarintLen(uint64(len(k))) + len(k)
		}
		for _, v := range l.valLst {
			n := v.len()
			size += 1 + uvarintLen(uint64(n)) + n
		}
		dst = append(dst, 3<<3|2) // Tile.layers
		dst = binary.AppendUvarint(dst, uint64(size))
		dst = slices.Grow(dst, size)
		body, start := dst, len(dst)
		body = append(body, 15<<3|0, 2) // version 2
		body = appendString(body, 1, l.name)
		body = append(body, l.feats...)
		for _, k := range l.keyLst {
			body = appendString(body, 3, k)
		}
		for _, v := range l.valLst {
			body = append(body, 4<<3|2)
			body = binary.AppendUvarint(body, uint64(v.len()))
			switch v.kind {
			case 1:
				body = appendString(body, 1, v.s)
			case 3:
				body = binary.LittleEndian.AppendUint64(append(body, 3<<3|1), v.n)
			case 6:
				body = binary.AppendUvarint(append(body, 6<<3|0), zigzag64(int64(v.n)))
			default:
				body = binary.AppendUvarint(append(body, v.kind<<3|0), v.n)
			}
		}
		body = append(body, 5<<3|0)
		body = binary.AppendUvarint(body, uint64(l.extent))
		if len(body)-start != size {
			panic("mvt: layer size miscounted")
		}
		dst = body
	}
	return dst
}

// len is the size of the Value message of v.
func (v Value) len() int {
	switch v.kind {
	case 1:
		return 1 + uvarintLen(uint64(len(v.s))) + len(v.s)
	case 3:
		return 9
	case 6:
		return 1 + uvarintLen(zigzag64(int64(v.n)))
	}
	return 1 + uvarintLen(v.n)
}

func appendString(b []byte, field int, s string) []byte {
	b = append(b, byte(field<<3|2))
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendPacked(b []byte, v []uint32, n int) []byte {
	b = binary.AppendUvarint(b, uint64(n))
	for _, x := range v {
		b = binary.AppendUvarint(b, uint64(x))
	}
	return b
}

func packedLen(v []uint32) int {
	n := 0
	for _, x := range v {
		n += uvarintLen(uint64(x))
	}
	return n
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// command is a geometry command integer (4.3.1): id in the low 3 bits.
func command(id, count int) uint32 { return uint32(id&7) | uint32(count)<<3 }

// zigzag encodes a parameter integer (4.3.2).
func zigzag(v int32) uint32 { return uint32((v << 1) ^ (v >> 31)) }

func zigzag64(v int64) uint64 { return uint64((v << 1) ^ (v >> 63)) }
