package spatialite

import (
	"fmt"
	"strings"
)

// The DDL below reproduces the core metadata SpatiaLite 4.x/5.x creates in
// InitSpatialMetaData() (metatables.c), minus the optional ISO metadata,
// SLD/SE styling, raster/vector coverage, topology and WMS tables, which
// neither GDAL nor CheckSpatialMetaData() needs. Table and column names,
// types and constraints match SpatiaLite's, so both tools see a native file.
var metadataTables = []string{
	`CREATE TABLE IF NOT EXISTS spatial_ref_sys (
srid INTEGER NOT NULL PRIMARY KEY,
auth_name TEXT NOT NULL,
auth_srid INTEGER NOT NULL,
ref_sys_name TEXT NOT NULL DEFAULT 'Unknown',
proj4text TEXT NOT NULL,
srtext TEXT NOT NULL DEFAULT 'Undefined')`,
	`CREATE UNIQUE INDEX IF NOT EXISTS idx_spatial_ref_sys ON spatial_ref_sys (auth_srid, auth_name)`,
	`CREATE TABLE IF NOT EXISTS spatial_ref_sys_aux (
srid INTEGER NOT NULL PRIMARY KEY,
is_geographic INTEGER,
has_flipped_axes INTEGER,
spheroid TEXT,
prime_meridian TEXT,
datum TEXT,
projection TEXT,
unit TEXT,
axis_1_name TEXT,
axis_1_orientation TEXT,
axis_2_name TEXT,
axis_2_orientation TEXT,
CONSTRAINT fk_sprefsys FOREIGN KEY (srid) REFERENCES spatial_ref_sys (srid))`,
	`CREATE TABLE IF NOT EXISTS spatialite_history (
event_id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
table_name TEXT NOT NULL,
geometry_column TEXT,
event TEXT NOT NULL,
timestamp TEXT NOT NULL,
ver_sqlite TEXT NOT NULL,
ver_splite TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS geometry_columns (
f_table_name TEXT NOT NULL,
f_geometry_column TEXT NOT NULL,
geometry_type INTEGER NOT NULL,
coord_dimension INTEGER NOT NULL,
srid INTEGER NOT NULL,
spatial_index_enabled INTEGER NOT NULL,
CONSTRAINT pk_geom_cols PRIMARY KEY (f_table_name, f_geometry_column),
CONSTRAINT fk_gc_srs FOREIGN KEY (srid) REFERENCES spatial_ref_sys (srid),
CONSTRAINT ck_gc_rtree CHECK (spatial_index_enabled IN (0,1,2)))`,
	`CREATE INDEX IF NOT EXISTS idx_srid_geocols ON geometry_columns (srid)`,
	`CREATE TABLE IF NOT EXISTS views_geometry_columns (
view_name TEXT NOT NULL,
view_geometry TEXT NOT NULL,
view_rowid TEXT NOT NULL,
f_table_name TEXT NOT NULL,
f_geometry_column TEXT NOT NULL,
read_only INTEGER NOT NULL,
CONSTRAINT pk_geom_cols_views PRIMARY KEY (view_name, view_geometry),
CONSTRAINT fk_views_geom_cols FOREIGN KEY (f_table_name, f_geometry_column) REFERENCES geometry_columns (f_table_name, f_geometry_column) ON DELETE CASCADE,
CONSTRAINT ck_vw_rdonly CHECK (read_only IN (0,1)))`,
	`CREATE INDEX IF NOT EXISTS idx_viewsjoin ON views_geometry_columns (f_table_name, f_geometry_column)`,
	`CREATE TABLE IF NOT EXISTS virts_geometry_columns (
virt_name TEXT NOT NULL,
virt_geometry TEXT NOT NULL,
geometry_type INTEGER NOT NULL,
coord_dimension INTEGER NOT NULL,
srid INTEGER NOT NULL,
CONSTRAINT pk_geom_cols_virts PRIMARY KEY (virt_name, virt_geometry),
CONSTRAINT fk_vgc_srid FOREIGN KEY (srid) REFERENCES spatial_ref_sys (srid))`,
	`CREATE INDEX IF NOT EXISTS idx_virtssrid ON virts_geometry_columns (srid)`,
	statisticsTable("geometry_columns_statistics", "f_table_name", "f_geometry_column", "gc_statistics", "geometry_columns"),
	statisticsTable("views_geometry_columns_statistics", "view_name", "view_geometry", "vwgc_statistics", "views_geometry_columns"),
	statisticsTable("virts_geometry_columns_statistics", "virt_name", "virt_geometry", "vrtgc_statistics", "virts_geometry_columns"),
	fieldInfosTable("geometry_columns_field_infos", "f_table_name", "f_geometry_column", "gcfld_infos", "geometry_columns"),
	fieldInfosTable("views_geometry_columns_field_infos", "view_name", "view_geometry", "vwgcfld_infos", "views_geometry_columns"),
	fieldInfosTable("virts_geometry_columns_field_infos", "virt_name", "virt_geometry", "vrtgcfld_infos", "virts_geometry_columns"),
	`CREATE TABLE IF NOT EXISTS geometry_columns_time (
f_table_name TEXT NOT NULL,
f_geometry_column TEXT NOT NULL,
last_insert TIMESTAMP NOT NULL DEFAULT '0000-01-01T00:00:00.000Z',
last_update TIMESTAMP NOT NULL DEFAULT '0000-01-01T00:00:00.000Z',
last_delete TIMESTAMP NOT NULL DEFAULT '0000-01-01T00:00:00.000Z',
CONSTRAINT pk_gc_time PRIMARY KEY (f_table_name, f_geometry_column),
CONSTRAINT fk_gc_time FOREIGN KEY (f_table_name, f_geometry_column) REFERENCES geometry_columns (f_table_name, f_geometry_column) ON DELETE CASCADE)`,
	`CREATE TABLE IF NOT EXISTS geometry_columns_auth (
f_table_name TEXT NOT NULL,
f_geometry_column TEXT NOT NULL,
read_only INTEGER NOT NULL,
hidden INTEGER NOT NULL,
CONSTRAINT pk_gc_auth PRIMARY KEY (f_table_name, f_geometry_column),
CONSTRAINT fk_gc_auth FOREIGN KEY (f_table_name, f_geometry_column) REFERENCES geometry_columns (f_table_name, f_geometry_column) ON DELETE CASCADE,
CONSTRAINT ck_gc_ronly CHECK (read_only IN (0,1)),
CONSTRAINT ck_gc_hidden CHECK (hidden IN (0,1)))`,
	`CREATE TABLE IF NOT EXISTS views_geometry_columns_auth (
view_name TEXT NOT NULL,
view_geometry TEXT NOT NULL,
hidden INTEGER NOT NULL,
CONSTRAINT pk_vwgc_auth PRIMARY KEY (view_name, view_geometry),
CONSTRAINT fk_vwgc_auth FOREIGN KEY (view_name, view_geometry) REFERENCES views_geometry_columns (view_name, view_geometry) ON DELETE CASCADE,
CONSTRAINT ck_vwgc_hidden CHECK (hidden IN (0,1)))`,
	`CREATE TABLE IF NOT EXISTS virts_geometry_columns_auth (
virt_name TEXT NOT NULL,
virt_geometry TEXT NOT NULL,
hidden INTEGER NOT NULL,
CONSTRAINT pk_vrtgc_auth PRIMARY KEY (virt_name, virt_geometry),
CONSTRAINT fk_vrtgc_auth FOREIGN KEY (virt_name, virt_geometry) REFERENCES virts_geometry_columns (virt_name, virt_geometry) ON DELETE CASCADE,
CONSTRAINT ck_vrtgc_hidden CHECK (hidden IN (0,1)))`,
	`CREATE TABLE IF NOT EXISTS sql_statements_log (
id INTEGER PRIMARY KEY AUTOINCREMENT,
time_start TIMESTAMP NOT NULL DEFAULT '0000-01-01T00:00:00.000Z',
time_end TIMESTAMP NOT NULL DEFAULT '0000-01-01T00:00:00.000Z',
user_agent TEXT NOT NULL,
sql_statement TEXT NOT NULL,
success INTEGER NOT NULL DEFAULT 0,
error_cause TEXT NOT NULL DEFAULT 'ABORTED',
CONSTRAINT sqllog_success CHECK (success IN (0,1)))`,
	`CREATE TABLE IF NOT EXISTS data_licenses (
id INTEGER PRIMARY KEY AUTOINCREMENT,
name TEXT NOT NULL UNIQUE,
url TEXT)`,
}

