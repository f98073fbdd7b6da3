package lod2store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/svc-geodata/svc/geo"
)

// LoD2 is an open, read-only LoD2 file. It is safe for concurrent use.
type LoD2 struct {
	db     *sql.DB
	sf     *searchFile
	idx    *packedIndex
	tf     *searchFile // the tile file (tilefile.go); nil in packs imported before it
	epsg   int
	zone   geo.Zone
	bbox   geo.BBox // WGS84 extent of all surfaces
	counts struct{ buildings, surfaces int64 }
	// roofs is the number of roof surfaces: from the metadata, or counted
	// in the background in files written before roof_count (-1 until then).
	roofs atomic.Int64
	// The background count (see RoofCount); Close stops it and waits.
	roofMu   sync.Mutex
	roofStop context.CancelFunc
	roofDone chan struct{}
	closed   bool
	streetState
}

// OpenLoD2 opens the LoD2 file at path read-only and loads its packed
// spatial index. Errors wrap ErrCorrupt when the file is not one this
// package wrote.
func OpenLoD2(ctx context.Context, path string) (*LoD2, error) {
	// immutable: the file never changes once its pack is published, so
	// SQLite may skip locking and change detection.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1&_pragma=query_only(1)")
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(2 * runtime.GOMAXPROCS(0))
	db.SetMaxIdleConns(2 * runtime.GOMAXPROCS(0))
	s := &LoD2{db: db}
	if s.sf, err = openSearchFile(path + SearchFileSuffix); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s.idx = s.sf.idx
	if s.tf, err = openRecordFile(path+TileFileSuffix, tileMagic); errors.Is(err, fs.ErrNotExist) {
		s.tf = nil
	} else if err != nil {
		s.sf.close()
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := s.load(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return s, nil
}

func (s *LoD2) load(ctx context.Context) error {
	meta := map[string]string{}
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM svc_metadata`)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		meta[k] = v
	}
	rows.Close()
	if v := meta["lod2_schema"]; v != strconv.Itoa(SchemaVersion) {
		if v == "" {
			v = "1"
		}
		return fmt.Errorf("%w %s (this server reads %d): import the BL again with `svc import lod2`", ErrSchema, v, SchemaVersion)
	}
	if s.epsg, err = strconv.Atoi(meta["epsg"]); err != nil {
		return fmt.Errorf("%w: metadata epsg", ErrCorrupt)
	}
	if s.zone, err = geo.ZoneForEPSG(s.epsg); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if s.bbox, err = geo.ParseBBox(meta["bbox_wgs84"]); err != nil {
		return fmt.Errorf("%w: metadata bbox_wgs84", ErrCorrupt)
	}
	s.counts.buildings, _ = strconv.ParseInt(meta["building_count"], 10, 64)
	s.counts.surfaces, _ = strconv.ParseInt(meta["surface_count"], 10, 64)
	s.roofs.Store(-1)
	if v, ok := meta["roof_count"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > s.counts.surfaces {
			return fmt.Errorf("%w: metadata roof_count %q", ErrCorrupt, v)
		}
		s.roofs.Store(n)
	}
	if int64(s.idx.n) != s.counts.surfaces {
		return fmt.Errorf("%w: index holds %d surfaces, metadata %d", ErrCorrupt, s.idx.n, s.counts.surfaces)
	}
	return nil
}

// Close releases the files.
func (s *LoD2) Close() error {
	s.roofMu.Lock()
	s.closed = true
	stop, done := s.roofStop, s.roofDone
	s.roofMu.Unlock()
	if stop != nil { // the background roof count reads the mapped file
		stop()
		<-done
	}
	err := errors.Join(s.db.Close(), s.sf.close())
	if s.tf != nil {
		err = errors.Join(err, s.tf.close())
	}
	return err
}

// Probe checks that the file answers a query.
func (s *LoD2) Probe(ctx context.Context) error {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM buildings`).Scan(&n); err != nil {
		return fmt.Errorf("store: probe: %w", err)
	}
	if n != s.counts.buildings {
		return fmt.Errorf("%w: %d buildings, metadata says %d", ErrCorrupt, n, s.counts.buildings)
	}
	return nil
}

// BBox returns the WGS84 extent of the file's surfaces.
func (s *LoD2) BBox() geo.BBox { return s.bbox }

// EPSG returns the projected CRS of the stored geometry.
func (s *LoD2) EPSG() int { return s.epsg }

// Hit is one surface found by Search.
type Hit struct {
	SurfaceID  int64
	BuildingID int64
	GMLID      string
	Class      int
	Coords     []byte // GeoJSON MultiPolygon coordinates, WGS84 with Z
}

// Search returns up to limit surfaces meeting bbox (WGS84), in the file's
// search order (along a Hilbert curve), starting after surface after (0: from
// the start). A surface meets the bbox when its footprint intersects the
// bbox outline projected into the file's CRS. Errors wrap ErrCursor when
// after is not a surface of this file.
func (s *LoD2) Search(ctx context.Context, bbox geo.BBox, after int64, limit int) ([]Hit, error) {
	return s.SearchFiltered(ctx, bbox, after, limit, Filter{})
}

// Filter narrows a search to some surfaces.
type Filter struct {
	All   bool   // ignore the bbox: every surface of the file
	Class int    // surface class (ClassRoof...); 0 for all
	GMLID string // gml:id of the building; "" for all
}

// SearchFiltered is Search keeping only the surfaces f admits.
func (s *LoD2) SearchFiltered(ctx context.Context, bbox geo.BBox, after int64, limit int, f Filter) ([]Hit, error) {
	fed, err := s.appendSearch(ctx, nil, "", bbox, after, limit, f)
	if err != nil || len(fed) == 0 {
		return nil, err
	}
	hits := make([]Hit, len(fed))
	for i := range fed {
		hits[i] = fed[i].Hit
	}
	return hits, nil
}

// appendSearch is SearchFiltered appending its hits to dst as FedHits of
// BL bl, so that a federated search fills one slice without a copy. The
// gml:ids of the hits share one string (a copy of their bytes in the
// mapped file): one allocation a page instead of one a hit.
func (s *LoD2) appendSearch(ctx context.Context, dst []FedHit, bl string, bbox geo.BBox, after int64, limit int, f Filter) ([]FedHit, error) {
	if f.All {
		bbox = s.bbox
	}
	if limit <= 0 || !bbox.Intersects(s.bbox) {
		return dst, nil
	}
	afterPos := -1
	if after != 0 {
		pos, ok := s.idx.position(after)
		if !ok {
			return dst, fmt.Errorf("%w: surface %d does not exist in this snapshot", ErrCursor, after)
		}
		afterPos = pos
	}
	var q queryArea
	q.init(bbox, s.zone)
	start := len(dst)
	sc := scratchPool.Get().(*searchScratch)
	defer sc.put()
	var err error
	visited := 0
	s.idx.walk(q.env, afterPos, func(pos int, id uint32) bool {
		// A sparse bbox may visit many candidates per hit: honour the
		// request's deadline while walking.
		if visited++; visited%1024 == 0 {
			if err = ctx.Err(); err != nil {
				return false
			}
		}
		var rec record
		if rec, err = s.sf.record(pos); err != nil {
			return false
		}
		var p parsed
		if p, err = parseRecord(rec); err != nil {
			return false
		}
		if (f.Class == 0 || p.class == f.Class) && (f.GMLID == "" || string(p.gmlid) == f.GMLID) && (f.All || q.meets(p)) {
			sc.ids = append(sc.ids, p.gmlid...)
			sc.ends = append(sc.ends, int32(len(sc.ids)))
			dst = append(dst, FedHit{BL: bl, Hit: Hit{SurfaceID: int64(p.surfaceID), BuildingID: int64(p.buildingID),
				Class: p.class, Coords: p.coords}})
		}
		return len(dst)-start < limit
	})
	if err != nil {
		return dst[:start], fmt.Errorf("store: search: %w", err)
	}
	all, from := string(sc.ids), int32(0)
	for i, end := range sc.ends {
		dst[start+i].GMLID = all[from:end]
		from = end
	}
	return dst, nil
}

// searchScratch holds what a search collects before it makes the gml:id
// strings of its hits: their bytes one after the other, and where each ends.
type searchScratch struct {
	ids  []byte
	ends []int32
}

// scratchPool recycles searchScratch: a page of 1000 hits needs about 40 KB
// of them, garbage once the strings are made.
var scratchPool = sync.Pool{New: func() any { return new(searchScratch) }}

func (sc *searchScratch) put() {
	if cap(sc.ids) > 1<<20 { // a rare huge page: not kept
		return
	}
	sc.ids, sc.ends = sc.ids[:0], sc.ends[:0]
	scratchPool.Put(sc)
}

// Building is the detail of one building.
type Building struct {
	BuildingID int64
	Coords     []byte // GeoJSON MultiPolygon coordinates of all its surfaces
}

// buildingID resolves a building or part gml:id.
func (s *LoD2) buildingID(ctx context.Context, gmlid string) (int64, error) {
	var bid int64
	err := s.db.QueryRowContext(ctx, `SELECT building_id FROM building_ids WHERE gmlid = ?`, gmlid).Scan(&bid)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: building %q: %w", gmlid, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: building %q: %w", gmlid, err)
	}
	return bid, nil
}

