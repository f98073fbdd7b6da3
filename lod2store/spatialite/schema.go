package spatialite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// writerVersion goes into spatialite_history.ver_splite, where SpatiaLite
// writes its own version, so a reader can tell who wrote the file.
const writerVersion = "svc-spatialite/1 (pure Go)"

// DB is the part of *sql.DB, *sql.Conn and *sql.Tx this package uses. The
// database must be SQLite with the R*Tree module (modernc.org/sqlite has it
// built in). When db can begin transactions (*sql.DB, *sql.Conn), each call
// runs in its own transaction; a *sql.Tx is used as it is.
type DB interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

type txBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// inTx runs fn in a transaction when db can begin one, else on db itself.
func inTx(ctx context.Context, db DB, fn func(DB) error) (err error) {
	b, ok := db.(txBeginner)
	if !ok {
		return fn(db)
	}
	tx, err := b.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("spatialite: begin: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreDone(tx.Rollback()))
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("spatialite: commit: %w", err)
	}
	return nil
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// InitMetadata creates the SpatiaLite v4 metadata layout, as SpatiaLite 4.x
// and 5.x InitSpatialMetaData() do: spatial_ref_sys (rows -1, 0, EPSG 4326,
// 4258, 25832 and 25833) with spatial_ref_sys_aux, geometry_columns and its
// _auth, _statistics, _field_infos and _time companions, the views_ and
// virts_ variants, spatialite_history, sql_statements_log, data_licenses,
// SpatiaLite's name-checking triggers, its views (geom_cols_ref_sys,
// spatial_ref_sys_all, vector_layers*) and the SpatialIndex virtual table
// declaration. It is idempotent: existing tables and rows are kept. The
// optional ISO metadata, styling, coverage and WMS tables are not created.
func InitMetadata(ctx context.Context, db DB) error {
	return inTx(ctx, db, func(db DB) error {
		var existed int
		if err := db.QueryRowContext(ctx,
			`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'spatial_ref_sys'`).Scan(&existed); err != nil {
			return fmt.Errorf("spatialite: init metadata: %w", err)
		}
		stmts := append(append(append([]string{}, metadataTables...), metadataViews...), metadataTriggers()...)
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("spatialite: init metadata: %w", err)
			}
		}
		if err := insertSRS(ctx, db); err != nil {
			return err
		}
		if err := declareSpatialIndexTable(ctx, db); err != nil {
			return err
		}
		if existed > 0 {
			return nil
		}
		for _, ev := range [][2]string{
			{"spatial_ref_sys", "table successfully created"},
			{"geometry_columns", "table successfully created"},
			{"spatial_ref_sys", "table successfully populated"},
		} {
			if err := history(ctx, db, ev[0], "", ev[1]); err != nil {
				return err
			}
		}
		return nil
	})
}

// insertSRS adds the rows of spatialRefSys that are missing.
func insertSRS(ctx context.Context, db DB) error {
	for _, r := range spatialRefSys {
		if _, err := db.ExecContext(ctx, `INSERT OR IGNORE INTO spatial_ref_sys
(srid, auth_name, auth_srid, ref_sys_name, proj4text, srtext) VALUES (?, ?, ?, ?, ?, ?)`,
			r.srid, r.authName, r.authSRID, r.name, r.proj4, r.wkt); err != nil {
			return fmt.Errorf("spatialite: insert srid %d: %w", r.srid, err)
		}
		if a := r.aux; a != nil {
			if _, err := db.ExecContext(ctx, `INSERT OR IGNORE INTO spatial_ref_sys_aux
(srid, is_geographic, has_flipped_axes, spheroid, prime_meridian, datum, projection, unit,
 axis_1_name, axis_1_orientation, axis_2_name, axis_2_orientation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				r.srid, a.geographic, a.flipped, a.spheroid, a.primeMeridian, a.datum, a.projection, a.unit,
				a.axis1, a.axis1Dir, a.axis2, a.axis2Dir); err != nil {
				return fmt.Errorf("spatialite: insert srid %d aux: %w", r.srid, err)
			}
		}
	}
	return nil
}

// declareSpatialIndexTable records SpatiaLite's SpatialIndex virtual table
// in the schema, as InitSpatialMetaData() does. CREATE VIRTUAL TABLE needs
// the VirtualSpatialIndex module, which only mod_spatialite provides, so the
// schema row is written directly (writable_schema) and the schema cookie
// bumped; SQLite connects a virtual table lazily, so readers without the
// module (sqlite3, modernc) open the file normally and only a query on
// SpatialIndex itself needs mod_spatialite.
func declareSpatialIndexTable(ctx context.Context, db DB) error {
	var n int
	if err := db.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_master WHERE name = 'SpatialIndex'`).Scan(&n); err != nil {
		return fmt.Errorf("spatialite: spatial index table: %w", err)
	}
	if n > 0 {
		return nil
	}
	var cookie int64
	if err := db.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&cookie); err != nil {
		return fmt.Errorf("spatialite: schema version: %w", err)
	}
	for _, s := range []string{
		`PRAGMA writable_schema = ON`,
		`INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES
('table', 'SpatialIndex', 'SpatialIndex', 0, 'CREATE VIRTUAL TABLE SpatialIndex USING VirtualSpatialIndex()')`,
		fmt.Sprintf(`PRAGMA schema_version = %d`, cookie+1),
		`PRAGMA writable_schema = OFF`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("spatialite: spatial index table: %w", err)
		}
	}
	return nil
}

// history appends an event to spatialite_history.
func history(ctx context.Context, db DB, table, column, event string) error {
	var col any
	if column != "" {
		col = column
	}
	_, err := db.ExecContext(ctx, `INSERT INTO spatialite_history
(table_name, geometry_column, event, timestamp, ver_sqlite, ver_splite)
VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), sqlite_version(), ?)`, table, col, event, writerVersion)
	if err != nil {
		return fmt.Errorf("spatialite: history: %w", err)
	}
	return nil
}
