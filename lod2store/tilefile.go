package lod2store

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/svc-geodata/svc/mvt"
)

// The tile file sits beside the SpatiaLite file (<file>.tiles) and holds
// what the buildings layer of a vector tile reads, derived from the
// finished file at import: one record per footprint surface (the ground
// surfaces of a building whose footprint_source is "ground", the roof
// surfaces of one whose source is "roof"), in the search file's Hilbert
// order, with the search file's layout under its own magic:
//
//	"SVCTILE1", u64 index length, packed index (ids 1..n, boxes in z18
//	tile units: World x 2^30, float32 rounded outwards),
//	(n+1) x u64 record offsets, records.
//
// A record: u32 building_id, u32 surface_id, u32 the surface's position in
// the search file, uvarint len(attrs), attrs, geometry.
//
// attrs (the building's TileAttrs, the same in each of its records): u8
// flags (1 footprint from the roofs, 2 ground_z, 4 ridge_z, 8 height_m
// known), the known heights as f64 in that order, then gmlid, function and
// roof_type each as uvarint length and bytes, then uvarint storeys.
//
// geometry: uvarint polygons, per polygon uvarint rings, per ring uvarint
// points followed by its points; a point is the zig-zag varint deltas
// (from the record's previous point, the first from 0) of x and y in
// World x 2^mvt.WorldBits, integers. The WGS84 coordinates of the search
// record are projected with mvt.World, exactly as a tile projects them;
// at 2^-54 every World value from 0.25 to 1 (longitude -90 to 180,
// latitude up to about 66.5° N) is exact, so a tile cut from this file is
// the tile cut from the search records bit for bit. A pack with a
// coordinate outside that range gets no tile file (errNoTileFile).
const tileMagic = "SVCTILE1"

// TileFileSuffix is appended to the SpatiaLite file's name.
const TileFileSuffix = ".tiles"

// attrsSuffix names the temporary file of the attributes while the tile
// file is written (path + attrsSuffix).
const attrsSuffix = ".attrs"

// tileBoxShift turns World x 2^WorldBits into the z18 tile units
// (x 2^30) of the index boxes.
const tileBoxShift = mvt.WorldBits - 30

// errNoTileFile is returned by writeTileFile for a pack the format cannot
// hold exactly; the pack is served from the search file.
var errNoTileFile = errors.New("store: no tile file for this pack")

const (
	attrRoofSource = 1 << iota
	attrGround
	attrRidge
	attrHeight
)

// appendTileAttrs encodes a's tile attributes; a must have a footprint
// source.
func appendTileAttrs(dst []byte, a *TileAttrs) []byte {
	var flags byte
	if a.FootprintSource == "roof" {
		flags |= attrRoofSource
	}
	hs := [3]struct {
		bit byte
		v   float64
		ok  bool
	}{{attrGround, a.GroundZ.Float64, a.GroundZ.Valid}, {attrRidge, a.RidgeZ.Float64, a.RidgeZ.Valid}, {attrHeight, a.HeightM.Float64, a.HeightM.Valid}}
	for _, h := range hs {
		if h.ok {
			flags |= h.bit
		}
	}
	dst = append(dst, flags)
	for _, h := range hs {
		if h.ok {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(h.v))
		}
	}
	for _, s := range []string{a.GMLID, a.Function, a.RoofType} {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return binary.AppendUvarint(dst, uint64(a.Storeys))
}

var errTileAttrs = fmt.Errorf("%w: tile file attributes", ErrCorrupt)

// tileAttrRef is a decoded attrs blob whose strings are ranges of a byte
// buffer (so that a tile makes one string for all of them).
type tileAttrRef struct {
	flags                 byte
	ground, ridge, height float64
	str                   [3][2]int // gmlid, function, roof_type: [from, to) in the buffer
	storeys               int64
}

