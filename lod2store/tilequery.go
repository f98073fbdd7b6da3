package lod2store

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"sync"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/mvt"
)

// ErrTooLarge is returned by TileBuildings for a tile holding more
// footprint surfaces than its limit.
var ErrTooLarge = errors.New("store: too many surfaces")

// HasTileFile reports whether the file has its tile file (tilefile.go);
// packs imported before it have none, and TileBuildings answers
// ErrNoTileFile for them.
func (s *LoD2) HasTileFile() bool { return s.tf != nil }

// ErrNoTileFile is returned by TileBuildings for a file without a tile
// file.
var ErrNoTileFile = errors.New("store: no tile file")

// TileQuery is a vector tile whose buildings TileBuildings reads.
type TileQuery struct {
	Tile   mvt.TileID
	Extent int // tile units a side, a power of two
	Buffer int // clip buffer in tile units around the tile
	// MaxSurfaces bounds the footprint surfaces read (ErrTooLarge beyond;
	// 0: no bound).
	MaxSurfaces int
}

// TileBuilding is one building of a tile: its tile attributes and the
// polygons of its footprint surfaces that meet the tile, in surface id
// order, every vertex rounded to the tile grid. It is valid during the
// call of fn only.
type TileBuilding struct {
	Attrs TileAttrs
	sc    *tileScratch
	hits  []tileHit
}

// Polygons yields each polygon: x, y pairs of tile units (y down, rounded
// as math.Round rounds Projector.Project's value) and the end of each
// ring in them (exterior first), as mvt.Clipper.AppendRoundedPolygon takes
// them.
func (b *TileBuilding) Polygons() iter.Seq2[[]int64, []int] {
	return func(yield func([]int64, []int) bool) {
		for _, h := range b.hits {
			for _, p := range b.sc.polys[h.polys[0]:h.polys[1]] {
				if !yield(b.sc.xy[p.xy:], b.sc.ends[p.ends[0]:p.ends[1]]) {
					return
				}
			}
		}
	}
}

// tileHit is a footprint surface found for a tile.
type tileHit struct {
	bid, sid uint32
	rec      int    // position in the tile file
	polys    [2]int // its polygons in tileScratch.polys
}

// tilePoly is a decoded polygon: its first point in tileScratch.xy and
// its ring ends (relative to that point, in int64s) in tileScratch.ends.
type tilePoly struct {
	xy   int
	ends [2]int
}

// tileScratch is what one tile's read reuses.
type tileScratch struct {
	hits  []tileHit
	xy    []int64
	ends  []int
	polys []tilePoly
	refs  []tileAttrRef
	strs  []byte
	q     queryArea
}

var tileScratchPool = sync.Pool{New: func() any { return new(tileScratch) }}

