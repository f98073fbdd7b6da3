package lod2store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/svc-geodata/svc/geo"
)

// SchemaVersion is the LoD2 pack schema this package writes and reads
// (svc_metadata key "lod2_schema"). Version 2 added the building
// attributes, addresses and their search keys (attrs.go); a pack without
// the key is version 1 and refused with ErrSchema.
const SchemaVersion = 2

// ErrSchema reports a pack written by an older importer, without the
// tables this package reads; the BL is to be imported again.
var ErrSchema = errors.New("store: LoD2 pack of an older schema")

// attrSchema holds the attributes of every building (part 0) and of each
// of its BuildingParts (part 1, 2, ... in file order), their addresses and
// the buildings' WGS84 boxes (an R*Tree). Rows are keyed by building id,
// so the source_files id ranges address them like the surfaces.
const attrSchema = `
CREATE TABLE building_attrs (
  building_id         INTEGER NOT NULL,
  part                INTEGER NOT NULL,
  gmlid               TEXT NOT NULL,
  parent_gmlid        TEXT,
  function            TEXT,
  function_space      TEXT,
  function_more       TEXT,
  roof_type           TEXT,
  roof_type_space     TEXT,
  measured_height_m   REAL,
  storeys             INTEGER,
  creation_date       TEXT,
  municipality_key    TEXT,
  municipality_name   TEXT,
  source_roof         TEXT,
  source_ground       TEXT,
  source_position     TEXT,
  footprint_date      TEXT,
  footprint_area_m2   REAL,
  footprint_source    TEXT,
  ground_z            REAL,
  eaves_z             REAL,
  ridge_z             REAL,
  height_m            REAL,
  roof_area_flat_m2   REAL,
  roof_area_low_m2    REAL,
  roof_area_medium_m2 REAL,
  roof_area_steep_m2  REAL,
  roof_area_m2        REAL,
  wall_area_m2        REAL,
  volume_m3           REAL,
  volume_reason       TEXT,
  lon                 REAL,
  lat                 REAL,
  generic             TEXT,
  invalid             TEXT,
  PRIMARY KEY (building_id, part)
) WITHOUT ROWID;
CREATE TABLE addresses (
  building_id  INTEGER NOT NULL,
  part         INTEGER NOT NULL,
  seq          INTEGER NOT NULL,
  street       TEXT NOT NULL,
  house_number TEXT NOT NULL,
  postal_code  TEXT NOT NULL,
  locality     TEXT NOT NULL,
  country      TEXT NOT NULL,
  street_key   TEXT NOT NULL,
  number_key   TEXT NOT NULL,
  locality_key TEXT NOT NULL,
  PRIMARY KEY (building_id, part, seq)
) WITHOUT ROWID;
CREATE INDEX addresses_street ON addresses(street_key, number_key);
CREATE INDEX addresses_postcode ON addresses(postal_code);
CREATE INDEX addresses_place ON addresses(street_key, locality_key, number_key);
CREATE VIRTUAL TABLE building_bbox USING rtree(building_id, min_lon, max_lon, min_lat, max_lat);
`

// Code is a coded value (bldg:function, bldg:roofType): the code as
// written and its codeSpace ("" when none).
type Code struct {
	Value, Space string
}

// Generic is one CityGML generic attribute: name, kind (the element name,
// "stringAttribute", "intAttribute", ...), value as written and, for a
// measureAttribute, its uom.
type Generic struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
	UOM   string `json:"uom,omitempty"`
}

// Address is one postal address of a building or part, as written.
type Address struct {
	Street, HouseNumber, PostalCode, Locality, Country string
}

// AttrsInput are the attributes of a Building or BuildingPart as the
// importer hands them over. Absent numbers are nil.
type AttrsInput struct {
	GMLID, ParentID string // ParentID "" for the building itself
	Functions       []Code
	RoofType        Code
	MeasuredHeightM *float64
	Storeys         *int64
	CreationDate    string
	Addresses       []Address
	Generic         []Generic
	Invalid         []string
}

// MeasuresInput are the derived measures of a whole building (see
// citygml/measure): areas in m², heights in m (DHHN2016), volume in m³.
// NaN heights are stored as NULL; VolumeM3 is NULL when VolumeReason is
// not "".
type MeasuresInput struct {
	FootprintAreaM2             float64
	FootprintSource             string
	GroundZ, EavesZ, RidgeZ     float64
	RoofAreaM2                  [4]float64 // flat, low, medium, steep
	RoofAreaTotalM2, WallAreaM2 float64
	VolumeM3                    float64
	VolumeReason                string
}

// The generic attributes of LoD2-DE that get columns of their own.
const (
	genMunicipalityKey  = "Gemeindeschluessel"
	genMunicipalityName = "Gemeindename"
	genSourceRoof       = "DatenquelleDachhoehe"
	genSourceGround     = "DatenquelleBodenhoehe"
	genSourcePosition   = "DatenquelleLage"
	genFootprintDate    = "Grundrissaktualitaet"
)

