package lod2store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver "sqlite"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store/spatialite"
)

// Ring is a sequence of points x (east, m), y (north, m), z (height, m) in
// the pack's projected CRS.
type Ring = [][3]float64

// SurfaceInput is one thematic surface of a building: its class (709, 710
// or 712), the gml:id of the Building or BuildingPart it bounds, and its
// polygons (each an exterior ring followed by its holes).
type SurfaceInput struct {
	OwnerID  string
	Class    int
	Polygons [][]Ring
}

// BuildingInput is one building as the importer hands it over.
type BuildingInput struct {
	GMLID    string
	PartIDs  []string // gml:ids of its BuildingParts; searchable like GMLID
	Valid    bool     // passed geometric validation
	Surfaces []SurfaceInput
	// Attrs are the attributes of the building (first) and of its parts;
	// nil for none. Measures are the building's derived measures; nil for
	// none (attrs.go).
	Attrs    []AttrsInput
	Measures *MeasuresInput
}

// LoD2Stats summarises a finished file.
type LoD2Stats struct {
	Buildings, Surfaces, ValidBuildings, Duplicates int64
	BBoxWGS84                                       [4]float64
}

// LoD2Writer writes one LoD2 SpatiaLite file. It is not safe for
// concurrent use.
type LoD2Writer struct {
	roofs     int64 // roof surfaces written (metadata roof_count)
	path      string
	db        *sql.DB
	tx        *sql.Tx
	zone      geo.Zone
	epsg      int
	stmts     struct{ surface, building, id, unid *sql.Stmt }
	attrStmts attrStmts
	stats     LoD2Stats
	spool     *recordSpool
	prep      *Preparer // for Add
	prev      *prevPack // for CopySource
	rec       []byte
	sources   int64 // source_files rows
	runLen    int   // leaf entries sorted in memory at once; 0: defaultRunEntries
	// lastB and lastS are the building and surface ids given last: the
	// counts in stats, but for a writer patching a previous pack
	// (PatchLoD2), whose removed files leave ids unused.
	lastB, lastS int64
	patch        *patchState // nil unless patching
}

func (w *LoD2Writer) runEntries() int {
	if w.runLen > 0 {
		return w.runLen
	}
	return defaultRunEntries
}

const lod2Schema = `
CREATE TABLE surfaces (
  surface_id    INTEGER PRIMARY KEY,
  building_id   INTEGER NOT NULL,
  gmlid         TEXT NOT NULL,
  surface_class INTEGER NOT NULL,
  geom          BLOB
);
CREATE INDEX surfaces_building ON surfaces(building_id);
CREATE TABLE buildings (
  building_id   INTEGER PRIMARY KEY,
  gmlid         TEXT NOT NULL,
  surface_count INTEGER NOT NULL,
  valid         INTEGER NOT NULL
);
CREATE TABLE building_ids (
  gmlid       TEXT PRIMARY KEY,
  building_id INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE svc_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
` + sourceSchema + attrSchema

// CreateLoD2 creates a new LoD2 file at path (which must not exist) for
// geometry in epsg (25832 or 25833).
func CreateLoD2(ctx context.Context, path string, epsg int) (*LoD2Writer, error) {
	return CreateLoD2From(ctx, path, epsg, "")
}