// decodeTileAttrs decodes b, appending its strings to buf.
func decodeTileAttrs(b []byte, buf []byte) (tileAttrRef, []byte, error) {
	var r tileAttrRef
	bad := errTileAttrs
	if len(b) < 1 {
		return r, buf, bad
	}
	r.flags, b = b[0], b[1:]
	for _, h := range []struct {
		bit byte
		v   *float64
	}{{attrGround, &r.ground}, {attrRidge, &r.ridge}, {attrHeight, &r.height}} {
		if r.flags&h.bit != 0 {
			if len(b) < 8 {
				return r, buf, bad
			}
			*h.v, b = math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:]
		}
	}
	for i := range r.str {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return r, buf, bad
		}
		r.str[i] = [2]int{len(buf), len(buf) + int(n)}
		buf = append(buf, b[k:k+int(n)]...)
		b = b[k+int(n):]
	}
	st, k := binary.Uvarint(b)
	if k <= 0 || k != len(b) || st > math.MaxInt64 {
		return r, buf, bad
	}
	r.storeys = int64(st)
	return r, buf, nil
}

// attrs makes the TileAttrs of r over all, the string of the buffer.
func (r *tileAttrRef) attrs(bid int64, all string) TileAttrs {
	a := TileAttrs{BuildingID: bid, FootprintSource: "ground", Storeys: r.storeys,
		GMLID: all[r.str[0][0]:r.str[0][1]], Function: all[r.str[1][0]:r.str[1][1]], RoofType: all[r.str[2][0]:r.str[2][1]]}
	if r.flags&attrRoofSource != 0 {
		a.FootprintSource = "roof"
	}
	a.GroundZ.Float64, a.GroundZ.Valid = r.ground, r.flags&attrGround != 0
	a.RidgeZ.Float64, a.RidgeZ.Valid = r.ridge, r.flags&attrRidge != 0
	a.HeightM.Float64, a.HeightM.Valid = r.height, r.flags&attrHeight != 0
	return a
}

// appendWorldGeometry encodes the GeoJSON MultiPolygon coordinates (WGS84,
// with or without z) as the geometry of a record, and extends bb (World x
// 2^WorldBits) by them. It returns errNoTileFile for a coordinate outside
// the exact range, ErrCorrupt for coordinates it cannot read.
func appendWorldGeometry(dst []byte, coords []byte, bb *[4]int64) ([]byte, error) {
	var sc geomScratch
	return sc.appendWorldGeometry(dst, coords, bb)
}

// geomScratch is what appendWorldGeometry reuses from one surface to the
// next (an import's tile file writes millions).
type geomScratch struct {
	polys []int // rings per polygon
	rings []int // points per ring
	pts   []int64
}

func (sc *geomScratch) appendWorldGeometry(dst []byte, coords []byte, bb *[4]int64) ([]byte, error) {
	// First the structure: the rings of each polygon and their points.
	polys, rings, pts := sc.polys[:0], sc.rings[:0], sc.pts[:0]
	defer func() { sc.polys, sc.rings, sc.pts = polys, rings, pts }()
	var (
		depth, ax  int
		lon        float64
		ringPoints int
	)
	const pointDepth = 4
	for i := 0; i < len(coords); i++ {
		switch b := coords[i]; b {
		case '[':
			depth++
			ax = 0
			if depth == pointDepth-2 {
				polys = append(polys, 0)
			}
			if depth == pointDepth-1 {
				ringPoints = 0
			}
		case ']':
			depth--
			if depth == pointDepth-2 { // a ring ends
				rings = append(rings, ringPoints)
				polys[len(polys)-1]++
			}
			if depth == pointDepth-1 && ax >= 2 {
				ringPoints++
			}
		case ',', ' ':
		default:
			if depth != pointDepth {
				return dst, fmt.Errorf("%w: coordinates at depth %d", ErrCorrupt, depth)
			}
			j := i
			for j < len(coords) && coords[j] != ',' && coords[j] != ']' {
				j++
			}
			v, err := strconv.ParseFloat(string(coords[i:j]), 64)
			if err != nil {
				return dst, fmt.Errorf("%w: coordinate %q", ErrCorrupt, coords[i:j])
			}
			switch ax {
			case 0:
				lon = v
			case 1:
				wx, wy := mvt.World(lon, v)
				qx, okx := worldInt(wx)
				qy, oky := worldInt(wy)
				if !okx || !oky {
					return dst, errNoTileFile
				}
				pts = append(pts, qx, qy)
				bb[0], bb[1] = min(bb[0], qx), min(bb[1], qy)
				bb[2], bb[3] = max(bb[2], qx), max(bb[3], qy)
			}
			ax++
			i = j - 1
		}
	}
	if depth != 0 {
		return dst, fmt.Errorf("%w: unbalanced coordinates", ErrCorrupt)
	}
	sum := 0
	for _, n := range rings {
		sum += n
	}
	if 2*sum != len(pts) {
		return dst, fmt.Errorf("%w: a position without two coordinates", ErrCorrupt)
	}
	dst = binary.AppendUvarint(dst, uint64(len(polys)))
	var px, py int64
	r, p := 0, 0
	for _, nr := range polys {
		dst = binary.AppendUvarint(dst, uint64(nr))
		for range nr {
			n := rings[r]
			r++
			dst = binary.AppendUvarint(dst, uint64(n))
			for range n {
				x, y := pts[p], pts[p+1]
				p += 2
				dst = binary.AppendVarint(dst, x-px)
				dst = binary.AppendVarint(dst, y-py)
				px, py = x, y
			}
		}
	}
	return dst, nil
}

