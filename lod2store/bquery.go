package lod2store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/svc-geodata/svc/adv"
	"github.com/svc-geodata/svc/geo"
)

// Queryable is one attribute a building query may filter and sort on: its
// name in the API (the CQL2 property name), the building_attrs column, the
// JSON Schema type ("string", "number", "integer"; Format "date" for
// dates), its unit and, for coded values, the code list.
type Queryable struct {
	Name   string
	Column string
	Type   string
	Format string
	Unit   string
	Desc   string
	Enum   []adv.Entry
}

// Queryables lists the attributes of whole buildings a query may use, in
// a fixed order. The enums are the AdV code lists: a pack may hold codes
// outside them (Berlin's own function codes), which a filter still
// matches.
func Queryables() []Queryable {
	return []Queryable{
		{Name: "gmlid", Column: "gmlid", Type: "string", Desc: "gml:id of the building"},
		{Name: "function", Column: "function", Type: "string", Desc: "building function code (bldg:function, the first when several)", Enum: adv.BuildingFunctions()},
		{Name: "roof_type", Column: "roof_type", Type: "string", Desc: "roof type code (bldg:roofType)", Enum: adv.RoofTypes()},
		{Name: "measured_height_m", Column: "measured_height_m", Type: "number", Unit: "m", Desc: "bldg:measuredHeight"},
		{Name: "storeys", Column: "storeys", Type: "integer", Desc: "bldg:storeysAboveGround"},
		{Name: "creation_date", Column: "creation_date", Type: "string", Format: "date", Desc: "core:creationDate"},
		{Name: "municipality_key", Column: "municipality_key", Type: "string", Desc: "Gemeindeschluessel (AGS)"},
		{Name: "municipality_name", Column: "municipality_name", Type: "string", Desc: "Gemeindename where the file gives it"},
		{Name: "source_roof", Column: "source_roof", Type: "string", Desc: "DatenquelleDachhoehe"},
		{Name: "source_ground", Column: "source_ground", Type: "string", Desc: "DatenquelleBodenhoehe"},
		{Name: "source_position", Column: "source_position", Type: "string", Desc: "DatenquelleLage"},
		{Name: "footprint_date", Column: "footprint_date", Type: "string", Desc: "Grundrissaktualitaet"},
		{Name: "footprint_area_m2", Column: "footprint_area_m2", Type: "number", Unit: "m2", Desc: "horizontal footprint area"},
		{Name: "ground_z_m", Column: "ground_z", Type: "number", Unit: "m", Desc: "lowest ground height (DHHN2016)"},
		{Name: "eaves_z_m", Column: "eaves_z", Type: "number", Unit: "m", Desc: "lowest roof height (DHHN2016)"},
		{Name: "ridge_z_m", Column: "ridge_z", Type: "number", Unit: "m", Desc: "highest roof height (DHHN2016)"},
		{Name: "height_m", Column: "height_m", Type: "number", Unit: "m", Desc: "ridge_z_m - ground_z_m"},
		{Name: "roof_area_flat_m2", Column: "roof_area_flat_m2", Type: "number", Unit: "m2", Desc: "roof area tilted below 10°"},
		{Name: "roof_area_low_m2", Column: "roof_area_low_m2", Type: "number", Unit: "m2", Desc: "roof area tilted 10° to below 30°"},
		{Name: "roof_area_medium_m2", Column: "roof_area_medium_m2", Type: "number", Unit: "m2", Desc: "roof area tilted 30° to below 45°"},
		{Name: "roof_area_steep_m2", Column: "roof_area_steep_m2", Type: "number", Unit: "m2", Desc: "roof area tilted 45° and more"},
		{Name: "roof_area_m2", Column: "roof_area_m2", Type: "number", Unit: "m2", Desc: "roof area, all tilts"},
		{Name: "wall_area_m2", Column: "wall_area_m2", Type: "number", Unit: "m2", Desc: "wall area"},
		{Name: "volume_m3", Column: "volume_m3", Type: "number", Unit: "m3", Desc: "enclosed volume; null when a shell is not closed"},
	}
}