// CreateLoD2From is CreateLoD2 for an import that copies unchanged source
// files from prev, the LoD2 file of an earlier snapshot of the same CRS
// (see CopySource); "" for none.
func CreateLoD2From(ctx context.Context, path string, epsg int, prev string) (*LoD2Writer, error) {
	zone, err := geo.ZoneForEPSG(epsg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("%w: %s exists", ErrInput, path)
	}
	db, err := openWriteDB(path)
	if err != nil {
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	w := &LoD2Writer{path: path, db: db, zone: zone, epsg: epsg, prep: &Preparer{zone: zone, epsg: epsg}}
	if prev != "" {
		w.prev = &prevPack{path: prev}
	}
	if w.spool, err = newRecordSpool(path + ".spool"); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	if err := w.init(ctx); err != nil {
		w.Abort()
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	return w, nil
}

// openWriteDB opens the file being written. It is private to an import
// until its pack is committed, so it needs no syncs (Finish syncs it once
// at the end); the rollback journal (deleted at each commit) lets a
// process killed in the middle of a transaction leave the file as of the
// last Checkpoint, which ResumeLoD2 continues from.
func openWriteDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)&_pragma=synchronous(OFF)&_pragma=page_size(8192)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func (w *LoD2Writer) init(ctx context.Context) error {
	if err := spatialite.InitMetadata(ctx, w.db); err != nil {
		return err
	}
	if _, err := w.db.ExecContext(ctx, lod2Schema); err != nil {
		return err
	}
	if err := spatialite.AddGeometryColumn(ctx, w.db, "surfaces", "geom", w.epsg, "MULTIPOLYGON", "XYZ"); err != nil {
		return err
	}
	if err := w.attach(ctx); err != nil {
		return err
	}
	return w.begin(ctx)
}

// attach opens the previous pack read-only as schema "prev" and maps its
// search file (ATTACH is not allowed inside a transaction: before begin).
func (w *LoD2Writer) attach(ctx context.Context) error {
	if w.prev == nil {
		return nil
	}
	if _, err := w.db.ExecContext(ctx, `ATTACH DATABASE ? AS prev`, "file:"+w.prev.path+"?mode=ro"); err != nil {
		return fmt.Errorf("attach %s: %w", w.prev.path, err)
	}
	sf, err := openSearchFile(w.prev.path + SearchFileSuffix)
	if err != nil {
		return fmt.Errorf("attach %s: %w", w.prev.path, err)
	}
	w.prev.search = sf
	return nil
}

// detach lets go of the previous pack.
func (w *LoD2Writer) detach(ctx context.Context) error {
	if w.prev == nil || w.prev.search == nil {
		return nil
	}
	w.prev.search.close()
	w.prev.search = nil
	if w.tx != nil {
		return nil // the connection is closed next
	}
	_, err := w.db.ExecContext(ctx, `DETACH DATABASE prev`)
	return err
}

// begin starts the transaction the next rows go into.
func (w *LoD2Writer) begin(ctx context.Context) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	w.tx = tx
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = tx.PrepareContext(ctx, q)
		return s
	}
	w.stmts.surface = prep(`INSERT INTO surfaces VALUES (?, ?, ?, ?, ?)`)
	w.stmts.building = prep(`INSERT INTO buildings VALUES (?, ?, ?, ?)`)
	w.stmts.id = prep(`INSERT OR IGNORE INTO building_ids VALUES (?, ?)`)
	w.stmts.unid = prep(`DELETE FROM building_ids WHERE gmlid = ?`)
	if err != nil {
		return err
	}
	return w.attrStmts.prepare(ctx, tx)
}

// Outcome says what AddPrepared did with a building.
type Outcome int

// The outcomes of AddPrepared.
const (
	Written   Outcome = iota // written
	Duplicate                // its gml:id was already written: left out
	Empty                    // no usable surface: left out
)

// Add writes one building (Prepare, then AddPrepared). A building whose
// gml:id was already written (tiles that overlap at their borders) is
// skipped and counted as duplicate. Buildings without any usable polygon
// are skipped too.
func (w *LoD2Writer) Add(ctx context.Context, b BuildingInput) error {
	p, err := w.prep.Prepare(b)
	if err != nil {
		return err
	}
	_, err = w.AddPrepared(ctx, p)
	return err
}

