package glb

import (
	"encoding/binary"
	"math"

	"github.com/qmuntal/gltf"
)

// Attrs are the attributes of a building written, with Options.Features,
// into the EXT_structural_metadata property table next to gmlid and
// building_id (class building, see BuildingClass). Empty strings and nil
// values are absent: they are written as the property's noData value,
// which CesiumJS reads as undefined.
type Attrs struct {
	Function        string // function code (AdV Gebaeudefunktion, or the source's own)
	FunctionLabel   string // its AdV label (German), "" when the code is not in the AdV list
	RoofType        string // roof type code (AdV Dachform)
	RoofTypeLabel   string
	HeightM         *float64 // ridge minus ground, metres
	GroundZM        *float64 // DHHN2016 metres
	RidgeZM         *float64
	EavesZM         *float64
	Storeys         *int64
	FootprintAreaM2 *float64
	RoofAreaM2      *float64
	MunicipalityKey string // Amtlicher Gemeindeschlüssel
	CreationDate    string // ISO 8601 date
}

// NoDataFloat and NoDataInt are the noData values of the numeric
// properties (no real building has them).
const (
	NoDataFloat = -9999.0
	NoDataInt   = -1
)

// metaProp is one property of the building class: its schema and how a
// building's value is read.
type metaProp struct {
	name, desc string
	str        func(a *Attrs) string
	f64        func(a *Attrs) *float64
	i32        func(a *Attrs) *int64
}

var metaProps = []metaProp{
	{name: "function", desc: "building function code (AdV Gebaeudefunktion, or the source's own code)", str: func(a *Attrs) string { return a.Function }},
	{name: "function_label", desc: "AdV label of the function code (German)", str: func(a *Attrs) string { return a.FunctionLabel }},
	{name: "roof_type", desc: "roof type code (AdV Dachform)", str: func(a *Attrs) string { return a.RoofType }},
	{name: "roof_type_label", desc: "AdV label of the roof type code (German)", str: func(a *Attrs) string { return a.RoofTypeLabel }},
	{name: "height_m", desc: "height of the building: ridge minus ground, metres", f64: func(a *Attrs) *float64 { return a.HeightM }},
	{name: "ground_z_m", desc: "ground height, metres above DHHN2016", f64: func(a *Attrs) *float64 { return a.GroundZM }},
	{name: "ridge_z_m", desc: "ridge (highest roof point) height, metres above DHHN2016", f64: func(a *Attrs) *float64 { return a.RidgeZM }},
	{name: "eaves_z_m", desc: "eaves (lowest roof edge) height, metres above DHHN2016", f64: func(a *Attrs) *float64 { return a.EavesZM }},
	{name: "storeys", desc: "storeys above ground", i32: func(a *Attrs) *int64 { return a.Storeys }},
	{name: "footprint_area_m2", desc: "footprint area, square metres", f64: func(a *Attrs) *float64 { return a.FootprintAreaM2 }},
	{name: "roof_area_m2", desc: "roof surface area, square metres", f64: func(a *Attrs) *float64 { return a.RoofAreaM2 }},
	{name: "municipality_key", desc: "Amtlicher Gemeindeschluessel of the municipality", str: func(a *Attrs) string { return a.MunicipalityKey }},
	{name: "creation_date", desc: "creation date of the building's record (ISO 8601)", str: func(a *Attrs) string { return a.CreationDate }},
}