// Building returns the building with the gml:id (of the building or one of
// its parts), its geometry aggregated over all surfaces. Errors wrap
// ErrNotFound.
func (s *LoD2) Building(ctx context.Context, gmlid string) (Building, error) {
	bid, err := s.buildingID(ctx, gmlid)
	if err != nil {
		return Building{}, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT surface_id FROM surfaces WHERE building_id = ? ORDER BY surface_id`, bid)
	if err != nil {
		return Building{}, fmt.Errorf("store: building %q: %w", gmlid, err)
	}
	defer rows.Close()
	out := Building{BuildingID: bid, Coords: []byte{'['}}
	for rows.Next() {
		var sid int64
		if err := rows.Scan(&sid); err != nil {
			return Building{}, fmt.Errorf("store: building %q: %w", gmlid, err)
		}
		pos, ok := s.idx.position(sid)
		if !ok {
			return Building{}, fmt.Errorf("%w: surface %d outside the search file", ErrCorrupt, sid)
		}
		rec, err := s.sf.record(pos)
		if err != nil {
			return Building{}, err
		}
		p, err := parseRecord(rec)
		if err != nil {
			return Building{}, err
		}
		if len(p.coords) < 2 {
			return Building{}, fmt.Errorf("%w: empty coordinates", ErrCorrupt)
		}
		if len(out.Coords) > 1 {
			out.Coords = append(out.Coords, ',')
		}
		out.Coords = append(out.Coords, p.coords[1:len(p.coords)-1]...) // the polygons of one MultiPolygon
	}
	if err := rows.Err(); err != nil {
		return Building{}, fmt.Errorf("store: building %q: %w", gmlid, err)
	}
	out.Coords = append(out.Coords, ']')
	return out, nil
}

// Surface returns surface sid as a search would. Errors wrap ErrNotFound.
func (s *LoD2) Surface(sid int64) (Hit, error) {
	pos, ok := s.idx.position(sid)
	if !ok {
		return Hit{}, fmt.Errorf("store: surface %d: %w", sid, ErrNotFound)
	}
	rec, err := s.sf.record(pos)
	if err != nil {
		return Hit{}, err
	}
	p, err := parseRecord(rec)
	if err != nil {
		return Hit{}, err
	}
	return Hit{SurfaceID: sid, BuildingID: int64(p.buildingID), GMLID: string(p.gmlid), Class: p.class, Coords: p.coords}, nil
}

// Counts returns the numbers of buildings and surfaces in the file.
func (s *LoD2) Counts() (buildings, surfaces int64) { return s.counts.buildings, s.counts.surfaces }

// RoofCount returns the number of roof surfaces (ClassRoof) in the file
// and whether it is known. Files written since the importer records
// roof_count know it from their metadata. In older files the first call
// starts counting in the background from the search file's record headers
// (a read of the whole file: about 25 ns a surface from the page cache,
// longer from disk) and answers false until the count is done, so no
// request waits for it.
func (s *LoD2) RoofCount() (int64, bool) {
	if n := s.roofs.Load(); n >= 0 {
		return n, true
	}
	s.roofMu.Lock()
	defer s.roofMu.Unlock()
	if s.roofDone == nil && !s.closed {
		ctx, stop := context.WithCancel(context.Background())
		s.roofStop, s.roofDone = stop, make(chan struct{})
		go func(done chan struct{}) {
			defer close(done)
			if n, err := s.countRoofs(ctx); err == nil {
				s.roofs.Store(n)
			}
		}(s.roofDone)
	}
	return 0, false
}

// countRoofs counts the records of class ClassRoof in the search file.
func (s *LoD2) countRoofs(ctx context.Context) (int64, error) {
	var n int64
	for pos := range s.idx.n {
		if pos%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		rec, err := s.sf.record(pos)
		if err != nil {
			return 0, fmt.Errorf("store: count roofs: %w", err)
		}
		if len(rec) < recordHeader {
			return 0, fmt.Errorf("store: count roofs: %w: short record", ErrCorrupt)
		}
		if binary.LittleEndian.Uint16(rec[8:]) == ClassRoof {
			n++
		}
	}
	return n, nil
}