// queryableColumn returns the column of queryable name.
func queryableColumn(name string) (string, bool) {
	for _, q := range Queryables() {
		if q.Name == name {
			return q.Column, true
		}
	}
	return "", false
}

// Sort is one ORDER BY key of a building query: a Queryable name.
type Sort struct {
	Name string
	Desc bool
}

// BuildingQuery selects whole buildings of a file.
type BuildingQuery struct {
	// Where is an SQL boolean expression over the Queryables' columns
	// (unqualified), with ? placeholders bound to Args, as the cql2
	// package translates a filter; "" for every building. It is trusted
	// SQL: never a client's text.
	Where string
	Args  []any
	// BBox, when set, keeps the buildings whose WGS84 bounding box meets
	// it (a prefilter on the building_bbox R*Tree; the exact test is the
	// caller's).
	BBox *geo.BBox
	// Sort orders the buildings (then by building id, which alone is the
	// default order). SQLite orders NULL first ascending and last
	// descending.
	Sort []Sort
	// After is the cursor of the previous page (BuildingPage.Next); "" for
	// the first page.
	After string
	Limit int
}

// BuildingRow is one building a query found: its id, its attributes (no
// addresses) and measures.
type BuildingRow struct {
	BL         string // set by QueryBuildingsIn
	BuildingID int64
	Owner      Owner
	Measures   Measures
	Lon, Lat   float64
	keys       []any // the sort values and building id, for cursors and merging
}

// BuildingPage is one page of a building query; Next is "" on the last.
type BuildingPage struct {
	Rows []BuildingRow
	Next string
}

// QueryBuildings runs q over the file's buildings. The cursor is keyset:
// the sort values and building id of the last row, so a page costs the
// same wherever it starts. Errors wrap ErrInput for an unknown sort name
// or a bad limit, ErrCursor for a cursor of another query shape.
func (s *LoD2) QueryBuildings(ctx context.Context, q BuildingQuery) (BuildingPage, error) {
	sqlText, args, nkeys, err := buildingSQL(q)
	if err != nil {
		return BuildingPage{}, err
	}
	rows, err := s.db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return BuildingPage{}, fmt.Errorf("store: query buildings: %w", err)
	}
	defer rows.Close()
	var page BuildingPage
	for rows.Next() {
		if len(page.Rows) == q.Limit {
			page.Next = encodeKeyset(page.Rows[len(page.Rows)-1].keys)
			break
		}
		var r BuildingRow
		var lon, lat sql.NullFloat64
		r.keys = make([]any, nkeys)
		dst := make([]any, nkeys)
		for i := range r.keys {
			dst[i] = &r.keys[i]
		}
		if err := scanOwner(multiScan{rows, dst}, &r.Owner, &r.Measures, &lon, &lat); err != nil {
			return BuildingPage{}, fmt.Errorf("store: query buildings: %w", err)
		}
		r.BuildingID, _ = r.keys[nkeys-1].(int64)
		r.Lon, r.Lat = lon.Float64, lat.Float64
		page.Rows = append(page.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return BuildingPage{}, fmt.Errorf("store: query buildings: %w", err)
	}
	return page, nil
}

