// Package solarstore holds the precomputed solar irradiation of the roof
// facets of one BL's LoD2 pack: the file solar.sqlite of a solar pack
// (data/solar/<bl>/<snapshot>/), written by `svc build solar` and read by
// the solar route, the solar map tiles, the building vector tiles and the
// building tileset build.
//
// A facet is one polygon of a roof surface, named by the LoD2 pack's
// surface_id and the polygon's index in the surface's MultiPolygon (part):
// the order of lod2store.LoD2.Roof and RoofFacets. The ids are those of one
// LoD2 snapshot (Info.LoD2Snapshot); a store of another snapshot says
// nothing about the published buildings.
//
// Values are whole Wh/m², the route's two kWh decimals without rounding
// twice, and small on disk: SQLite writes an integer of that size in three
// or four bytes, a REAL in eight (NRW has some 50 million roof facets).
package solarstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/svc-geodata/svc/pack"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// FileName is the store's file in a solar pack.
const FileName = "solar.sqlite"

// Info describes how a store was computed; it is kept in the file (table
// meta, key "info") and repeated in the pack manifest.
type Info struct {
	LoD2Snapshot string  `json:"lod2_snapshot"` // the LoD2 pack's snapshot whose ids the facets use
	LoD2SHA256   string  `json:"lod2_sha256"`   // the SHA-256 of that pack's lod2.sqlite (its manifest's)
	Model        string  `json:"model"`         // sun and sky model, as the route names it
	Shading      string  `json:"shading"`       // what was evaluated for every building unless it says otherwise
	Climate      Climate `json:"climate"`
	// Best is the best plane at the climate's site, the base of
	// share_of_best. Zero in a store of the default climate, whose sites
	// are the buildings' grid cells: each facet holds its cell's
	// (Facet.BestWhM2); see BestWhM2.
	Best      Plane `json:"best_plane"`
	Buildings int64 `json:"buildings"`
	Facets    int64 `json:"facets"`
	// Inputs are the terrain and vegetation packs (product/bl/snapshot,
	// sorted) the shading read; a server whose published ones differ
	// computes on demand. Absent in stores written without it.
	Inputs []string `json:"inputs,omitempty"`
	// BBoxWGS84 is the area a build was restricted to (minLon, minLat,
	// maxLon, maxLat): only the buildings meeting it are held. Absent: every
	// building of the LoD2 pack.
	BBoxWGS84 []float64 `json:"bbox_wgs84,omitempty"`
}

// Climate names the climate input of a store: the operator's file, or the
// built-in default climate of Germany (Format "cmsaf-monthly-means", File
// "", SHA256 roofsolar.DefaultSHA256, Method set, and no site: LatDeg,
// LonDeg and ElevationM are 0, each building was computed at the grid
// point of its 0.2° cell).
type Climate struct {
	File       string  `json:"file"`   // base name of the operator's file; "" for the default climate
	SHA256     string  `json:"sha256"` // of the file, or the default climate's identity
	Format     string  `json:"format"`
	Source     string  `json:"source"`
	FirstYear  int     `json:"first_year"`
	LastYear   int     `json:"last_year"`
	LatDeg     float64 `json:"latitude"`
	LonDeg     float64 `json:"longitude"`
	ElevationM float64 `json:"elevation_m"`
	// Method is how the default climate's hours are made; absent for a
	// file (and in stores written before the default climate was built).
	Method string `json:"method,omitempty"`
}

// Plane is an orientation and its annual irradiation.
type Plane struct {
	TiltDeg    float64 `json:"tilt_deg"`
	AzimuthDeg float64 `json:"azimuth_deg"`
	AnnualWhM2 int64   `json:"annual_wh_m2"`
}

// Facet is the irradiation of one roof facet over the climate's year.
type Facet struct {
	SurfaceID   int64
	Part        int
	AnnualWhM2  int64 // on the plane, after shading (the open plane's when shading was not evaluated)
	Unshaded    int64 // on the open plane
	MonthlyWhM2 [12]int64
	Loss        *Loss // nil: shading not evaluated
	// BestWhM2 is the annual irradiation of the best plane of the
	// building's climate (its default climate cell's), the base of its
	// share_of_best; 0 when the store's Info.Best holds for it (a file's
	// climate, and stores written before the column existed).
	BestWhM2 int64
}

// BestWhM2 is the best plane's annual irradiation f's share_of_best is
// taken of: f's own (its cell's) when the store holds one, else Best's.
func (i Info) BestWhM2(f Facet) int64 {
	if f.BestWhM2 > 0 {
		return f.BestWhM2
	}
	return i.Best.AnnualWhM2
}

// Loss is a facet's annual loss by shading, Wh/m², in the order the
// route splits it (terrain, then buildings, then trees).
type Loss struct{ Terrain, Buildings, Trees int64 }

// Building is the facets of one building, in roof order.
type Building struct {
	ID      int64  // the LoD2 pack's building_id
	GMLID   string // its gml:id
	Shading string // "" when Info.Shading holds for it, else what was evaluated
	Facets  []Facet
}

// ErrNotFound is returned for a building the store does not hold.
var ErrNotFound = errors.New("solarstore: not found")

const schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE buildings(gmlid TEXT PRIMARY KEY, building_id INTEGER NOT NULL, shading TEXT) WITHOUT ROWID;
CREATE TABLE facets(surface_id INTEGER NOT NULL, part INTEGER NOT NULL, building_id INTEGER NOT NULL,
  annual_wh_m2 INTEGER NOT NULL, unshaded_wh_m2 INTEGER NOT NULL,
  m01 INTEGER NOT NULL, m02 INTEGER NOT NULL, m03 INTEGER NOT NULL, m04 INTEGER NOT NULL,
  m05 INTEGER NOT NULL, m06 INTEGER NOT NULL, m07 INTEGER NOT NULL, m08 INTEGER NOT NULL,
  m09 INTEGER NOT NULL, m10 INTEGER NOT NULL, m11 INTEGER NOT NULL, m12 INTEGER NOT NULL,
  loss_terrain_wh_m2 INTEGER, loss_buildings_wh_m2 INTEGER, loss_trees_wh_m2 INTEGER,
  best_wh_m2 INTEGER,
  PRIMARY KEY (surface_id, part)) WITHOUT ROWID;
