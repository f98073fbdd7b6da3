package lod2store

import (
	"database/sql"
	"encoding/binary"
	"math"
	"testing"

	"github.com/svc-geodata/svc/mvt"
)

// tileRecordSeed is a tile file record of two polygons (one with a hole)
// near Frankfurt, as writeTileRecords writes it.
func tileRecordSeed(t testing.TB) []byte {
	a := TileAttrs{BuildingID: 7, GMLID: "DEHE0001", FootprintSource: "ground", GroundZ: sql.NullFloat64{Float64: 101.5, Valid: true},
		HeightM: sql.NullFloat64{Float64: 9.25, Valid: true}, Function: "31001_1000", Storeys: 3}
	blob := appendTileAttrs(nil, &a)
	rec := binary.LittleEndian.AppendUint32(nil, 7)
	rec = binary.LittleEndian.AppendUint32(rec, 11)
	rec = binary.LittleEndian.AppendUint32(rec, 0)
	rec = binary.AppendUvarint(rec, uint64(len(blob)))
	rec = append(rec, blob...)
	bb := [4]int64{math.MaxInt64, math.MaxInt64, math.MinInt64, math.MinInt64}
	rec, err := appendWorldGeometry(rec, []byte(`[[[[8.67,50.11,100],[8.6702,50.11,100],[8.6702,50.1102,100],[8.67,50.11,100]],`+
		`[[8.67005,50.11005,100],[8.6701,50.11005,100],[8.6701,50.1101,100],[8.67005,50.11005,100]]],[[[8.671,50.111],[8.6712,50.111],[8.671,50.1112],[8.671,50.111]]]]`), &bb)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// FuzzTileRecord: decoding a tile file record (and its attributes) never
// panics whatever the bytes; a record that decodes leaves consistent
// polygons in the scratch.
func FuzzTileRecord(f *testing.F) {
	f.Add(tileRecordSeed(f), uint8(15))
	f.Add([]byte{}, uint8(12))
	f.Fuzz(func(t *testing.T, r []byte, z uint8) {
		zoom := 12 + int(z%7)
		shift := uint(54 - zoom - 12)
		x, y := int64(17173), int64(11097)
		sc := new(tileScratch)
		h, _, _, err := decodeTileRecord(r, 0, sc, shift, (x>>(15-min(zoom, 15)))<<12, (y>>(15-min(zoom, 15)))<<12, -64, 4096+64)
		if err != nil {
			return
		}
		for _, p := range sc.polys[h.polys[0]:h.polys[1]] {
			for _, e := range sc.ends[p.ends[0]:p.ends[1]] {
				if p.xy+e > len(sc.xy) || e%2 != 0 {
					t.Fatalf("ring end %d of %d", e, len(sc.xy))
				}
			}
		}
		if n, k := binary.Uvarint(r[12:]); k > 0 {
			_, _, _ = decodeTileAttrs(r[12+k:12+k+int(n)], nil)
		}
	})
}

// TestTileRecordRoundTrip: the seed record decodes to its attributes and
// to the polygons the float path rounds (mvt.Projector, math.Round).
func TestTileRecordRoundTrip(t *testing.T) {
	r := tileRecordSeed(t)
	sc := new(tileScratch)
	h, _, touch, err := decodeTileRecord(r, 0, sc, 54-15-12, 17173<<12, 11097<<12, -64, 4096+64)
	if err != nil || h.bid != 7 || h.sid != 11 || h.polys[1]-h.polys[0] != 2 {
		t.Fatalf("%+v %v", h, err)
	}
	if got := len(sc.ends); got != 3 || !touch {
		t.Fatalf("%d rings (want 3), touch %v", got, touch)
	}
	p := mvt.NewProjector(mvt.TileID{Z: 15, X: 17173, Y: 11097}, mvt.Extent)
	for i, ll := range [][2]float64{{8.67, 50.11}, {8.6702, 50.11}, {8.6702, 50.1102}} {
		x, y := p.Project(ll[0], ll[1])
		if sc.xy[2*i] != int64(math.Round(x)) || sc.xy[2*i+1] != int64(math.Round(y)) {
			t.Errorf("vertex %d: (%d %d), the float path (%g %g)", i, sc.xy[2*i], sc.xy[2*i+1], x, y)
		}
	}
	n, k := binary.Uvarint(r[12:])
	ref, buf, err := decodeTileAttrs(r[12+k:12+k+int(n)], nil)
	if err != nil {
		t.Fatal(err)
	}
	a := ref.attrs(7, string(buf))
	if a.GMLID != "DEHE0001" || a.Function != "31001_1000" || a.RoofType != "" || a.Storeys != 3 || !a.GroundZ.Valid || a.GroundZ.Float64 != 101.5 ||
		a.RidgeZ.Valid || a.HeightM.Float64 != 9.25 || a.FootprintSource != "ground" {
		t.Fatalf("%+v", a)
	}
}