// TileBuildings calls fn, in building id order, with each building of the
// file whose footprint (see TileAttrs) has a surface meeting the tile grown
// by the buffer: the surfaces the search (Search) finds for the tile's
// buffered WGS84 bbox, read from the tile file without SQLite and without
// parsing text. Surfaces whose polygons cannot reach the clipped tile
// (rounded outside the buffered square) are left out; a building may thus
// be given with polygons that all clip away. Errors wrap ErrNoTileFile,
// ErrTooLarge, ErrInput for an invalid query and ErrCorrupt.
func (s *LoD2) TileBuildings(ctx context.Context, q TileQuery, fn func(b *TileBuilding) error) error {
	if s.tf == nil {
		return ErrNoTileFile
	}
	t := q.Tile
	ebits := bits.Len(uint(q.Extent)) - 1
	if !t.Valid() || q.Extent <= 0 || q.Extent&(q.Extent-1) != 0 || t.Z+ebits > 30 || q.Buffer < 0 || q.Buffer > q.Extent {
		return fmt.Errorf("%w: tile %d/%d/%d extent %d buffer %d", ErrInput, t.Z, t.X, t.Y, q.Extent, q.Buffer)
	}
	sc := tileScratchPool.Get().(*tileScratch)
	defer sc.put()
	if err := s.tileHits(ctx, q, ebits, sc); err != nil {
		return fmt.Errorf("store: tile buildings: %w", err)
	}
	slices.SortFunc(sc.hits, func(a, b tileHit) int {
		if c := cmp.Compare(a.bid, b.bid); c != 0 {
			return c
		}
		return cmp.Compare(a.sid, b.sid)
	})
	// The attributes of each building, their strings in one allocation.
	sc.refs, sc.strs = sc.refs[:0], sc.strs[:0]
	for i := range sc.hits {
		if i > 0 && sc.hits[i].bid == sc.hits[i-1].bid {
			continue
		}
		blob, err := s.tileRecordAttrs(sc.hits[i].rec)
		if err != nil {
			return fmt.Errorf("store: tile buildings: %w", err)
		}
		var ref tileAttrRef
		if ref, sc.strs, err = decodeTileAttrs(blob, sc.strs); err != nil {
			return fmt.Errorf("store: tile buildings: %w", err)
		}
		sc.refs = append(sc.refs, ref)
	}
	all := string(sc.strs)
	b := TileBuilding{sc: sc}
	for i, k := 0, 0; i < len(sc.hits); k++ {
		j := i + 1
		for j < len(sc.hits) && sc.hits[j].bid == sc.hits[i].bid {
			j++
		}
		b.Attrs, b.hits = sc.refs[k].attrs(int64(sc.hits[i].bid), all), sc.hits[i:j]
		if err := fn(&b); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func (sc *tileScratch) put() {
	if cap(sc.xy) > 1<<22 { // a rare huge tile: not kept
		return
	}
	tileScratchPool.Put(sc)
}

// tileHits collects the footprint surfaces meeting the tile into sc.hits,
// their polygons decoded into sc.
func (s *LoD2) tileHits(ctx context.Context, q TileQuery, ebits int, sc *tileScratch) error {
	t := q.Tile
	sc.hits, sc.xy, sc.ends, sc.polys = sc.hits[:0], sc.xy[:0], sc.ends[:0], sc.polys[:0]
	shift := uint(mvt.WorldBits - t.Z - ebits)
	ox, oy := int64(t.X)<<ebits, int64(t.Y)<<ebits
	lo, hi := int64(-q.Buffer), int64(q.Extent+q.Buffer)
	// The index query in z18 units (2^30 a world side).
	up := uint(30 - t.Z - ebits)
	env := box{float64((ox+lo)<<up - 1), float64((oy+lo)<<up - 1), float64((ox+hi)<<up + 1), float64((oy+hi)<<up + 1)}
	var err error
	visited := 0
	qInit := false
	s.tf.idx.walk(env, -1, func(pos int, _ uint32) bool {
		if visited++; visited%1024 == 0 {
			if err = ctx.Err(); err != nil {
				return false
			}
		}
		var in, touch bool
		var h tileHit
		if h, in, touch, err = s.decodeTileRecord(pos, sc, shift, ox, oy, lo, hi); err != nil {
			return false
		}
		if !touch {
			sc.rollback(h)
			return true
		}
		if !in {
			// Near the buffered square's edges only: the search's exact
			// test decides, on the surface's footprint in the pack's CRS.
			if !qInit {
				w, so, e, n := t.BufferedWGS84(q.Extent, q.Buffer)
				sc.q.init(geo.BBox{MinLon: w, MinLat: so, MaxLon: e, MaxLat: n}, s.zone)
				qInit = true
			}
			var meets bool
			if meets, err = s.searchMeets(h.rec, &sc.q); err != nil {
				return false
			}
			if !meets {
				sc.rollback(h)
				return true
			}
		}
		if q.MaxSurfaces > 0 && len(sc.hits) >= q.MaxSurfaces {
			err = fmt.Errorf("%w: more than %d footprint surfaces", ErrTooLarge, q.MaxSurfaces)
			return false
		}
		sc.hits = append(sc.hits, h)
		return true
	})
	return err
}

// rollback forgets the polygons decoded for h.
func (sc *tileScratch) rollback(h tileHit) {
	if h.polys[0] < h.polys[1] {
		p := sc.polys[h.polys[0]]
		sc.xy, sc.ends = sc.xy[:p.xy], sc.ends[:p.ends[0]]
	}
	sc.polys = sc.polys[:h.polys[0]]
}

// inMargin is how far inside the buffered square (in tile units) a rounded
// vertex must lie for its surface to meet the search's query area without
// the exact test: the tile's square in Web Mercator and the search's
// outline in the pack's CRS (16 chords a side) differ by less than 1 cm
// at z12, the WGS84 coordinates by 0.6 mm (8 decimals), rounding by half
// a unit; a unit is 2 cm or more up to z18.
const inMargin = 2

// decodeTileRecord decodes the record at pos into sc: touch is false when
// no polygon can reach the clipped tile (every rounded vertex on or beyond
// one side of the buffered square: clipping leaves no area), in when a
// vertex lies well inside it.
func (s *LoD2) decodeTileRecord(pos int, sc *tileScratch, shift uint, ox, oy, lo, hi int64) (h tileHit, in, touch bool, err error) {
	r, err := s.tf.record(pos)
	if err != nil {
		return h, false, false, err
	}
	return decodeTileRecord(r, pos, sc, shift, ox, oy, lo, hi)
}

// decodeTileRecord is the method on the bytes r of record pos.
func decodeTileRecord(r []byte, pos int, sc *tileScratch, shift uint, ox, oy, lo, hi int64) (h tileHit, in, touch bool, err error) {
	bad := func(what string) (tileHit, bool, bool, error) {
		return h, false, false, fmt.Errorf("%w: tile file record %d: %s", ErrCorrupt, pos, what)
	}
	if len(r) < 12 {
		return bad("short")
	}
	h.bid, h.sid, h.rec = binary.LittleEndian.Uint32(r), binary.LittleEndian.Uint32(r[4:]), pos
	r = r[12:]
	n, k := binary.Uvarint(r)
	if k <= 0 || n > uint64(len(r)-k) {
		return bad("attributes")
	}
	r = r[k+int(n):]
	h.polys = [2]int{len(sc.polys), len(sc.polys)}
	np, k := binary.Uvarint(r)
	if k <= 0 || np > uint64(len(r)) {
		return bad("polygons")
	}
	r = r[k:]
	minX, minY, maxX, maxY := hi+1, hi+1, lo-1, lo-1
	var qx, qy int64
	for range np {
		nr, k := binary.Uvarint(r)
		if k <= 0 || nr > uint64(len(r)) {
			return bad("rings")
		}
		r = r[k:]
		p := tilePoly{xy: len(sc.xy), ends: [2]int{len(sc.ends), len(sc.ends)}}
		for range nr {
			npt, k := binary.Uvarint(r)
			if k <= 0 || npt > uint64(len(r)) {
				return bad("points")
			}
			r = r[k:]
			for range npt {
				dx, k1 := binary.Varint(r)
				if k1 <= 0 {
					return bad("point")
				}
				dy, k2 := binary.Varint(r[k1:])
				if k2 <= 0 {
					return bad("point")
				}
				r = r[k1+k2:]
				qx, qy = qx+dx, qy+dy
				x, y := mvt.RoundWorld(qx, ox, shift), mvt.RoundWorld(qy, oy, shift)
				sc.xy = append(sc.xy, x, y)
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
				if !in && x >= lo+inMargin && x <= hi-inMargin && y >= lo+inMargin && y <= hi-inMargin {
					in = true
				}
			}
			sc.ends = append(sc.ends, len(sc.xy)-p.xy)
		}
		p.ends[1] = len(sc.ends)
		sc.polys = append(sc.polys, p)
	}
	if len(r) != 0 {
		return bad("trailing bytes")
	}
	h.polys[1] = len(sc.polys)
	touch = maxX > lo && minX < hi && maxY > lo && minY < hi
	return h, in && touch, touch, nil
}

// tileRecordAttrs is the attrs blob (without its length) of the record
// at pos.
func (s *LoD2) tileRecordAttrs(pos int) ([]byte, error) {
	r, err := s.tf.record(pos)
	if err != nil {
		return nil, err
	}
	if len(r) < 12 {
		return nil, fmt.Errorf("%w: tile file record %d", ErrCorrupt, pos)
	}
	r = r[12:]
	n, k := binary.Uvarint(r)
	if k <= 0 || n > uint64(len(r)-k) {
		return nil, fmt.Errorf("%w: tile file record %d", ErrCorrupt, pos)
	}
	return r[k : k+int(n)], nil
}

// searchMeets is the search's exact test for the surface of tile file
// record pos against q.
func (s *LoD2) searchMeets(pos int, q *queryArea) (bool, error) {
	r, err := s.tf.record(pos)
	if err != nil {
		return false, err
	}
	sp := int(binary.LittleEndian.Uint32(r[8:]))
	if sp >= s.idx.n {
		return false, fmt.Errorf("%w: tile file record %d: search position", ErrCorrupt, pos)
	}
	rec, err := s.sf.record(sp)
	if err != nil {
		return false, err
	}
	p, err := parseRecord(rec)
	if err != nil {
		return false, err
	}
	if int64(p.surfaceID) != int64(binary.LittleEndian.Uint32(r[4:])) {
		return false, fmt.Errorf("%w: tile file record %d: surface", ErrCorrupt, pos)
	}
	return q.meets(p), nil
}