`

// indexes are made when a writer closes, after the rows.
const indexes = `CREATE INDEX facets_building ON facets(building_id, surface_id, part);`

const facetCols = `surface_id, part, annual_wh_m2, unshaded_wh_m2, m01, m02, m03, m04, m05, m06, m07, m08, m09, m10, m11, m12,
loss_terrain_wh_m2, loss_buildings_wh_m2, loss_trees_wh_m2, best_wh_m2`

// facetColsV1 reads a store written before the column best_wh_m2 (NULL).
const facetColsV1 = `surface_id, part, annual_wh_m2, unshaded_wh_m2, m01, m02, m03, m04, m05, m06, m07, m08, m09, m10, m11, m12,
loss_terrain_wh_m2, loss_buildings_wh_m2, loss_trees_wh_m2, NULL`

// Store is an open, read-only solar store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	info Info
	cols string // facetCols, or facetColsV1 for a store without best_wh_m2
}

// Open opens the store at path read-only.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1&_pragma=query_only(1)")
	if err != nil {
		return nil, fmt.Errorf("solarstore: open %s: %w", path, err)
	}
	s := &Store{db: db, cols: facetCols}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('facets') WHERE name = 'best_wh_m2'`).Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("solarstore: %s: %w", path, err)
	}
	if n == 0 {
		s.cols = facetColsV1
	}
	var raw string
	if err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'info'`).Scan(&raw); err != nil {
		db.Close()
		return nil, fmt.Errorf("solarstore: %s: info: %w", path, err)
	}
	if err := json.Unmarshal([]byte(raw), &s.info); err != nil {
		db.Close()
		return nil, fmt.Errorf("solarstore: %s: info: %w", path, err)
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Info returns how the store was computed.
func (s *Store) Info() Info { return s.info }

// Probe checks that the file answers (the admin health check).
func (s *Store) Probe(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM meta`).Scan(&n); err != nil {
		return fmt.Errorf("solarstore: probe: %w", err)
	}
	return nil
}

// Building returns the facets of the building with gml:id gmlid in roof
// order. Errors wrap ErrNotFound when the store does not hold it.
func (s *Store) Building(ctx context.Context, gmlid string) (Building, error) {
	b := Building{GMLID: gmlid}
	var sh sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT building_id, shading FROM buildings WHERE gmlid = ?`, gmlid).Scan(&b.ID, &sh)
	if errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("solarstore: building %q: %w", gmlid, ErrNotFound)
	}
	if err != nil {
		return b, fmt.Errorf("solarstore: building %q: %w", gmlid, err)
	}
	b.Shading = sh.String
	rows, err := s.db.QueryContext(ctx, `SELECT `+s.cols+` FROM facets WHERE building_id = ? ORDER BY surface_id, part`, b.ID)
	if err != nil {
		return b, fmt.Errorf("solarstore: building %q: %w", gmlid, err)
	}
	err = scanFacets(rows, func(f Facet) error { b.Facets = append(b.Facets, f); return nil })
	if err != nil {
		return b, fmt.Errorf("solarstore: building %q: %w", gmlid, err)
	}
	return b, nil
}

// idChunk bounds the ids of one IN query (SQLite's default limit of host
// parameters is 32,766).
const idChunk = 500

// Surfaces calls fn with the facets of the surfaces sids (any order, ids
// the store does not hold are skipped), in (surface_id, part) order within
// each chunk of ids.
func (s *Store) Surfaces(ctx context.Context, sids []int64, fn func(Facet) error) error {
	for start := 0; start < len(sids); start += idChunk {
		chunk := sids[start:min(start+idChunk, len(sids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := s.db.QueryContext(ctx, `SELECT `+s.cols+` FROM facets WHERE surface_id IN (?`+
			strings.Repeat(`,?`, len(chunk)-1)+`) ORDER BY surface_id, part`, args...)
		if err != nil {
			return fmt.Errorf("solarstore: surfaces: %w", err)
		}
		if err := scanFacets(rows, fn); err != nil {
			return fmt.Errorf("solarstore: surfaces: %w", err)
		}
	}
	return nil
}

func scanFacets(rows *sql.Rows, fn func(Facet) error) error {
	defer rows.Close()
	for rows.Next() {
		var f Facet
		var lt, lb, ltr, best sql.NullInt64
		dst := []any{&f.SurfaceID, &f.Part, &f.AnnualWhM2, &f.Unshaded}
		for m := range f.MonthlyWhM2 {
			dst = append(dst, &f.MonthlyWhM2[m])
		}
		dst = append(dst, &lt, &lb, &ltr, &best)
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		f.BestWhM2 = best.Int64
		if lt.Valid {
			f.Loss = &Loss{Terrain: lt.Int64, Buildings: lb.Int64, Trees: ltr.Int64}
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return rows.Err()
}

// OpenPack opens the store of a solar pack in dir described by m.
func OpenPack(ctx context.Context, dir string, m pack.Manifest) (*Store, error) {
	if m.Solar == nil || m.Solar.File == "" {
		return nil, fmt.Errorf("solarstore: %s: manifest without a solar part", m.Key())
	}
	return Open(ctx, filepath.Join(dir, filepath.FromSlash(m.Solar.File)))
}