// BuildingClass returns the EXT_structural_metadata schema of the building
// feature tables (id svc_buildings, class building), as the leaf glbs
// carry it; a tileset declares the same schema.
func BuildingClass() map[string]any {
	props := map[string]any{
		"gmlid":       map[string]any{"type": "STRING", "description": "gml:id of the building", "required": true},
		"building_id": map[string]any{"type": "SCALAR", "componentType": "INT64", "description": "building_id of the svc API", "required": true},
	}
	for _, p := range metaProps {
		switch {
		case p.str != nil:
			props[p.name] = map[string]any{"type": "STRING", "description": p.desc, "noData": ""}
		case p.f64 != nil:
			props[p.name] = map[string]any{"type": "SCALAR", "componentType": "FLOAT64", "description": p.desc, "noData": NoDataFloat}
		default:
			props[p.name] = map[string]any{"type": "SCALAR", "componentType": "INT32", "description": p.desc, "noData": NoDataInt}
		}
	}
	return map[string]any{"id": "svc_buildings", "classes": map[string]any{"building": map[string]any{
		"name": "LoD2 building", "description": "a LoD2 building with its attributes and derived measures", "properties": props}}}
}

// stringColumn writes strings as a STRING property's values and offsets;
// nil when every string is empty: the table then omits the property (a
// buffer view may not be empty, and the values of the column's offsets may
// not point past them), which a reader takes as noData for every feature.
func (d *doc) stringColumn(n int, at func(i int) string) map[string]any {
	empty := true
	for i := range n {
		if at(i) != "" {
			empty = false
			break
		}
	}
	if empty {
		return nil
	}
	var strs []byte
	offs := make([]byte, 0, 4*(n+1))
	for i := range n {
		offs = binary.LittleEndian.AppendUint32(offs, uint32(len(strs)))
		strs = append(strs, at(i)...)
	}
	offs = binary.LittleEndian.AppendUint32(offs, uint32(len(strs)))
	sv := d.view(strs, gltf.TargetNone, 8)
	ov := d.view(offs, gltf.TargetNone, 8)
	return map[string]any{"values": sv, "stringOffsets": ov, "stringOffsetType": "UINT32"}
}

// metadata writes the EXT_structural_metadata schema and the property table
// of the buildings (index = feature id): gmlid, building_id and Attrs.
func (b *Builder) metadata(d *doc) {
	n := len(b.ids)
	attrs := func(i int) *Attrs {
		if b.attrs[i] == nil {
			return &Attrs{}
		}
		return b.attrs[i]
	}
	bids := make([]byte, 0, 8*n)
	for _, v := range b.bids {
		bids = binary.LittleEndian.AppendUint64(bids, uint64(v))
	}
	cols := map[string]any{
		"gmlid":       d.stringColumn(n, func(i int) string { return b.ids[i] }),
		"building_id": map[string]any{"values": d.view(bids, gltf.TargetNone, 8)},
	}
	for _, p := range metaProps {
		switch {
		case p.str != nil:
			if c := d.stringColumn(n, func(i int) string { return p.str(attrs(i)) }); c != nil {
				cols[p.name] = c
			}
		case p.f64 != nil:
			v := make([]byte, 0, 8*n)
			for i := range n {
				x := NoDataFloat
				if f := p.f64(attrs(i)); f != nil && !math.IsNaN(*f) && !math.IsInf(*f, 0) {
					x = *f
				}
				v = binary.LittleEndian.AppendUint64(v, math.Float64bits(x))
			}
			cols[p.name] = map[string]any{"values": d.view(v, gltf.TargetNone, 8)}
		default:
			v := make([]byte, 0, 4*n)
			for i := range n {
				x := int32(NoDataInt)
				if s := p.i32(attrs(i)); s != nil && *s >= 0 && *s <= math.MaxInt32 {
					x = int32(*s)
				}
				v = binary.LittleEndian.AppendUint32(v, uint32(x))
			}
			cols[p.name] = map[string]any{"values": d.view(v, gltf.TargetNone, 8)}
		}
	}
	d.ExtensionsUsed = append(d.ExtensionsUsed, extFeatures, extMetadata)
	meta := map[string]any{
		"schema":         BuildingClass(),
		"propertyTables": []any{map[string]any{"class": "building", "count": n, "properties": cols}},
	}
	if b.o.Solar {
		meta["schema"], meta["propertyAttributes"] = SolarSchema(), solarPropertyAttributes()
	}
	d.Extensions = gltf.Extensions{extMetadata: meta}
}