// metadataViews are SpatiaLite's convenience views over the tables above.
var metadataViews = []string{
	`CREATE VIEW IF NOT EXISTS geom_cols_ref_sys AS
SELECT f_table_name, f_geometry_column, geometry_type,
coord_dimension, spatial_ref_sys.srid AS srid,
auth_name, auth_srid, ref_sys_name, proj4text, srtext
FROM geometry_columns, spatial_ref_sys
WHERE geometry_columns.srid = spatial_ref_sys.srid`,
	`CREATE VIEW IF NOT EXISTS spatial_ref_sys_all AS
SELECT a.srid AS srid, a.auth_name AS auth_name, a.auth_srid AS auth_srid, a.ref_sys_name AS ref_sys_name,
b.is_geographic AS is_geographic, b.has_flipped_axes AS has_flipped_axes, b.spheroid AS spheroid, b.prime_meridian AS prime_meridian, b.datum AS datum, b.projection AS projection, b.unit AS unit,
b.axis_1_name AS axis_1_name, b.axis_1_orientation AS axis_1_orientation,
b.axis_2_name AS axis_2_name, b.axis_2_orientation AS axis_2_orientation,
a.proj4text AS proj4text, a.srtext AS srtext
FROM spatial_ref_sys AS a
LEFT JOIN spatial_ref_sys_aux AS b ON (a.srid = b.srid)`,
	`CREATE VIEW IF NOT EXISTS vector_layers AS
SELECT 'SpatialTable' AS layer_type, f_table_name AS table_name, f_geometry_column AS geometry_column, geometry_type AS geometry_type, coord_dimension AS coord_dimension, srid AS srid, spatial_index_enabled AS spatial_index_enabled
FROM geometry_columns
UNION
SELECT 'SpatialView' AS layer_type, a.view_name AS table_name, a.view_geometry AS geometry_column, b.geometry_type AS geometry_type, b.coord_dimension AS coord_dimension, b.srid AS srid, b.spatial_index_enabled AS spatial_index_enabled
FROM views_geometry_columns AS a
LEFT JOIN geometry_columns AS b ON (Upper(a.f_table_name) = Upper(b.f_table_name) AND Upper(a.f_geometry_column) = Upper(b.f_geometry_column))
UNION
SELECT 'VirtualShape' AS layer_type, virt_name AS table_name, virt_geometry AS geometry_column, geometry_type AS geometry_type, coord_dimension AS coord_dimension, srid AS srid, 0 AS spatial_index_enabled
FROM virts_geometry_columns`,
	`CREATE VIEW IF NOT EXISTS vector_layers_auth AS
SELECT 'SpatialTable' AS layer_type, f_table_name AS table_name, f_geometry_column AS geometry_column, read_only AS read_only, hidden AS hidden
FROM geometry_columns_auth
UNION
SELECT 'SpatialView' AS layer_type, a.view_name AS table_name, a.view_geometry AS geometry_column, b.read_only AS read_only, a.hidden AS hidden
FROM views_geometry_columns_auth AS a
JOIN views_geometry_columns AS b ON (Upper(a.view_name) = Upper(b.view_name) AND Upper(a.view_geometry) = Upper(b.view_geometry))
UNION
SELECT 'VirtualShape' AS layer_type, virt_name AS table_name, virt_geometry AS geometry_column, 1 AS read_only, hidden AS hidden
FROM virts_geometry_columns_auth`,
	layerUnionView("vector_layers_statistics", "last_verified, row_count, extent_min_x, extent_min_y, extent_max_x, extent_max_y", "statistics"),
	layerUnionView("vector_layers_field_infos", "ordinal, column_name, null_values, integer_values, double_values, text_values, blob_values, max_size, integer_min, integer_max, double_min, double_max", "field_infos"),
}

