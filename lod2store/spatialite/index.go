package spatialite

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"math"
)

// checkEvery is how many rows a long loop handles between ctx checks.
const checkEvery = 256

// CreateSpatialIndex (re)builds the R*Tree IndexName(table, column) for a
// registered geometry column from the MBRs stored in the geometry BLOBs
// (header only, no full decode), in ROWID order, in one transaction. NULL
// geometries are skipped. It then sets spatial_index_enabled = 1 and fills
// geometry_columns_statistics (row count of the table, XY extent), which
// GDAL uses for feature count and extent. Call it after the last row is
// written: without SpatiaLite's triggers (see CreateTriggers) later writes
// do not reach the index. Errors wrap ErrName, ErrNotFound (not
// registered), ErrInvalid (with the ROWID of a bad BLOB) or the context's
// error.
func CreateSpatialIndex(ctx context.Context, db DB, table, column string) error {
	return createIndex(ctx, db, table, column, func(db DB, t, c string, add func(int64, Rect) error) (int64, error) {
		return scanBlobs(ctx, db, t, c, add)
	})
}

// CreateSpatialIndexFrom is CreateSpatialIndex with the MBRs supplied by the
// caller instead of read from the blobs: entries yields (ROWID, MBR) of every
// non-NULL geometry of the table. Inserting them in a spatially coherent
// order (for example along a Hilbert curve) builds the R*Tree several times
// faster than ROWID order, where every insert lands in another node.
func CreateSpatialIndexFrom(ctx context.Context, db DB, table, column string, entries iter.Seq2[int64, Rect]) error {
	return createIndex(ctx, db, table, column, func(db DB, t, c string, add func(int64, Rect) error) (int64, error) {
		var n int64
		for rowid, r := range entries {
			if n%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return n, fmt.Errorf("spatialite: fill index: %w", err)
				}
			}
			n++
			if err := add(rowid, r); err != nil {
				return n, err
			}
		}
		return n, nil
	})
}

// CreateSpatialIndexPacked is CreateSpatialIndexFrom for a table that
// gets no more rows: it writes the R*Tree's nodes directly (see packRTree),
// leaves holding consecutive entries, full, instead of inserting row by
// row, many times faster. entries yields exactly n (ROWID, MBR) pairs, in
// a spatially coherent order (a Hilbert curve), once. The tree is a valid
// SQLite R*Tree: later inserts, updates and deletes through SQLite work as
// on any other.
func CreateSpatialIndexPacked(ctx context.Context, db DB, table, column string, n int, entries iter.Seq2[int64, Rect]) error {
	return createIndexWith(ctx, db, table, column, func(db DB, t, c string) (layerStats, error) {
		return packRTree(ctx, db, IndexName(t, c), n, entries)
	})
}

// filler feeds every MBR to add and returns the number of table rows seen.
type filler func(db DB, t, c string, add func(rowid int64, r Rect) error) (int64, error)

func createIndex(ctx context.Context, db DB, table, column string, fill filler) error {
	return createIndexWith(ctx, db, table, column, func(db DB, t, c string) (layerStats, error) {
		return fillIndex(ctx, db, t, c, fill)
	})
}

// createIndexWith (re)creates the R*Tree, has build fill it and writes
// the statistics, in one transaction.
func createIndexWith(ctx context.Context, db DB, table, column string, build func(db DB, t, c string) (layerStats, error)) error {
	t, c, err := names(table, column)
	if err != nil {
		return err
	}
	return inTx(ctx, db, func(db DB) error {
		if _, err := lookupColumn(ctx, db, t, c); err != nil {
			return err
		}
		idx := quote(IndexName(t, c))
		for _, s := range []string{
			`DROP TABLE IF EXISTS main.` + idx, // main: an attached database may have one too
			`CREATE VIRTUAL TABLE ` + idx + ` USING rtree(pkid, xmin, xmax, ymin, ymax)`,
		} {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("spatialite: create index %s: %w", idx, err)
			}
		}
		st, err := build(db, t, c)
		if err != nil {
			return err
		}
		if err := writeStatistics(ctx, db, t, c, st); err != nil {
			return err
		}
		return history(ctx, db, t, c, "R*Tree Spatial Index successfully created")
	})
}

// layerStats are the figures geometry_columns_statistics holds.
type layerStats struct {
	rows    int64
	extent  Rect
	indexed int64
}

// fillIndex inserts each MBR fill yields with one prepared single-row
// INSERT. Multi-row INSERTs measured no faster: the R*Tree node splits
// dominate, not the driver round trips.
func fillIndex(ctx context.Context, db DB, t, c string, fill filler) (layerStats, error) {
	st := layerStats{extent: Rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	ins, err := db.PrepareContext(ctx, `INSERT INTO `+quote(IndexName(t, c))+` (pkid, xmin, xmax, ymin, ymax) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return st, fmt.Errorf("spatialite: fill index: %w", err)
	}
	defer ins.Close()
	st.rows, err = fill(db, t, c, func(rowid int64, r Rect) error {
		if _, err := ins.ExecContext(ctx, rowid, r.MinX, r.MaxX, r.MinY, r.MaxY); err != nil {
			return fmt.Errorf("spatialite: fill index rowid %d: %w", rowid, err)
		}
		st.indexed++
		st.extent = Rect{min(st.extent.MinX, r.MinX), min(st.extent.MinY, r.MinY), max(st.extent.MaxX, r.MaxX), max(st.extent.MaxY, r.MaxY)}
		return nil
	})
	return st, err
}

// scanBlobs reads ROWID and geometry of every row and yields each blob's MBR.
func scanBlobs(ctx context.Context, db DB, t, c string, add func(int64, Rect) error) (int64, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT rowid, %s FROM %s`, quote(c), quote(t)))
	if err != nil {
		return 0, fmt.Errorf("spatialite: fill index: %w", err)
	}
	defer rows.Close()
	var blob sql.RawBytes
	var rowid, n int64
	for rows.Next() {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return n, fmt.Errorf("spatialite: fill index: %w", err)
			}
		}
		n++
		if err := rows.Scan(&rowid, &blob); err != nil {
			return n, fmt.Errorf("spatialite: fill index: %w", err)
		}
		if blob == nil {
			continue
		}
		r, err := Envelope(blob)
		if err != nil {
			return n, fmt.Errorf("spatialite: %s.%s rowid %d: %w", t, c, rowid, err)
		}
		if err := add(rowid, r); err != nil {
			return n, err
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("spatialite: fill index: %w", err)
	}
	return n, nil
}