// preparedAttrs are the attribute rows of one building, encoded by
// Prepare (in the workers) so that the writer only inserts them.
type preparedAttrs struct {
	rows  [][]any // building_attrs values after building_id, one per owner
	addrs [][]any // addresses values after building_id
}

// prepareAttrs encodes the attribute and address rows of a building: in
// owners, the building first, then its parts; m may be nil (no measures).
func prepareAttrs(owners []AttrsInput, m *MeasuresInput) (*preparedAttrs, error) {
	if len(owners) == 0 {
		return nil, nil
	}
	out := &preparedAttrs{rows: make([][]any, 0, len(owners))}
	for part, o := range owners {
		row, err := attrRow(part, o)
		if err != nil {
			return nil, fmt.Errorf("%w: attributes of %s: %v", ErrInput, o.GMLID, err)
		}
		if part == 0 && m != nil {
			measureCols(row, m)
		}
		out.rows = append(out.rows, row)
		for seq, a := range o.Addresses {
			out.addrs = append(out.addrs, []any{part, seq, a.Street, a.HouseNumber, a.PostalCode, a.Locality, a.Country,
				NormStreet(a.Street), NormNumber(a.HouseNumber), NormText(a.Locality)})
		}
	}
	return out, nil
}

// attrCols is the number of building_attrs columns after building_id.
const attrCols = 35

// attrRow is the building_attrs row of one owner, without building_id;
// the measure, point columns stay NULL.
func attrRow(part int, o AttrsInput) ([]any, error) {
	row := make([]any, attrCols)
	row[0], row[1] = part, o.GMLID
	row[2] = nullStr(o.ParentID)
	if len(o.Functions) > 0 {
		row[3], row[4] = o.Functions[0].Value, nullStr(o.Functions[0].Space)
		if len(o.Functions) > 1 {
			more, err := json.Marshal(codesJSON(o.Functions[1:]))
			if err != nil {
				return nil, err
			}
			row[5] = string(more)
		}
	}
	if o.RoofType.Value != "" {
		row[6], row[7] = o.RoofType.Value, nullStr(o.RoofType.Space)
	}
	if o.MeasuredHeightM != nil {
		row[8] = *o.MeasuredHeightM
	}
	if o.Storeys != nil {
		row[9] = *o.Storeys
	}
	row[10] = nullStr(o.CreationDate)
	for i, name := range []string{genMunicipalityKey, genMunicipalityName, genSourceRoof, genSourceGround, genSourcePosition, genFootprintDate} {
		for _, g := range o.Generic {
			if g.Name == name {
				row[11+i] = g.Value
				break
			}
		}
	}
	if len(o.Generic) > 0 {
		b, err := json.Marshal(o.Generic)
		if err != nil {
			return nil, err
		}
		row[33] = string(b)
	}
	if len(o.Invalid) > 0 {
		b, err := json.Marshal(o.Invalid)
		if err != nil {
			return nil, err
		}
		row[34] = string(b)
	}
	return row, nil
}

// measureCols sets the measure columns of a building's row.
func measureCols(row []any, m *MeasuresInput) {
	row[17] = finite(m.FootprintAreaM2)
	row[18] = nullStr(m.FootprintSource)
	row[19], row[20], row[21] = finite(m.GroundZ), finite(m.EavesZ), finite(m.RidgeZ)
	if h := m.RidgeZ - m.GroundZ; !math.IsNaN(h) && !math.IsInf(h, 0) {
		row[22] = h
	}
	for i, a := range m.RoofAreaM2 {
		row[23+i] = finite(a)
	}
	row[27], row[28] = finite(m.RoofAreaTotalM2), finite(m.WallAreaM2)
	if m.VolumeReason == "" {
		row[29] = finite(m.VolumeM3)
	} else {
		row[30] = m.VolumeReason
	}
}

type codeJSON struct {
	Code  string `json:"code"`
	Space string `json:"codespace,omitempty"`
}