func statisticsTable(name, c1, c2, ck, parent string) string {
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
%s TEXT NOT NULL,
%s TEXT NOT NULL,
last_verified TIMESTAMP,
row_count INTEGER,
extent_min_x DOUBLE,
extent_min_y DOUBLE,
extent_max_x DOUBLE,
extent_max_y DOUBLE,
CONSTRAINT pk_%s PRIMARY KEY (%s, %s),
CONSTRAINT fk_%s FOREIGN KEY (%s, %s) REFERENCES %s (%s, %s) ON DELETE CASCADE)`,
		name, c1, c2, ck, c1, c2, ck, c1, c2, parent, c1, c2)
}

func fieldInfosTable(name, c1, c2, ck, parent string) string {
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
%s TEXT NOT NULL,
%s TEXT NOT NULL,
ordinal INTEGER NOT NULL,
column_name TEXT NOT NULL,
null_values INTEGER NOT NULL,
integer_values INTEGER NOT NULL,
double_values INTEGER NOT NULL,
text_values INTEGER NOT NULL,
blob_values INTEGER NOT NULL,
max_size INTEGER,
integer_min INTEGER,
integer_max INTEGER,
double_min DOUBLE,
double_max DOUBLE,
CONSTRAINT pk_%s PRIMARY KEY (%s, %s, ordinal, column_name),
CONSTRAINT fk_%s FOREIGN KEY (%s, %s) REFERENCES %s (%s, %s) ON DELETE CASCADE)`,
		name, c1, c2, ck, c1, c2, ck, c1, c2, parent, c1, c2)
}

// layerUnionView builds vector_layers_statistics and _field_infos, the union
// of the table, view and virtual-shape variants.
func layerUnionView(name, cols, suffix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE VIEW IF NOT EXISTS %s AS\n", name)
	for i, v := range []struct{ kind, c1, c2, table string }{
		{"SpatialTable", "f_table_name", "f_geometry_column", "geometry_columns_"},
		{"SpatialView", "view_name", "view_geometry", "views_geometry_columns_"},
		{"VirtualShape", "virt_name", "virt_geometry", "virts_geometry_columns_"},
	} {
		if i > 0 {
			b.WriteString("\nUNION\n")
		}
		fmt.Fprintf(&b, "SELECT '%s' AS layer_type, %s AS table_name, %s AS geometry_column, %s\nFROM %s%s",
			v.kind, v.c1, v.c2, cols, v.table, suffix)
	}
	return b.String()
}