// buildingSQL is the SELECT of q (asking one row more than the limit, to
// know whether a page follows), its arguments and the number of keys
// (sort values and building id) each row ends with.
func buildingSQL(q BuildingQuery) (string, []any, int, error) {
	if q.Limit <= 0 {
		return "", nil, 0, fmt.Errorf("%w: limit %d", ErrInput, q.Limit)
	}
	cols := make([]string, 0, len(q.Sort)+1)
	order := make([]string, 0, len(q.Sort)+1)
	for _, st := range q.Sort {
		c, ok := queryableColumn(st.Name)
		if !ok {
			return "", nil, 0, fmt.Errorf("%w: sort by %q: not a queryable", ErrInput, st.Name)
		}
		cols = append(cols, "a."+c)
		order = append(order, "a."+c+map[bool]string{true: " DESC", false: ""}[st.Desc])
	}
	cols = append(cols, "a.building_id")
	order = append(order, "a.building_id")
	where := []string{"a.part = 0"}
	var args []any
	if q.Where != "" {
		where = append(where, "("+q.Where+")")
		args = append(args, q.Args...)
	}
	if q.BBox != nil {
		where = append(where, `a.building_id IN (SELECT building_id FROM building_bbox WHERE max_lon >= ? AND min_lon <= ? AND max_lat >= ? AND min_lat <= ?)`)
		args = append(args, q.BBox.MinLon, q.BBox.MaxLon, q.BBox.MinLat, q.BBox.MaxLat)
	}
	if q.After != "" {
		vals, err := decodeKeyset(q.After, len(cols))
		if err != nil {
			return "", nil, 0, err
		}
		cond, cargs := keysetAfter(cols, q.Sort, vals)
		where = append(where, cond)
		args = append(args, cargs...)
	}
	sqlText := `SELECT ` + prefixCols(ownerCols) + `, ` + strings.Join(cols, ", ") + ` FROM building_attrs a WHERE ` +
		strings.Join(where, " AND ") + ` ORDER BY ` + strings.Join(order, ", ") + ` LIMIT ?`
	return sqlText, append(args, q.Limit+1), len(cols), nil
}

// multiScan scans a row into an Owner's columns followed by extra ones.
type multiScan struct {
	rows  *sql.Rows
	extra []any
}

func (m multiScan) Scan(dst ...any) error { return m.rows.Scan(append(dst, m.extra...)...) }

// prefixCols qualifies the column list cols with "a.".
func prefixCols(cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = "a." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// keysetAfter is the condition "the row's keys come after vals" in the
// order of cols (the sort columns, then building_id ascending), NULLs
// ordered as SQLite does (first ascending, last descending):
// OR over i of (keys before i equal AND key i after).
func keysetAfter(cols []string, sorts []Sort, vals []any) (string, []any) {
	var ors []string
	var args []any
	for i := range cols {
		var ands []string
		for j := range i {
			ands = append(ands, cols[j]+" IS ?")
			args = append(args, vals[j])
		}
		desc := i < len(sorts) && sorts[i].Desc
		switch {
		case vals[i] == nil && !desc:
			ands = append(ands, cols[i]+" IS NOT NULL")
		case vals[i] == nil && desc:
			ands = append(ands, "0") // nothing follows NULL descending
		case desc:
			ands = append(ands, "("+cols[i]+" < ? OR "+cols[i]+" IS NULL)")
			args = append(args, vals[i])
		default:
			ands = append(ands, cols[i]+" > ?")
			args = append(args, vals[i])
		}
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	return "(" + strings.Join(ors, " OR ") + ")", args
}

// encodeKeyset and decodeKeyset make the opaque cursor: the JSON array of
// the last row's keys, base64url. Numbers come back as float64 (exact for
// the int64 building ids SQLite stores below 2^53) and compare in SQLite
// as the stored values.
func encodeKeyset(vals []any) string {
	b, _ := json.Marshal(vals)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeKeyset(c string, n int) ([]any, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64url", ErrCursor)
	}
	var vals []any
	if err := json.Unmarshal(b, &vals); err != nil || len(vals) != n {
		return nil, fmt.Errorf("%w: not a cursor of this query", ErrCursor)
	}
	for i, v := range vals {
		switch v.(type) {
		case nil, string, float64:
		default:
			return nil, fmt.Errorf("%w: key %d", ErrCursor, i)
		}
	}
	if _, ok := vals[n-1].(float64); !ok {
		return nil, fmt.Errorf("%w: no building id", ErrCursor)
	}
	return vals, nil
}
