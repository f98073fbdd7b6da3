package lod2store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/svc-geodata/svc/adv"
)

// Label is a code with its AdV labels; De and En are "" for a code the
// AdV list does not have (the Berlin model's own function codes).
type Label struct {
	Code  string `json:"code"`
	Space string `json:"codespace,omitempty"`
	De    string `json:"label_de,omitempty"`
	En    string `json:"label_en,omitempty"`
}

// Owner are the stored attributes of a building (Part 0) or one of its
// BuildingParts (Part 1, 2, ... in file order). Absent values are nil.
type Owner struct {
	Part             int
	GMLID            string
	ParentGMLID      string
	Functions        []Label
	RoofType         *Label
	MeasuredHeightM  *float64
	Storeys          *int64
	CreationDate     *string
	MunicipalityKey  *string
	MunicipalityName *string
	SourceRoof       *string // DatenquelleDachhoehe
	SourceGround     *string // DatenquelleBodenhoehe
	SourcePosition   *string // DatenquelleLage
	FootprintDate    *string // Grundrissaktualitaet
	Addresses        []Address
	Generic          []Generic
	Invalid          []string
}

// Measures are the stored derived measures of a whole building (nil
// fields: not derivable, see citygml/measure). Areas m², heights m
// (DHHN2016), volume m³.
type Measures struct {
	FootprintAreaM2 *float64
	FootprintSource *string
	GroundZ         *float64
	EavesZ          *float64
	RidgeZ          *float64
	HeightM         *float64 // RidgeZ - GroundZ
	RoofAreaFlatM2  *float64
	RoofAreaLowM2   *float64
	RoofAreaMedM2   *float64
	RoofAreaSteepM2 *float64
	RoofAreaM2      *float64
	WallAreaM2      *float64
	VolumeM3        *float64
	VolumeReason    *string
}

// Attributes is everything stored of one building: its own attributes
// (Owners[0]), its parts' (Owners[1:]), its measures and its point (WGS84,
// the centre of its bounding box).
type Attributes struct {
	BuildingID int64
	Owners     []Owner
	Measures   Measures
	Lon, Lat   float64
}

// ownerCols are the building_attrs columns read into an Owner and
// Measures, in scan order.
const ownerCols = `part, gmlid, parent_gmlid, function, function_space, function_more, roof_type, roof_type_space,
 measured_height_m, storeys, creation_date, municipality_key, municipality_name, source_roof, source_ground, source_position,
 footprint_date, footprint_area_m2, footprint_source, ground_z, eaves_z, ridge_z, height_m, roof_area_flat_m2,
 roof_area_low_m2, roof_area_medium_m2, roof_area_steep_m2, roof_area_m2, wall_area_m2, volume_m3, volume_reason,
 lon, lat, generic, invalid`

// Attributes returns the attributes of the building with the gml:id (of
// the building or one of its parts). Errors wrap ErrNotFound, or
// ErrCorrupt for rows this package did not write.
func (s *LoD2) Attributes(ctx context.Context, gmlid string) (Attributes, error) {
	bid, err := s.buildingID(ctx, gmlid)
	if err != nil {
		return Attributes{}, err
	}
	out := Attributes{BuildingID: bid}
	rows, err := s.db.QueryContext(ctx, `SELECT `+ownerCols+` FROM building_attrs WHERE building_id = ? ORDER BY part`, bid)
	if err != nil {
		return Attributes{}, fmt.Errorf("store: attributes %q: %w", gmlid, err)
	}
	defer rows.Close()
	for rows.Next() {
		var o Owner
		var m Measures
		var lon, lat sql.NullFloat64
		if err := scanOwner(rows, &o, &m, &lon, &lat); err != nil {
			return Attributes{}, fmt.Errorf("store: attributes %q: %w", gmlid, err)
		}
		if o.Part == 0 {
			out.Measures, out.Lon, out.Lat = m, lon.Float64, lat.Float64
		}
		out.Owners = append(out.Owners, o)
	}
	if err := rows.Err(); err != nil {
		return Attributes{}, fmt.Errorf("store: attributes %q: %w", gmlid, err)
	}
	if len(out.Owners) == 0 || out.Owners[0].Part != 0 {
		return Attributes{}, fmt.Errorf("%w: building %d has no attribute row", ErrCorrupt, bid)
	}
	if err := s.readAddresses(ctx, bid, out.Owners); err != nil {
		return Attributes{}, fmt.Errorf("store: attributes %q: %w", gmlid, err)
	}
	return out, nil
}

type scanner interface{ Scan(dst ...any) error }

