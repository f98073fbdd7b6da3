package spatialite

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/twpayne/go-geom"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	square := [][]geom.Coord{{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}}
	withHole := [][]geom.Coord{
		{{0, 0, 1}, {10, 0, 2}, {10, 10, 3}, {0, 10, 4}, {0, 0, 1}},
		{{2, 2, 5}, {2, 4, 5}, {4, 4, 5}, {4, 2, 5}, {2, 2, 5}},
	}
	for _, tc := range []struct {
		name string
		g    geom.T
	}{
		{"polygon xy", geom.NewPolygon(geom.XY).MustSetCoords(square)},
		{"polygon xyz with hole", geom.NewPolygon(geom.XYZ).MustSetCoords(withHole)},
		{"polygon xym", geom.NewPolygon(geom.XYM).MustSetCoords(withHole)},
		{"polygon xyzm", geom.NewPolygon(geom.XYZM).MustSetCoords([][]geom.Coord{{{0, 0, 1, 9}, {1, 0, 2, 8}, {1, 1, 3, 7}, {0, 0, 1, 9}}})},
		{"multipolygon xy", geom.NewMultiPolygon(geom.XY).MustSetCoords([][][]geom.Coord{square, {{{20, 20}, {30, 20}, {30, 30}, {20, 20}}}})},
		{"multipolygon xyz holes", geom.NewMultiPolygon(geom.XYZ).MustSetCoords([][][]geom.Coord{withHole, withHole, {withHole[0]}})},
		{"lod2 surface", makeSurfaces(1, 350000, 5600000, 9)[0].geom},
		{"point xyz", geom.NewPoint(geom.XYZ).MustSetCoords(geom.Coord{350000.125, 5600000.5, 99.25})},
		{"linestring xy", geom.NewLineString(geom.XY).MustSetCoords([]geom.Coord{{0, 0}, {1, 1}, {2, 0}})},
		{"multipoint xyz", geom.NewMultiPoint(geom.XYZ).MustSetCoords([]geom.Coord{{1, 2, 3}, {4, 5, 6}})},
		{"multilinestring xym", geom.NewMultiLineString(geom.XYM).MustSetCoords([][]geom.Coord{{{0, 0, 1}, {1, 1, 2}}, {{5, 5, 3}, {6, 6, 4}}})},
		{"collection xy", geom.NewGeometryCollection().MustPush(
			geom.NewPoint(geom.XY).MustSetCoords(geom.Coord{1, 2}),
			geom.NewPolygon(geom.XY).MustSetCoords(square))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := Encode(tc.g, 25832)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			got, srid, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if srid != 25832 {
				t.Errorf("srid = %d", srid)
			}
			assertGeomEqual(t, got, tc.g)
			env, err := Envelope(b)
			if err != nil {
				t.Fatalf("Envelope: %v", err)
			}
			bb := tc.g.Bounds()
			if want := (Rect{bb.Min(0), bb.Min(1), bb.Max(0), bb.Max(1)}); env != want {
				t.Errorf("Envelope = %v, want %v", env, want)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	ring := []geom.Coord{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}}
	for _, tc := range []struct {
		name string
		g    geom.T
		srid int
		want error
	}{
		{"nil", nil, 0, ErrUnsupported},
		{"typed nil", (*geom.MultiPolygon)(nil), 0, ErrEmpty},
		{"empty multipolygon", geom.NewMultiPolygon(geom.XYZ), 0, ErrEmpty},
		{"empty polygon", geom.NewPolygon(geom.XY), 0, ErrEmpty},
		{"empty point", geom.NewPointEmpty(geom.XY), 0, ErrEmpty},
		{"empty part", geom.NewMultiPolygonFlat(geom.XYZ, []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0}, [][]int{{12}, {}}), 0, ErrEmpty},
		{"nan", geom.NewPolygon(geom.XYZ).MustSetCoords([][]geom.Coord{{{0, 0, math.NaN()}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}}}), 0, ErrInvalid},
		{"inf", geom.NewPolygon(geom.XYZ).MustSetCoords([][]geom.Coord{{{math.Inf(1), 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}}}), 0, ErrInvalid},
		{"srid too big", geom.NewPolygon(geom.XYZ).MustSetCoords([][]geom.Coord{ring}), math.MaxInt32 + 1, ErrInvalid},
		{"linear ring", geom.NewLinearRing(geom.XY).MustSetCoords([]geom.Coord{{0, 0}, {1, 1}}), 0, ErrUnsupported},
		{"collection of multipolygon", geom.NewGeometryCollection().MustPush(geom.NewMultiPolygon(geom.XYZ).MustSetCoords([][][]geom.Coord{{ring}})), 0, ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dst := []byte("keep")
			got, err := AppendEncode(dst, tc.g, tc.srid)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if string(got) != "keep" {
				t.Errorf("dst changed on error: %q", got)
			}
		})
	}
}

// TestAppendEncodeAllocs checks the import hot path does not allocate.
func TestAppendEncodeAllocs(t *testing.T) {
	g := makeSurfaces(1, 350000, 5600000, 1)[0].geom
	buf := make([]byte, 0, 4096)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		buf, err = AppendEncode(buf[:0], g, 25832)
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("AppendEncode allocates %v times per call", allocs)
	}
}