func codesJSON(cs []Code) []codeJSON {
	out := make([]codeJSON, len(cs))
	for i, c := range cs {
		out[i] = codeJSON{c.Value, c.Space}
	}
	return out
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// attrStmts are the writer's prepared inserts of the attribute tables.
type attrStmts struct{ attrs, addr, bbox *sql.Stmt }

func (a *attrStmts) prepare(ctx context.Context, tx *sql.Tx) error {
	ph := "?" + repeatStr(", ?", attrCols)
	var err error
	if a.attrs, err = tx.PrepareContext(ctx, `INSERT INTO building_attrs VALUES (`+ph+`)`); err != nil {
		return err
	}
	if a.addr, err = tx.PrepareContext(ctx, `INSERT INTO addresses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		return err
	}
	a.bbox, err = tx.PrepareContext(ctx, `INSERT INTO building_bbox VALUES (?, ?, ?, ?, ?)`)
	return err
}

func repeatStr(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

// writeAttrs inserts the attribute rows of building bid, whose surfaces
// span bb (projected): its point (the centre of bb) and WGS84 box go on
// the building's row and into building_bbox. A building without
// attribute input gets a row of its own with only the point.
func (w *LoD2Writer) writeAttrs(ctx context.Context, bid int64, p *Prepared, bb box) error {
	a := p.attrs
	if a == nil {
		a = &preparedAttrs{rows: [][]any{append([]any{0, p.GMLID}, make([]any, attrCols-2)...)}}
	}
	minLon, minLat, maxLon, maxLat := boxWGS84(w.zone, bb)
	lon, lat := geo.FromUTM(w.zone, (bb.minX+bb.maxX)/2, (bb.minY+bb.maxY)/2)
	a.rows[0][31], a.rows[0][32] = round8(lon), round8(lat)
	for _, row := range a.rows {
		if _, err := w.attrStmts.attrs.ExecContext(ctx, append([]any{bid}, row...)...); err != nil {
			return fmt.Errorf("store: building %s attributes: %w", p.GMLID, err)
		}
	}
	for _, row := range a.addrs {
		if _, err := w.attrStmts.addr.ExecContext(ctx, append([]any{bid}, row...)...); err != nil {
			return fmt.Errorf("store: building %s address: %w", p.GMLID, err)
		}
	}
	if _, err := w.attrStmts.bbox.ExecContext(ctx, bid, minLon, maxLon, minLat, maxLat); err != nil {
		return fmt.Errorf("store: building %s box: %w", p.GMLID, err)
	}
	return nil
}

// round8 rounds a degree value to 8 decimals (about 1 mm), as the GeoJSON
// coordinates are.
func round8(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 8, 64), 64)
	return f
}

// boxWGS84 is the lon/lat box of the corners of a projected box (a
// building is small: the curvature of its edges in lon/lat is below a
// millimetre).
func boxWGS84(z geo.Zone, b box) (minLon, minLat, maxLon, maxLat float64) {
	minLon, minLat, maxLon, maxLat = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{b.minX, b.minY}, {b.maxX, b.minY}, {b.minX, b.maxY}, {b.maxX, b.maxY}} {
		lon, lat := geo.FromUTM(z, c[0], c[1])
		minLon, minLat = math.Min(minLon, lon), math.Min(minLat, lat)
		maxLon, maxLat = math.Max(maxLon, lon), math.Max(maxLat, lat)
	}
	return
}

// attrTables are the tables keyed by building id, for copying and
// deleting the rows of a source file.
var attrTables = []string{"building_attrs", "addresses"}

// copyAttrs copies the attribute rows of the previous pack's buildings
// b0..b1 with their ids moved by offB (CopySource).
func (w *LoD2Writer) copyAttrs(ctx context.Context, b0, b1, offB int64) error {
	for _, q := range []string{
		`INSERT INTO main.building_attrs SELECT building_id + ?3, part, gmlid, parent_gmlid, function, function_space, function_more,
 roof_type, roof_type_space, measured_height_m, storeys, creation_date, municipality_key, municipality_name, source_roof,
 source_ground, source_position, footprint_date, footprint_area_m2, footprint_source, ground_z, eaves_z, ridge_z, height_m,
 roof_area_flat_m2, roof_area_low_m2, roof_area_medium_m2, roof_area_steep_m2, roof_area_m2, wall_area_m2, volume_m3,
 volume_reason, lon, lat, generic, invalid
 FROM prev.building_attrs WHERE building_id BETWEEN ?1 AND ?2 ORDER BY building_id, part`,
		`INSERT INTO main.addresses SELECT building_id + ?3, part, seq, street, house_number, postal_code, locality, country,
 street_key, number_key, locality_key FROM prev.addresses WHERE building_id BETWEEN ?1 AND ?2 ORDER BY building_id, part, seq`,
		`INSERT INTO main.building_bbox SELECT building_id + ?3, min_lon, max_lon, min_lat, max_lat
 FROM prev.building_bbox WHERE building_id BETWEEN ?1 AND ?2 ORDER BY building_id`,
	} {
		if _, err := w.tx.ExecContext(ctx, q, b0, b1, offB); err != nil {
			return err
		}
	}
	return nil
}

// schemaOf reads the schema version of a pack's svc_metadata: 1 when it
// has none.
func schemaOf(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v string
	err := db.QueryRowContext(ctx, `SELECT value FROM svc_metadata WHERE key = 'lod2_schema'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: metadata lod2_schema %q", ErrCorrupt, v)
	}
	return n, nil
}

// CheckSchema reads the schema version of the LoD2 file at path and
// returns an error wrapping ErrSchema, in one line saying to import the
// BL again, when it is not SchemaVersion.
func CheckSchema(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer db.Close()
	v, err := schemaOf(ctx, db)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	if v != SchemaVersion {
		return fmt.Errorf("%w %d (this svc reads %d): import the BL again with `svc import lod2`", ErrSchema, v, SchemaVersion)
	}
	return nil
}