// writeStatistics marks the index enabled and stores the layer statistics,
// stamped now so that they are newer than geometry_columns_time.
func writeStatistics(ctx context.Context, db DB, t, c string, st layerStats) error {
	var ext [4]any // NULL extent for a table without geometries
	if st.indexed > 0 {
		ext = [4]any{st.extent.MinX, st.extent.MinY, st.extent.MaxX, st.extent.MaxY}
	}
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE geometry_columns SET spatial_index_enabled = 1 WHERE f_table_name = ? AND f_geometry_column = ?`, []any{t, c}},
		{`INSERT OR REPLACE INTO geometry_columns_statistics (f_table_name, f_geometry_column, last_verified,
row_count, extent_min_x, extent_min_y, extent_max_x, extent_max_y)
VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, ?, ?, ?)`, []any{t, c, st.rows, ext[0], ext[1], ext[2], ext[3]}},
	} {
		if _, err := db.ExecContext(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("spatialite: statistics %s.%s: %w", t, c, err)
		}
	}
	return nil
}

// CreateTriggers installs SpatiaLite 5's per-column triggers on table:
// geometry type/SRID constraint checks (ggi/ggu), the geometry_columns_time
// stamps (tmi/tmu/tmd) and, when the spatial index is enabled, the R*Tree
// maintenance (gii/giu/gid). With them the file behaves exactly like one
// SpatiaLite wrote: editing it in spatialite, QGIS or GDAL keeps the index
// in step.
//
// The check and index triggers call SpatiaLite SQL functions
// (GeometryConstraints, RTreeAlign), so once they exist an INSERT, or an
// UPDATE of the geometry column, through a driver without mod_spatialite
// (modernc.org/sqlite) fails with "no such function"; reads, DELETEs and
// updates of other columns keep working. Call it as the very last step of
// writing a pack, after CreateSpatialIndex. Errors wrap ErrName or
// ErrNotFound.
func CreateTriggers(ctx context.Context, db DB, table, column string) error {
	t, c, err := names(table, column)
	if err != nil {
		return err
	}
	return inTx(ctx, db, func(db DB) error {
		gc, err := lookupColumn(ctx, db, t, c)
		if err != nil {
			return err
		}
		stmts := columnTriggers(t, c)
		if gc.indexEnabled == 1 {
			stmts = append(stmts, indexTriggers(t, c)...)
		}
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("spatialite: triggers %s.%s: %w", t, c, err)
			}
		}
		return nil
	})
}

// columnTriggers are the constraint and timestamp triggers, as SpatiaLite
// 5.0 writes them.
func columnTriggers(t, c string) []string {
	check := func(name, when string) string {
		return fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS "%s_%s_%s" %s ON "%s"
FOR EACH ROW BEGIN
SELECT RAISE(ROLLBACK, '%s.%s violates Geometry constraint [geom-type or SRID not allowed]')
WHERE (SELECT geometry_type FROM geometry_columns
WHERE Lower(f_table_name) = Lower('%s') AND Lower(f_geometry_column) = Lower('%s')
AND GeometryConstraints(NEW."%s", geometry_type, srid) = 1) IS NULL;
END`, name, t, c, when, t, t, c, t, c, c)
	}
	stamp := func(name, when, field string) string {
		return fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS "%s_%s_%s" %s ON "%s"
FOR EACH ROW BEGIN
UPDATE geometry_columns_time SET %s = strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now')
WHERE Lower(f_table_name) = Lower('%s') AND Lower(f_geometry_column) = Lower('%s');
END`, name, t, c, when, t, field, t, c)
	}
	return []string{
		check("ggi", "BEFORE INSERT"),
		check("ggu", fmt.Sprintf(`BEFORE UPDATE OF "%s"`, c)),
		stamp("tmu", "AFTER UPDATE", "last_update"),
		stamp("tmi", "AFTER INSERT", "last_insert"),
		stamp("tmd", "AFTER DELETE", "last_delete"),
	}
}

// indexTriggers keep the R*Tree in step with the table.
func indexTriggers(t, c string) []string {
	idx := IndexName(t, c)
	align := func(name, when string) string {
		return fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS "%s_%s_%s" %s ON "%s"
FOR EACH ROW BEGIN
DELETE FROM "%s" WHERE pkid=NEW.ROWID;
SELECT RTreeAlign('%s', NEW.ROWID, NEW."%s");
END`, name, t, c, when, t, idx, idx, c)
	}
	return []string{
		align("gii", "AFTER INSERT"),
		align("giu", fmt.Sprintf(`AFTER UPDATE OF "%s"`, c)),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS "gid_%s_%s" AFTER DELETE ON "%s"
FOR EACH ROW BEGIN
DELETE FROM "%s" WHERE pkid=OLD.ROWID;
END`, t, c, t, idx),
	}
}