// worldInt is v x 2^WorldBits when that is an integer the format holds
// exactly (v from 0.25 to 1).
func worldInt(v float64) (int64, bool) {
	if !(v >= 0.25 && v < 1) {
		return 0, false
	}
	f := math.Ldexp(v, mvt.WorldBits)
	q := int64(f)
	return q, float64(q) == f
}

// writeTileFile writes the tile file of s (a finished, open LoD2 file) at
// path and syncs it. Memory: one u32 per building id; the attributes go
// through a temporary file beside path. It returns errNoTileFile (path
// removed) when a coordinate lies outside the format's exact range.
func writeTileFile(ctx context.Context, s *LoD2, path string) (err error) {
	defer func() {
		if err != nil {
			os.Remove(path)
			err = fmt.Errorf("tile file: %w", err)
		}
	}()
	var maxID int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(building_id), 0) FROM buildings`).Scan(&maxID); err != nil {
		return err
	}
	if maxID > maxIDFactor*s.counts.buildings+maxIDSlack || maxID >= math.MaxUint32 {
		return fmt.Errorf("%w: building id %d of %d buildings", ErrCorrupt, maxID, s.counts.buildings)
	}
	// The attributes of every building with a footprint, in id order, in
	// a temporary file; offs[id] is 1 + the offset of its blob (0: none).
	// A fixed name (not a hidden temporary one): an import killed here
	// and resumed writes over it, and never commits it with the pack.
	tmp, err := os.Create(path + attrsSuffix)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	offs := make([]uint32, maxID+1)
	bw := bufio.NewWriterSize(tmp, 1<<20)
	var off uint64
	var blob []byte
	rows, err := s.db.QueryContext(ctx, `SELECT `+tileAttrColumns+` FROM building_attrs ORDER BY building_id, part`)
	if err != nil {
		return err
	}
	err = scanTileAttrs(rows, func(a *TileAttrs) error {
		if a.FootprintSource != "ground" && a.FootprintSource != "roof" {
			return nil
		}
		if a.BuildingID <= 0 || a.BuildingID > maxID {
			return fmt.Errorf("%w: attributes of building %d", ErrCorrupt, a.BuildingID)
		}
		blob = appendTileAttrs(blob[:0], a)
		if off+uint64(len(blob))+binary.MaxVarintLen64 >= math.MaxUint32 {
			return fmt.Errorf("%w: more than 4 GB of tile attributes", errNoTileFile)
		}
		offs[a.BuildingID] = uint32(off) + 1
		var lb [binary.MaxVarintLen64]byte
		k := binary.PutUvarint(lb[:], uint64(len(blob)))
		bw.Write(lb[:k])
		_, err := bw.Write(blob)
		off += uint64(k + len(blob))
		return err
	})
	rows.Close()
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	attrs, unmap, err := mapFile(tmp.Name())
	if err != nil {
		return err
	}
	defer unmap()
	return writeTileRecords(ctx, s, path, offs, attrs)
}

// tileAttrBlob is the length-prefixed attrs blob of building bid (nil: no
// footprint).
func tileAttrBlob(offs []uint32, attrs []byte, bid uint32) ([]byte, error) {
	if int(bid) >= len(offs) || offs[bid] == 0 {
		return nil, nil
	}
	b := attrs[offs[bid]-1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, fmt.Errorf("%w: attributes of building %d", ErrCorrupt, bid)
	}
	return b[:k+int(n)], nil
}

// footprintRecord reports whether the search record p is a footprint
// surface, and its building's attrs blob.
func footprintRecord(p parsed, offs []uint32, attrs []byte) ([]byte, bool, error) {
	if p.class != ClassGround && p.class != ClassRoof {
		return nil, false, nil
	}
	blob, err := tileAttrBlob(offs, attrs, p.buildingID)
	if err != nil || blob == nil {
		return nil, false, err
	}
	_, k := binary.Uvarint(blob)
	roof := blob[k]&attrRoofSource != 0
	return blob, roof == (p.class == ClassRoof), nil
}

// writeTileRecords writes the footprint surfaces of s's search file, in
// its order: a first pass counts them, the second writes them.
func writeTileRecords(ctx context.Context, s *LoD2, path string, offs []uint32, attrs []byte) error {
	n := 0
	if err := eachFootprint(ctx, s, offs, attrs, func(int, parsed, []byte) error { n++; return nil }); err != nil {
		return err
	}
	sw, err := newRecordWriter(path, tileMagic, n)
	if err != nil {
		return err
	}
	defer sw.close()
	var rec []byte
	var gs geomScratch
	i := 0
	err = eachFootprint(ctx, s, offs, attrs, func(pos int, p parsed, blob []byte) error {
		rec = binary.LittleEndian.AppendUint32(rec[:0], p.buildingID)
		rec = binary.LittleEndian.AppendUint32(rec, p.surfaceID)
		rec = binary.LittleEndian.AppendUint32(rec, uint32(pos))
		rec = append(rec, blob...)
		bb := [4]int64{math.MaxInt64, math.MaxInt64, math.MinInt64, math.MinInt64}
		var gerr error
		if rec, gerr = gs.appendWorldGeometry(rec, p.coords, &bb); gerr != nil {
			return fmt.Errorf("surface %d: %w", p.surfaceID, gerr)
		}
		var b [4]float32
		if bb[0] > bb[2] { // no points: a box that meets no tile
			b = [4]float32{-1, -1, -1, -1}
		} else {
			b = [4]float32{down(float64(bb[0] >> tileBoxShift)), down(float64(bb[1] >> tileBoxShift)),
				up(float64(bb[2]>>tileBoxShift + 1)), up(float64(bb[3]>>tileBoxShift + 1))}
		}
		i++
		return sw.add(uint32(i), b, rec)
	})
	if err != nil {
		return err
	}
	return sw.finish()
}

// eachFootprint calls fn with each footprint surface of s's search file
// (its position, parsed record and building attrs blob), in file order,
// dropping the mapped pages as it goes (see writeSearchFile: RSS must not
// grow with the pack).
func eachFootprint(ctx context.Context, s *LoD2, offs []uint32, attrs []byte, fn func(pos int, p parsed, blob []byte) error) error {
	for pos := range s.idx.n {
		if pos%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if pos%dropEvery == 0 {
			dropPages(s.sf.data)
			dropPages(attrs)
		}
		r, err := s.sf.record(pos)
		if err != nil {
			return err
		}
		p, err := parseRecord(r)
		if err != nil {
			return err
		}
		blob, ok, err := footprintRecord(p, offs, attrs)
		if err != nil {
			return err
		}
		if ok {
			if err := fn(pos, p, blob); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildTileFile writes the tile file of the finished LoD2 file at path;
// a pack the format cannot hold exactly gets none.
func buildTileFile(ctx context.Context, path string) error {
	os.Remove(path + TileFileSuffix) // a patched copy's stale one
	s, err := OpenLoD2(ctx, path)
	if err != nil {
		return err
	}
	err = writeTileFile(ctx, s, path+TileFileSuffix)
	if errors.Is(err, errNoTileFile) {
		err = nil
	}
	return errors.Join(err, s.Close())
}
