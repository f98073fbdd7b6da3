package spatialite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func queryInt(t *testing.T, db DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestInitMetadata(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.sqlite")
	db := openDB(t, path)
	for range 2 { // idempotent
		if err := InitMetadata(ctx, db); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{
		"spatial_ref_sys", "spatial_ref_sys_aux", "spatialite_history", "geometry_columns",
		"geometry_columns_auth", "geometry_columns_statistics", "geometry_columns_field_infos",
		"geometry_columns_time", "views_geometry_columns", "virts_geometry_columns",
		"sql_statements_log", "geom_cols_ref_sys", "vector_layers", "SpatialIndex",
	} {
		if queryInt(t, db, `SELECT count(*) FROM sqlite_master WHERE name = ?`, name) != 1 {
			t.Errorf("missing %s", name)
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM spatial_ref_sys WHERE srid IN (-1, 0, 4326, 4258, 25832, 25833)`); n != 6 {
		t.Errorf("%d spatial_ref_sys rows", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM spatial_ref_sys WHERE srid = 25833 AND proj4text LIKE '+proj=utm +zone=33 %' AND srtext LIKE '%AUTHORITY["EPSG","25833"]]'`); n != 1 {
		t.Error("25833 row lacks its proj4text or WKT")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM spatialite_history`); n != 3 {
		t.Errorf("%d history rows after two inits, want 3", n)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO geometry_columns VALUES ('Upper', 'geom', 6, 2, 4326, 0)`); err == nil ||
		!strings.Contains(err.Error(), "must be lower case") {
		t.Errorf("upper-case table name accepted: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// A fresh connection parses the schema with the hand-written SpatialIndex row.
	db = openDB(t, path)
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v", check, err)
	}
}

// TestInitMetadataCallerTx checks that a caller's *sql.Tx is used as is.
func TestInitMetadataCallerTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "tx.sqlite"))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := InitMetadata(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM sqlite_master`); n != 0 {
		t.Errorf("%d schema objects survive the rollback", n)
	}
}

func newMetaDB(t *testing.T) *sql.DB {
	t.Helper()
	db := openDB(t, filepath.Join(t.TempDir(), "c.sqlite"))
	if err := InitMetadata(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(surfacesDDL); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestAddGeometryColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newMetaDB(t)
	if err := AddGeometryColumn(ctx, db, "Surfaces", "GEOM", 25832, "multipolygon", "xyz"); err != nil {
		t.Fatal(err)
	}
	var gt, dim, srid, idx int
	if err := db.QueryRow(`SELECT geometry_type, coord_dimension, srid, spatial_index_enabled FROM geometry_columns
WHERE f_table_name = 'surfaces' AND f_geometry_column = 'geom'`).Scan(&gt, &dim, &srid, &idx); err != nil {
		t.Fatal(err)
	}
	if gt != 1006 || dim != 3 || srid != 25832 || idx != 0 {
		t.Errorf("geometry_columns = %d %d %d %d", gt, dim, srid, idx)
	}
	for _, tab := range []string{"geometry_columns_auth", "geometry_columns_statistics", "geometry_columns_time"} {
		if queryInt(t, db, `SELECT count(*) FROM `+tab+` WHERE f_table_name = 'surfaces'`) != 1 {
			t.Errorf("no %s row", tab)
		}
	}
	// A missing column is added, as SpatiaLite does.
	if err := AddGeometryColumn(ctx, db, "surfaces", "centroid", 4326, "POINT", "XY"); err != nil {
		t.Fatal(err)
	}
	if queryInt(t, db, `SELECT count(*) FROM pragma_table_info('surfaces') WHERE name = 'centroid'`) != 1 {
		t.Error("column centroid not added")
	}
	for _, tc := range []struct {
		name, table, column, typ, dims string
		srid                           int
		want                           error
	}{
		{"duplicate", "surfaces", "geom", "MULTIPOLYGON", "XYZ", 25832, ErrExists},
		{"unknown srid", "surfaces", "g2", "MULTIPOLYGON", "XYZ", 31467, ErrUnknownSRID},
		{"no table", "nope", "geom", "MULTIPOLYGON", "XYZ", 25832, ErrNotFound},
		{"quote", "sur'faces", "geom", "MULTIPOLYGON", "XYZ", 25832, ErrName},
		{"empty name", "surfaces", "", "MULTIPOLYGON", "XYZ", 25832, ErrName},
		{"bad type", "surfaces", "g3", "TIN", "XYZ", 25832, ErrName},
		{"bad dims", "surfaces", "g3", "POLYGON", "XYZW", 25832, ErrName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := AddGeometryColumn(ctx, db, tc.table, tc.column, tc.srid, tc.typ, tc.dims)
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestCreateSpatialIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	surfaces := makeSurfaces(500, 350000, 5600000, 11)
	db := openDB(t, buildPack(t, surfaces, 25832, false))
	if _, err := db.Exec(`INSERT INTO surfaces (surface_id) VALUES (9999)`); err != nil { // NULL geometry
		t.Fatal(err)
	}
	for range 2 { // rebuilding replaces the index
		if err := CreateSpatialIndex(ctx, db, "surfaces", "geom"); err != nil {
			t.Fatal(err)
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM idx_surfaces_geom`); n != int64(len(surfaces)) {
		t.Errorf("index holds %d rows, want %d", n, len(surfaces))
	}
	if n := queryInt(t, db, `SELECT spatial_index_enabled FROM geometry_columns`); n != 1 {
		t.Errorf("spatial_index_enabled = %d", n)
	}
	var rows int64
	var ext Rect
	if err := db.QueryRow(`SELECT row_count, extent_min_x, extent_min_y, extent_max_x, extent_max_y
FROM geometry_columns_statistics`).Scan(&rows, &ext.MinX, &ext.MinY, &ext.MaxX, &ext.MaxY); err != nil {
		t.Fatal(err)
	}
	want := Rect{1e300, 1e300, -1e300, -1e300}
	for _, s := range surfaces {
		b := s.geom.Bounds()
		want = Rect{min(want.MinX, b.Min(0)), min(want.MinY, b.Min(1)), max(want.MaxX, b.Max(0)), max(want.MaxY, b.Max(1))}
	}
	if rows != int64(len(surfaces))+1 || ext != want {
		t.Errorf("statistics %d %v, want %d %v", rows, ext, len(surfaces)+1, want)
	}
	for _, q := range queryRects(350000, 5600000) {
		got := idsInWindow(t, db, q)
		if w := bruteForce(t, surfaces, q); !slices.Equal(got, w) {
			t.Errorf("window %v: ids %v, want %v", q, got, w)
		}
	}
}

func idsInWindow(t *testing.T, db *sql.DB, q Rect) []int64 {
	t.Helper()
	rows, err := db.Query(`SELECT pkid FROM idx_surfaces_geom WHERE xmin <= ? AND xmax >= ? AND ymin <= ? AND ymax >= ? ORDER BY pkid`,
		q.MaxX, q.MinX, q.MaxY, q.MinY)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestCreateSpatialIndexErrors(t *testing.T) {
	t.Parallel()
	db := newMetaDB(t)
	ctx := context.Background()
	if err := CreateSpatialIndex(ctx, db, "surfaces", "geom"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unregistered: err = %v", err)
	}
	if err := AddGeometryColumn(ctx, db, "surfaces", "geom", 25832, "MULTIPOLYGON", "XYZ"); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := CreateSpatialIndex(canceled, db, "surfaces", "geom"); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: err = %v", err)
	}
	if _, err := db.Exec(`INSERT INTO surfaces (surface_id, geom) VALUES (7, x'0001020304')`); err != nil {
		t.Fatal(err)
	}
	err := CreateSpatialIndex(ctx, db, "surfaces", "geom")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "rowid 7") {
		t.Errorf("bad blob: err = %v", err)
	}
	if n := queryInt(t, db, `SELECT spatial_index_enabled FROM geometry_columns`); n != 0 {
		t.Error("failed build left spatial_index_enabled set")
	}
}

// TestCreateTriggers checks what a pure-Go writer can still do once
// SpatiaLite's triggers are in place.
func TestCreateTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t, buildPack(t, makeSurfaces(10, 350000, 5600000, 2), 25832, true))
	if n := queryInt(t, db, `SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'surfaces'`); n != 8 {
		t.Errorf("%d triggers on surfaces, want 8", n)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO surfaces (surface_id) VALUES (100)`); err == nil ||
		!strings.Contains(err.Error(), "no such function") {
		t.Errorf("insert without mod_spatialite: err = %v", err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE surfaces SET gmlid = 'renamed' WHERE surface_id = 1`); err != nil {
		t.Errorf("update of a plain column: %v", err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM surfaces WHERE surface_id = 2`); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM idx_surfaces_geom WHERE pkid = 2`); n != 0 {
		t.Error("delete did not reach the index")
	}
	if err := CreateTriggers(ctx, db, "surfaces", "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unregistered: err = %v", err)
	}
}
