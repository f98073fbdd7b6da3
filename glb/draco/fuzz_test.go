package draco

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// meshFromBytes builds a small mesh from fuzz input: a vertex count, a
// flags byte, positions on a coarse grid (so positions repeat and seams
// appear), optional normals, colours and ids, then triangle indices.
func meshFromBytes(data []byte) (*Mesh, Options) {
	if len(data) < 2 {
		return &Mesh{}, Options{}
	}
	nv := int(data[0]%24) + 1
	flags := data[1]
	data = data[2:]
	take := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	pos := make([]float32, 3*nv)
	for i := range pos {
		pos[i] = float32(take()%8) * 0.5
	}
	if flags&0x80 != 0 && nv > 1 {
		pos[4] = float32(math.NaN())
	}
	m := &Mesh{Attributes: []Attribute{{Kind: Position, Components: 3, Data: pos}}}
	if flags&1 != 0 {
		n := make([]float32, 3*nv)
		for i := range n {
			n[i] = float32(int(take()%5) - 2)
		}
		m.Attributes = append(m.Attributes, Attribute{Kind: Normal, Components: 3, Data: n})
	}
	if flags&2 != 0 {
		c := make([]uint8, 4*nv)
		for i := range c {
			c[i] = take() & 0xc0
		}
		m.Attributes = append(m.Attributes, Attribute{Kind: Color, Components: 4, U8: c, Normalized: true})
	}
	if flags&4 != 0 {
		id := make([]uint32, nv)
		for i := range id {
			id[i] = uint32(take() % 3)
		}
		m.Attributes = append(m.Attributes, Attribute{Kind: Generic, Components: 1, U32: id})
	}
	for len(data) >= 3 {
		for j := 0; j < 3; j++ {
			b := take()
			m.Indices = append(m.Indices, uint32(b)%uint32(nv+int(flags>>6&1)))
		}
	}
	opts := Options{PositionBits: int(flags>>3&3)*6 + 1}
	if flags&0x20 != 0 {
		opts.Method = Sequential
	}
	return m, opts
}

func fuzzSeeds() [][]byte {
	seeds := [][]byte{
		{8, 0, 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2, 2, 0, 1, 2, 0, 2, 3},
		{4, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2},
		{3, 0x20, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2},
	}
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0xdeadbeef)
	return append(seeds, append([]byte{20, 0x15}, b...))
}

func FuzzEncode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, opts := meshFromBytes(data)
		res, err := EncodeResult(m, opts)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("error without sentinel: %v", err)
			}
			return
		}
		if len(res.Data) < 11 || string(res.Data[:5]) != "DRACO" {
			t.Fatalf("bad header % x", res.Data[:min(len(res.Data), 11)])
		}
		if res.Triangles == 0 || res.Points == 0 || res.Triangles > len(m.Indices)/3 {
			t.Fatalf("bad result counts: %d triangles, %d points", res.Triangles, res.Points)
		}
	})
}

func isSentinel(err error) bool {
	for _, s := range []error{ErrInvalidMesh, ErrEmptyMesh, ErrIndexRange, ErrNonFinite, ErrOption, ErrTooLarge} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