// scanOwner reads one building_attrs row (ownerCols).
func scanOwner(r scanner, o *Owner, m *Measures, lon, lat *sql.NullFloat64) error {
	var parent, fn, fnSpace, fnMore, roof, roofSpace, generic, invalid sql.NullString
	err := r.Scan(&o.Part, &o.GMLID, &parent, &fn, &fnSpace, &fnMore, &roof, &roofSpace,
		&o.MeasuredHeightM, &o.Storeys, &o.CreationDate, &o.MunicipalityKey, &o.MunicipalityName, &o.SourceRoof,
		&o.SourceGround, &o.SourcePosition, &o.FootprintDate, &m.FootprintAreaM2, &m.FootprintSource, &m.GroundZ,
		&m.EavesZ, &m.RidgeZ, &m.HeightM, &m.RoofAreaFlatM2, &m.RoofAreaLowM2, &m.RoofAreaMedM2, &m.RoofAreaSteepM2,
		&m.RoofAreaM2, &m.WallAreaM2, &m.VolumeM3, &m.VolumeReason, lon, lat, &generic, &invalid)
	if err != nil {
		return err
	}
	o.ParentGMLID = parent.String
	if fn.Valid {
		o.Functions = append(o.Functions, FunctionLabel(fn.String, fnSpace.String))
	}
	if fnMore.Valid {
		var more []codeJSON
		if err := json.Unmarshal([]byte(fnMore.String), &more); err != nil {
			return fmt.Errorf("%w: function_more: %v", ErrCorrupt, err)
		}
		for _, c := range more {
			o.Functions = append(o.Functions, FunctionLabel(c.Code, c.Space))
		}
	}
	if roof.Valid {
		l := RoofTypeLabel(roof.String, roofSpace.String)
		o.RoofType = &l
	}
	if generic.Valid {
		if err := json.Unmarshal([]byte(generic.String), &o.Generic); err != nil {
			return fmt.Errorf("%w: generic: %v", ErrCorrupt, err)
		}
	}
	if invalid.Valid {
		if err := json.Unmarshal([]byte(invalid.String), &o.Invalid); err != nil {
			return fmt.Errorf("%w: invalid: %v", ErrCorrupt, err)
		}
	}
	return nil
}

// readAddresses fills the addresses of the owners of building bid.
func (s *LoD2) readAddresses(ctx context.Context, bid int64, owners []Owner) error {
	rows, err := s.db.QueryContext(ctx, `SELECT part, street, house_number, postal_code, locality, country
FROM addresses WHERE building_id = ? ORDER BY part, seq`, bid)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var part int
		var a Address
		if err := rows.Scan(&part, &a.Street, &a.HouseNumber, &a.PostalCode, &a.Locality, &a.Country); err != nil {
			return err
		}
		if part < 0 || part >= len(owners) || owners[part].Part != part {
			return fmt.Errorf("%w: address of part %d of building %d", ErrCorrupt, part, bid)
		}
		owners[part].Addresses = append(owners[part].Addresses, a)
	}
	return rows.Err()
}

// FunctionLabel is a building function code with its AdV labels.
func FunctionLabel(code, space string) Label {
	l := Label{Code: code, Space: space}
	if e, ok := adv.BuildingFunction(code); ok {
		l.De, l.En = e.De, e.En
	}
	return l
}

// RoofTypeLabel is a roof type code with its AdV labels.
func RoofTypeLabel(code, space string) Label {
	l := Label{Code: code, Space: space}
	if e, ok := adv.RoofType(code); ok {
		l.De, l.En = e.De, e.En
	}
	return l
}

// BuildingAttributes calls fn with the attributes of each building of ids
// (ascending) that has any, in id order: its owners and measures as
// Attributes returns them, without addresses (the 3D Tiles and GLB
// metadata need none; Attributes reads them). fn must not keep a.
func (s *LoD2) BuildingAttributes(ctx context.Context, ids []int64, fn func(a *Attributes) error) error {
	for start := 0; start < len(ids); start += idChunk {
		if err := s.attributesRange(ctx, ids[start:min(start+idChunk, len(ids))], fn); err != nil {
			return fmt.Errorf("store: building attributes: %w", err)
		}
	}
	return nil
}

func (s *LoD2) attributesRange(ctx context.Context, ids []int64, fn func(a *Attributes) error) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, `SELECT building_id, `+ownerCols+` FROM building_attrs WHERE building_id IN (?`+
		strings.Repeat(`,?`, len(ids)-1)+`) ORDER BY building_id, part`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cur Attributes
	flush := func() error {
		if len(cur.Owners) == 0 {
			return nil
		}
		err := fn(&cur)
		cur = Attributes{}
		return err
	}
	for rows.Next() {
		var bid int64
		var o Owner
		var m Measures
		var lon, lat sql.NullFloat64
		if err := scanOwner(prefixed{rows, &bid}, &o, &m, &lon, &lat); err != nil {
			return err
		}
		if bid != cur.BuildingID {
			if err := flush(); err != nil {
				return err
			}
			cur.BuildingID = bid
		}
		if o.Part == 0 {
			cur.Measures, cur.Lon, cur.Lat = m, lon.Float64, lat.Float64
		}
		cur.Owners = append(cur.Owners, o)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

// prefixed scans a leading column into first, then the rest as asked.
type prefixed struct {
	r     scanner
	first any
}

func (p prefixed) Scan(dest ...any) error { return p.r.Scan(append([]any{p.first}, dest...)...) }

// AddressesOf returns the addresses of the buildings ids (their own, then
// their parts', each in file order), by building id; buildings without
// one are absent.
func (s *LoD2) AddressesOf(ctx context.Context, ids []int64) (map[int64][]Address, error) {
	out := map[int64][]Address{}
	for start := 0; start < len(ids); start += idChunk {
		chunk := ids[start:min(start+idChunk, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := s.db.QueryContext(ctx, `SELECT building_id, street, house_number, postal_code, locality, country
FROM addresses WHERE building_id IN (?`+strings.Repeat(`,?`, len(chunk)-1)+`) ORDER BY building_id, part, seq`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: addresses: %w", err)
		}
		for rows.Next() {
			var bid int64
			var a Address
			if err := rows.Scan(&bid, &a.Street, &a.HouseNumber, &a.PostalCode, &a.Locality, &a.Country); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: addresses: %w", err)
			}
			out[bid] = append(out[bid], a)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: addresses: %w", err)
		}
	}
	return out, nil
}
