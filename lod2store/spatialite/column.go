package spatialite

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of the schema functions.
var (
	// ErrNotFound reports a missing table or an unregistered geometry column.
	ErrNotFound = errors.New("spatialite: not found")
	// ErrExists reports a geometry column that is already registered.
	ErrExists = errors.New("spatialite: already registered")
	// ErrUnknownSRID reports an SRID missing from spatial_ref_sys.
	ErrUnknownSRID = errors.New("spatialite: srid not in spatial_ref_sys")
	// ErrName reports a table or column name SpatiaLite cannot register
	// (empty, or containing a quote or NUL), or an unknown geometry type
	// or dimension model.
	ErrName = errors.New("spatialite: invalid name")
)

// geometryKinds maps SpatiaLite's geometry type names to OGC type numbers.
var geometryKinds = map[string]uint32{
	"GEOMETRY": 0, "POINT": kindPoint, "LINESTRING": kindLineString, "POLYGON": kindPolygon,
	"MULTIPOINT": kindMultiPoint, "MULTILINESTRING": kindMultiLineString,
	"MULTIPOLYGON": kindMultiPolygon, "GEOMETRYCOLLECTION": kindGeometryCollection,
}

// dimensionModels maps SpatiaLite's dimension names to the geometry_type
// offset and coord_dimension.
var dimensionModels = map[string][2]int{
	"XY": {0, 2}, "2": {0, 2}, "XYZ": {1000, 3}, "3": {1000, 3},
	"XYM": {2000, 3}, "XYZM": {3000, 4}, "4": {3000, 4},
}

// names lower-cases and checks a table and column name. SpatiaLite stores
// them lower case (its triggers reject anything else); SQLite resolves
// identifiers case-insensitively, so the lowered names still match.
func names(table, column string) (string, string, error) {
	for _, n := range []string{table, column} {
		if n == "" || strings.ContainsAny(n, "'\"\x00") {
			return "", "", fmt.Errorf("spatialite: name %q: %w", n, ErrName)
		}
	}
	return strings.ToLower(table), strings.ToLower(column), nil
}

// quote returns n as an SQL identifier; names() has excluded quotes.
func quote(n string) string { return `"` + n + `"` }

// IndexName returns the name of the R*Tree spatial index SpatiaLite uses
// for table.column: "idx_<table>_<column>", lower case. The R*Tree has the
// columns pkid (the table's ROWID), xmin, xmax, ymin, ymax, stored as
// float32 rounded outwards, so a query on it returns a superset of the
// exact MBR matches.
func IndexName(table, column string) string {
	return "idx_" + strings.ToLower(table) + "_" + strings.ToLower(column)
}

// AddGeometryColumn registers column of table in geometry_columns (and its
// _auth, _statistics and _time companions) as geometry of geomType
// ("POINT" ... "MULTIPOLYGON", "GEOMETRYCOLLECTION", "GEOMETRY") with
// dims ("XY", "XYZ", "XYM", "XYZM") in srid, like SpatiaLite's
// AddGeometryColumn(). The column is added with ALTER TABLE if missing; an
// existing BLOB column is kept as it is. No SpatiaLite triggers are created
// (see CreateTriggers). Errors wrap ErrName, ErrNotFound (no such table),
// ErrUnknownSRID (call InitMetadata first) or ErrExists.
func AddGeometryColumn(ctx context.Context, db DB, table, column string, srid int, geomType, dims string) error {
	t, c, err := names(table, column)
	if err != nil {
		return err
	}
	kind, okKind := geometryKinds[strings.ToUpper(geomType)]
	dim, okDim := dimensionModels[strings.ToUpper(dims)]
	if !okKind || !okDim {
		return fmt.Errorf("spatialite: geometry %q %q: %w", geomType, dims, ErrName)
	}
	return inTx(ctx, db, func(db DB) error {
		if err := ensureColumn(ctx, db, t, c, strings.ToUpper(geomType)); err != nil {
			return err
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM spatial_ref_sys WHERE srid = ?`, srid).Scan(&n); err != nil {
			return fmt.Errorf("spatialite: add geometry column: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("spatialite: srid %d: %w", srid, ErrUnknownSRID)
		}
		if _, err := lookupColumn(ctx, db, t, c); err == nil {
			return fmt.Errorf("spatialite: %s.%s: %w", t, c, ErrExists)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		for _, s := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO geometry_columns (f_table_name, f_geometry_column, geometry_type, coord_dimension, srid, spatial_index_enabled)
VALUES (?, ?, ?, ?, ?, 0)`, []any{t, c, int(kind) + dim[0], dim[1], srid}},
			{`INSERT OR REPLACE INTO geometry_columns_auth (f_table_name, f_geometry_column, read_only, hidden) VALUES (?, ?, 0, 0)`, []any{t, c}},
			{`INSERT OR REPLACE INTO geometry_columns_statistics (f_table_name, f_geometry_column) VALUES (?, ?)`, []any{t, c}},
			{`INSERT OR REPLACE INTO geometry_columns_time (f_table_name, f_geometry_column) VALUES (?, ?)`, []any{t, c}},
		} {
			if _, err := db.ExecContext(ctx, s.sql, s.args...); err != nil {
				return fmt.Errorf("spatialite: register %s.%s: %w", t, c, err)
			}
		}
		event := fmt.Sprintf("Geometry [%s,%s,SRID=%d] successfully created", strings.ToUpper(geomType), strings.ToUpper(dims), srid)
		return history(ctx, db, t, c, event)
	})
}

// ensureColumn checks that table exists and adds column if it is missing.
func ensureColumn(ctx context.Context, db DB, table, column, declType string) error {
	rows, err := db.QueryContext(ctx, `SELECT lower(name) FROM pragma_table_info(?)`, table)
	if err != nil {
		return fmt.Errorf("spatialite: table %s: %w", table, err)
	}
	defer rows.Close()
	found, has := false, false
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("spatialite: table %s: %w", table, err)
		}
		found, has = true, has || name == column
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("spatialite: table %s: %w", table, err)
	}
	if !found {
		return fmt.Errorf("spatialite: table %s: %w", table, ErrNotFound)
	}
	if has {
		return nil
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %s ADD COLUMN %s %s`, quote(table), quote(column), declType)); err != nil {
		return fmt.Errorf("spatialite: add column %s.%s: %w", table, column, err)
	}
	return nil
}

// geometryColumn is a row of geometry_columns.
type geometryColumn struct {
	geometryType, coordDimension, srid, indexEnabled int
}

// lookupColumn reads the geometry_columns row of table.column (lower case).
func lookupColumn(ctx context.Context, db DB, table, column string) (geometryColumn, error) {
	var gc geometryColumn
	rows, err := db.QueryContext(ctx, `SELECT geometry_type, coord_dimension, srid, spatial_index_enabled
FROM geometry_columns WHERE f_table_name = ? AND f_geometry_column = ?`, table, column)
	if err != nil {
		return gc, fmt.Errorf("spatialite: geometry_columns: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return gc, fmt.Errorf("spatialite: geometry_columns: %w", err)
		}
		return gc, fmt.Errorf("spatialite: geometry column %s.%s: %w", table, column, ErrNotFound)
	}
	if err := rows.Scan(&gc.geometryType, &gc.coordDimension, &gc.srid, &gc.indexEnabled); err != nil {
		return gc, fmt.Errorf("spatialite: geometry_columns: %w", err)
	}
	return gc, nil
}