// AddPrepared writes one building prepared by a Preparer of the writer's
// EPSG code, giving it the next building id and its surfaces the next
// surface ids. A building whose gml:id was already written is left out
// (Duplicate), as is one without usable surface (Empty). The surface
// records of p are changed (their ids set), so p is written once.
func (w *LoD2Writer) AddPrepared(ctx context.Context, p Prepared) (Outcome, error) {
	bid := w.lastB + 1
	if p.GMLID != "" {
		res, err := w.stmts.id.ExecContext(ctx, p.GMLID, bid)
		if err != nil {
			return 0, fmt.Errorf("store: building %s: %w", p.GMLID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if err := w.checkDuplicate(ctx, p.GMLID); err != nil {
				return 0, err
			}
			w.stats.Duplicates++
			return Duplicate, nil
		}
	}
	if len(p.surfaces) == 0 {
		if _, err := w.stmts.unid.ExecContext(ctx, p.GMLID); err != nil {
			return 0, fmt.Errorf("store: building %s: %w", p.GMLID, err)
		}
		return Empty, nil
	}
	bb := emptyBox()
	for i := range p.surfaces {
		if err := w.addSurface(ctx, bid, p.GMLID, &p.surfaces[i]); err != nil {
			return 0, err
		}
		bb.extend(p.surfaces[i].bb)
	}
	if err := w.writeAttrs(ctx, bid, &p, bb); err != nil {
		return 0, err
	}
	for _, part := range p.PartIDs {
		res, err := w.stmts.id.ExecContext(ctx, part, bid)
		if err != nil {
			return 0, fmt.Errorf("store: building %s part %s: %w", p.GMLID, part, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if err := w.checkDuplicate(ctx, part); err != nil {
				return 0, err
			}
		}
	}
	valid := 0
	if p.Valid {
		valid = 1
		w.stats.ValidBuildings++
	}
	if _, err := w.stmts.building.ExecContext(ctx, bid, p.GMLID, len(p.surfaces), valid); err != nil {
		return 0, fmt.Errorf("store: building %s: %w", p.GMLID, err)
	}
	w.stats.Buildings++
	w.lastB++
	return Written, nil
}

// addSurface writes one prepared surface of building bid.
func (w *LoD2Writer) addSurface(ctx context.Context, bid int64, buildingID string, s *preparedSurface) error {
	sid := w.lastS + 1
	if _, err := w.stmts.surface.ExecContext(ctx, sid, bid, s.owner, s.class, s.blob); err != nil {
		return fmt.Errorf("store: building %s: %w", buildingID, err)
	}
	setRecordIDs(s.rec, uint32(sid), uint32(bid))
	if err := w.spool.add(s.rec, s.bb); err != nil {
		return fmt.Errorf("store: building %s: %w", buildingID, err)
	}
	w.stats.Surfaces++
	w.lastS++
	if s.class == ClassRoof {
		w.roofs++
	}
	return nil
}

// appendCoords writes GeoJSON MultiPolygon coordinates in WGS84: lon/lat
// with 8 decimals (about 1 mm), heights with 3.
func appendCoords(dst []byte, zone geo.Zone, flat []float64, endss [][]int) []byte {
	dst = append(dst, '[')
	start := 0
	for pi, ends := range endss {
		if pi > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		for ri, end := range ends {
			if ri > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			for i := start; i < end; i += 3 {
				if i > start {
					dst = append(dst, ',')
				}
				lon, lat := geo.FromUTM(zone, flat[i], flat[i+1])
				dst = append(dst, '[')
				dst = appendNum(dst, lon, 8)
				dst = append(dst, ',')
				dst = appendNum(dst, lat, 8)
				dst = append(dst, ',')
				dst = appendNum(dst, flat[i+2], 3)
				dst = append(dst, ']')
			}
			dst = append(dst, ']')
			start = end
		}
		dst = append(dst, ']')
	}
	return append(dst, ']')
}

// appendNum formats v with at most prec decimals, without trailing zeros.
func appendNum(dst []byte, v float64, prec int) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, v, 'f', prec, 64)
	for len(dst) > n && dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[n:]) == "-0" {
		dst = append(dst[:n], '0')
	}
	return dst
}

// Finish writes the spatial indexes and metadata, closes and syncs the
// file. meta is stored in svc_metadata.
func (w *LoD2Writer) Finish(ctx context.Context, meta map[string]string) (LoD2Stats, error) {
	fail := func(err error) (LoD2Stats, error) {
		w.Abort()
		return LoD2Stats{}, fmt.Errorf("store: finish %s: %w", w.path, err)
	}
	if w.patch != nil {
		return w.finishPatch(ctx, meta)
	}
	if w.stats.Surfaces == 0 {
		return fail(fmt.Errorf("%w: no building surfaces", ErrInput))
	}
	// The leaf order, sorted on disk (leafsort.go), feeds the search file
	// and the R*Tree.
	leaves := w.path + ".leaves"
	defer os.Remove(leaves)
	if err := w.spool.flush(); err != nil {
		return fail(err)
	}
	n := int(w.stats.Surfaces)
	if err := sortLeaves(ctx, w.spool.bf.Name(), w.stats.Surfaces, w.spool.ext, w.runEntries(), leaves); err != nil {
		return fail(err)
	}
	// The search file and the SQLite file are independent: write them at
	// the same time.
	searchDone := make(chan error, 1)
	go func() { searchDone <- writeSearchFile(ctx, w.path+SearchFileSuffix, leaves, n, w.spool.f.Name()) }()
	fail = func(err error) (LoD2Stats, error) {
		<-searchDone
		w.Abort()
		return LoD2Stats{}, fmt.Errorf("store: finish %s: %w", w.path, err)
	}
	if err := w.writeMeta(ctx, meta); err != nil {
		return fail(err)
	}
	// The R*Tree for GIS tools is packed from the search index's Hilbert
	// order: its leaves hold runs of that order, written directly.
	lr, err := openLeaves(leaves)
	if err != nil {
		return fail(err)
	}
	defer lr.close()
	var readErr error
	entries := func(yield func(int64, spatialite.Rect) bool) {
		for {
			ok, err := lr.next()
			if err != nil || !ok {
				readErr = err
				return
			}
			b := lr.cur.bb
			if !yield(int64(lr.cur.sid), spatialite.Rect{MinX: b.minX, MinY: b.minY, MaxX: b.maxX, MaxY: b.maxY}) {
				return
			}
		}
	}
	if err := spatialite.CreateSpatialIndexPacked(ctx, w.tx, "surfaces", "geom", n, entries); err != nil {
		return fail(errors.Join(err, readErr))
	}
	if readErr != nil {
		return fail(readErr)
	}
	if err := w.tx.Commit(); err != nil {
		return fail(err)
	}
	w.tx = nil
	if err := w.detach(ctx); err != nil {
		return fail(err)
	}
	if _, err := w.db.ExecContext(ctx, `ANALYZE main`); err != nil {
		return fail(err)
	}
	if err := w.db.Close(); err != nil {
		return fail(err)
	}
	if err := syncFile(w.path); err != nil {
		return fail(err)
	}
	if err := <-searchDone; err != nil {
		searchDone <- nil // for fail
		return fail(err)
	}
	w.spool.close()
	if err := buildTileFile(ctx, w.path); err != nil {
		searchDone <- nil // for fail
		return fail(err)
	}
	return w.stats, nil
}