// blobOf builds a BLOB from raw parts in the given byte order, for inputs
// Encode never produces (big endian, hostile counts).
func blobOf(order binary.AppendByteOrder, class uint32, body ...any) []byte {
	b := []byte{blobStart, littleEndian}
	if order == binary.AppendByteOrder(binary.BigEndian) {
		b[1] = bigEndian
	}
	b = order.AppendUint32(b, 25832)
	for _, v := range []float64{0, 0, 10, 10} {
		b = order.AppendUint64(b, math.Float64bits(v))
	}
	b = order.AppendUint32(append(b, mbrEnd), class)
	for _, v := range body {
		switch v := v.(type) {
		case uint32:
			b = order.AppendUint32(b, v)
		case float64:
			b = order.AppendUint64(b, math.Float64bits(v))
		case byte:
			b = append(b, v)
		}
	}
	return append(b, blobEnd)
}

func TestDecodeBigEndian(t *testing.T) {
	t.Parallel()
	b := blobOf(binary.BigEndian, 1003, uint32(1), uint32(4),
		0.0, 0.0, 1.0, 10.0, 0.0, 2.0, 10.0, 10.0, 3.0, 0.0, 0.0, 1.0)
	g, srid, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	want := geom.NewPolygon(geom.XYZ).MustSetCoords([][]geom.Coord{{{0, 0, 1}, {10, 0, 2}, {10, 10, 3}, {0, 0, 1}}})
	assertGeomEqual(t, g, want)
	if srid != 25832 {
		t.Errorf("srid = %d", srid)
	}
	if r, err := Envelope(b); err != nil || r != (Rect{0, 0, 10, 10}) {
		t.Errorf("Envelope = %v, %v", r, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	le := binary.LittleEndian
	good := blobOf(le, 3, uint32(1), uint32(3), 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
	mutate := func(i int, v byte) []byte { b := append([]byte(nil), good...); b[i] = v; return b }
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"nil", nil},
		{"short", good[:20]},
		{"bad start", mutate(0, 1)},
		{"bad endian", mutate(1, 7)},
		{"bad mbr end", mutate(offMBREnd, 0)},
		{"bad end", mutate(len(good)-1, 0)},
		{"truncated", append(good[:len(good)-9:len(good)-9], blobEnd)},
		{"trailing bytes", append(good[:len(good)-1:len(good)-1], 0, 0, 0, 0, blobEnd)},
		{"bad class", blobOf(le, 8, uint32(0))},
		{"bad dims", blobOf(le, 4003, uint32(0))},
		{"compressed point", blobOf(le, 1000001, 0.0, 0.0)},
		{"huge ring count", blobOf(le, 3, uint32(0x7fffffff))},
		{"huge point count", blobOf(le, 3, uint32(1), uint32(0xffffffff), 0.0, 0.0)},
		{"huge entity count", blobOf(le, 6, uint32(0xffffffff), byte(entityMark), uint32(3))},
		{"no rings", blobOf(le, 3, uint32(0))},
		{"empty ring", blobOf(le, 3, uint32(1), uint32(0))},
		{"empty multi", blobOf(le, 6, uint32(0))},
		{"missing entity mark", blobOf(le, 6, uint32(1), byte(0x42), uint32(3), uint32(1), uint32(1), 0.0, 0.0)},
		{"member wrong type", blobOf(le, 6, uint32(1), byte(entityMark), uint32(2), uint32(1), 0.0, 0.0)},
		{"member wrong dims", blobOf(le, 1006, uint32(1), byte(entityMark), uint32(3), uint32(1), uint32(1), 0.0, 0.0)},
		{"nested collection", blobOf(le, 7, uint32(1), byte(entityMark), uint32(7), uint32(0))},
		{"nan coordinate", blobOf(le, 1, math.NaN(), 0.0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := Decode(tc.b); !errors.Is(err, ErrInvalid) {
				t.Errorf("Decode err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestEnvelopeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		mbr  [4]float64
	}{
		{"nan", [4]float64{math.NaN(), 0, 1, 1}},
		{"inf", [4]float64{0, 0, math.Inf(1), 1}},
		{"inverted", [4]float64{5, 0, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := blobOf(binary.LittleEndian, 1, 0.0, 0.0)
			for i, v := range tc.mbr {
				binary.LittleEndian.PutUint64(b[offMBR+8*i:], math.Float64bits(v))
			}
			if _, err := Envelope(b); !errors.Is(err, ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestDecodeAllocationBound checks that hostile counts cannot make Decode
// allocate more than a small multiple of the input.
func TestDecodeAllocationBound(t *testing.T) {
	le := binary.LittleEndian
	for _, b := range [][]byte{
		blobOf(le, 3, uint32(0x7fffffff), uint32(0x7fffffff)),
		blobOf(le, 1006, uint32(0x10000000), byte(entityMark), uint32(1003), uint32(0x10000000)),
		blobOf(le, 1000003, uint32(1), uint32(0x7fffffff), 0.0, 0.0),
	} {
		if n := allocBytes(func() { _, _, _ = Decode(b) }); n > 64*len(b)+4096 {
			t.Errorf("Decode of %d hostile bytes allocated %d bytes", len(b), n)
		}
	}
}

// allocBytes measures the bytes fn allocates.
func allocBytes(fn func()) int {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return int(after.TotalAlloc - before.TotalAlloc)
}