// nameCheckTriggers lists SpatiaLite's triggers that keep the names in the
// metadata tables free of quotes and lower case: table, trigger prefix and
// the checked columns.
var nameCheckTriggers = []struct {
	table, prefix string
	cols          []string
}{
	{"geometry_columns", "geometry_columns", []string{"f_table_name", "f_geometry_column"}},
	{"geometry_columns_auth", "gcau", []string{"f_table_name", "f_geometry_column"}},
	{"geometry_columns_statistics", "gcs", []string{"f_table_name", "f_geometry_column"}},
	{"geometry_columns_field_infos", "gcfi", []string{"f_table_name", "f_geometry_column"}},
	{"geometry_columns_time", "gctm", []string{"f_table_name", "f_geometry_column"}},
	{"views_geometry_columns", "vwgc", []string{"view_name", "view_geometry", "view_rowid", "f_table_name", "f_geometry_column"}},
	{"views_geometry_columns_auth", "vwgcau", []string{"view_name", "view_geometry"}},
	{"views_geometry_columns_statistics", "vwgcs", []string{"view_name", "view_geometry"}},
	{"views_geometry_columns_field_infos", "vwgcfi", []string{"view_name", "view_geometry"}},
	{"virts_geometry_columns", "vtgc", []string{"virt_name", "virt_geometry"}},
	{"virts_geometry_columns_auth", "vtgcau", []string{"virt_name", "virt_geometry"}},
	{"virts_geometry_columns_statistics", "vtgcs", []string{"virt_name", "virt_geometry"}},
	{"virts_geometry_columns_field_infos", "vtgcfi", []string{"virt_name", "virt_geometry"}},
}

// nameTrigger returns the insert or update trigger guarding one name column.
// These use only core SQL, so they work without mod_spatialite.
func nameTrigger(table, prefix, col, op string) string {
	on := "INSERT"
	if op == "update" {
		on = fmt.Sprintf("UPDATE OF '%s'", col)
	}
	msg := fmt.Sprintf("%s on %s violates constraint: %s value must", op, table, col)
	return fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %s_%s_%s
BEFORE %s ON '%s'
FOR EACH ROW BEGIN
SELECT RAISE(ABORT,'%s not contain a single quote')
WHERE NEW.%s LIKE ('%%''%%');
SELECT RAISE(ABORT,'%s not contain a double quote')
WHERE NEW.%s LIKE ('%%"%%');
SELECT RAISE(ABORT,'%s be lower case')
WHERE NEW.%s <> lower(NEW.%s);
END`, prefix, col, op, on, table, msg, col, msg, col, msg, col, col)
}

// typeCheckTriggers guard geometry_type and coord_dimension of
// geometry_columns and virts_geometry_columns.
func typeCheckTriggers() []string {
	const types = "0,1,2,3,4,5,6,7,1000,1001,1002,1003,1004,1005,1006,1007,2000,2001,2002,2003,2004,2005,2006,2007,3000,3001,3002,3003,3004,3005,3006,3007"
	var out []string
	for _, t := range []struct{ table, prefix string }{{"geometry_columns", "geometry_columns"}, {"virts_geometry_columns", "vtgc"}} {
		for _, op := range []string{"insert", "update"} {
			on := map[string]string{"insert": "INSERT", "update": "UPDATE OF '%s'"}[op]
			for _, c := range []struct{ col, set, msg string }{
				{"geometry_type", types, "geometry_type must be one of " + types},
				{"coord_dimension", "2,3,4", "coord_dimension must be one of 2,3,4"},
			} {
				when := on
				if op == "update" {
					when = fmt.Sprintf(on, c.col)
				}
				out = append(out, fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %s_%s_%s
BEFORE %s ON '%s'
FOR EACH ROW BEGIN
SELECT RAISE(ABORT,'%s')
WHERE NOT(NEW.%s IN (%s));
END`, t.prefix, c.col, op, when, t.table, c.msg, c.col, c.set))
			}
		}
	}
	return out
}

// metadataTriggers returns every trigger InitMetadata creates.
func metadataTriggers() []string {
	var out []string
	for _, t := range nameCheckTriggers {
		for _, c := range t.cols {
			out = append(out, nameTrigger(t.table, t.prefix, c, "insert"), nameTrigger(t.table, t.prefix, c, "update"))
		}
	}
	return append(out, typeCheckTriggers()...)
}