// writeMeta stores meta and the counts and extents in svc_metadata.
func (w *LoD2Writer) writeMeta(ctx context.Context, meta map[string]string) error {
	minLon, minLat, maxLon, maxLat := w.extentWGS84()
	w.stats.BBoxWGS84 = [4]float64{minLon, minLat, maxLon, maxLat}
	meta["epsg"] = strconv.Itoa(w.epsg)
	meta["lod2_schema"] = strconv.Itoa(SchemaVersion)
	meta["building_count"] = strconv.FormatInt(w.stats.Buildings, 10)
	meta["surface_count"] = strconv.FormatInt(w.stats.Surfaces, 10)
	meta["roof_count"] = strconv.FormatInt(w.roofs, 10)
	meta["bbox_wgs84"] = fmt.Sprintf("%.8f,%.8f,%.8f,%.8f", minLon, minLat, maxLon, maxLat)
	meta["extent"] = fmt.Sprintf("%.3f,%.3f,%.3f,%.3f", w.spool.ext.minX, w.spool.ext.minY, w.spool.ext.maxX, w.spool.ext.maxY)
	// The extent the search file's Hilbert curve is laid over, exactly: a
	// later import patching this file (PatchLoD2) keys its new surfaces
	// over it.
	meta["extent_exact"] = formatExactExtent(w.spool.ext)
	// Sorted: the insertion order decides the rows' ROWIDs and so the
	// file's bytes, which must not change from one import to the next.
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if _, err := w.tx.ExecContext(ctx, `INSERT OR REPLACE INTO svc_metadata VALUES (?, ?)`, k, meta[k]); err != nil {
			return err
		}
	}
	return nil
}

// extentWGS84 is the lon/lat box of the projected extent (its densified
// outline, since UTM lines are curved in lon/lat).
func (w *LoD2Writer) extentWGS84() (minLon, minLat, maxLon, maxLat float64) {
	minLon, minLat, maxLon, maxLat = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	const steps = 16
	for i := 0; i <= steps; i++ {
		t := float64(i) / steps
		for _, p := range [][2]float64{
			{w.spool.ext.minX + t*(w.spool.ext.maxX-w.spool.ext.minX), w.spool.ext.minY}, {w.spool.ext.minX + t*(w.spool.ext.maxX-w.spool.ext.minX), w.spool.ext.maxY},
			{w.spool.ext.minX, w.spool.ext.minY + t*(w.spool.ext.maxY-w.spool.ext.minY)}, {w.spool.ext.maxX, w.spool.ext.minY + t*(w.spool.ext.maxY-w.spool.ext.minY)},
		} {
			lon, lat := geo.FromUTM(w.zone, p[0], p[1])
			minLon, minLat = math.Min(minLon, lon), math.Min(minLat, lat)
			maxLon, maxLat = math.Max(maxLon, lon), math.Max(maxLat, lat)
		}
	}
	return
}

// Abort closes and removes the unfinished files.
func (w *LoD2Writer) Abort() {
	if w.tx != nil {
		_ = w.tx.Rollback()
		w.tx = nil
	}
	_ = w.detach(context.Background())
	_ = w.db.Close()
	if w.spool != nil {
		w.spool.close()
	}
	if w.patch != nil && w.patch.search != nil {
		w.patch.search.close()
		w.patch.search = nil
	}
	_ = os.Remove(w.path)
	_ = os.Remove(w.path + SearchFileSuffix)
	_ = os.Remove(w.path + TileFileSuffix)
	_ = os.Remove(w.path + TileFileSuffix + attrsSuffix)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return errors.Join(err, f.Close())
	}
	return nil
}

// Stats returns what has been written so far.
func (w *LoD2Writer) Stats() LoD2Stats { return w.stats }
