package buildings

import (
	"context"

	"github.com/svc-geodata/svc/lod2store"
)

// Attributes returns the stored attributes of building (or building part)
// gmlid and the source that has it. Errors as Building.
func Attributes(ctx context.Context, srcs []lod2store.Source, gmlid string) (lod2store.Source, lod2store.Attributes, error) {
	var (
		at  lod2store.Source
		out lod2store.Attributes
	)
	err := find(srcs, gmlid, func(src lod2store.Source) error {
		a, err := src.LoD2.Attributes(ctx, gmlid)
		at, out = src, a
		return err
	})
	return at, out, err
}

// AttributesDoc is the body of GET /v1/buildings/{gmlid}/attributes.
type AttributesDoc struct {
	GMLID    string      `json:"gmlid"`
	BL       string      `json:"bl"`
	Point    PointDoc    `json:"point"`
	Building OwnerDoc    `json:"building"`
	Parts    []OwnerDoc  `json:"parts"`
	Measures MeasuresDoc `json:"measures"`
}

// PointDoc is a GeoJSON Point (WGS84 lon, lat).
type PointDoc struct {
	Type        string     `json:"type"`
	Coordinates [2]float64 `json:"coordinates"`
}

// OwnerDoc are the attributes of a building or part as answered: absent
// values null, lists empty.
type OwnerDoc struct {
	GMLID            string              `json:"gmlid"`
	ParentGMLID      *string             `json:"parent_gmlid,omitempty"`
	Function         []lod2store.Label   `json:"function"`
	RoofType         *lod2store.Label    `json:"roof_type"`
	MeasuredHeightM  *float64            `json:"measured_height_m"`
	Storeys          *int64              `json:"storeys"`
	CreationDate     *string             `json:"creation_date"`
	MunicipalityKey  *string             `json:"municipality_key"`
	MunicipalityName *string             `json:"municipality_name"`
	SourceRoof       *string             `json:"source_roof"`
	SourceGround     *string             `json:"source_ground"`
	SourcePosition   *string             `json:"source_position"`
	FootprintDate    *string             `json:"footprint_date"`
	Addresses        []AddressDoc        `json:"addresses"`
	Generic          []lod2store.Generic `json:"generic"`
	Invalid          []string            `json:"invalid,omitempty"`
}

// AddressDoc is one address as stored ("" for an element the file lacks).
type AddressDoc struct {
	Street      string `json:"street"`
	HouseNumber string `json:"house_number"`
	PostalCode  string `json:"postal_code"`
	Locality    string `json:"locality"`
	Country     string `json:"country"`
}

// MeasuresDoc are the derived measures, units in the names.
type MeasuresDoc struct {
	FootprintAreaM2  *float64 `json:"footprint_area_m2"`
	FootprintSource  *string  `json:"footprint_source"`
	GroundZM         *float64 `json:"ground_z_m"`
	EavesZM          *float64 `json:"eaves_z_m"`
	RidgeZM          *float64 `json:"ridge_z_m"`
	HeightM          *float64 `json:"height_m"`
	RoofAreaFlatM2   *float64 `json:"roof_area_flat_m2"`
	RoofAreaLowM2    *float64 `json:"roof_area_low_m2"`
	RoofAreaMediumM2 *float64 `json:"roof_area_medium_m2"`
	RoofAreaSteepM2  *float64 `json:"roof_area_steep_m2"`
	RoofAreaM2       *float64 `json:"roof_area_m2"`
	WallAreaM2       *float64 `json:"wall_area_m2"`
	VolumeM3         *float64 `json:"volume_m3"`
	VolumeReason     *string  `json:"volume_reason"`
	HeightSystem     string   `json:"height_system"`
}

// AttributesBody is the answer for a's building in BL code.
func AttributesBody(code string, a lod2store.Attributes) AttributesDoc {
	d := AttributesDoc{BL: code, Point: PointDoc{"Point", [2]float64{a.Lon, a.Lat}}, Parts: []OwnerDoc{}}
	for i, o := range a.Owners {
		od := ownerDoc(o)
		if i == 0 {
			d.GMLID, d.Building = o.GMLID, od
			continue
		}
		d.Parts = append(d.Parts, od)
	}
	m := a.Measures
	d.Measures = MeasuresDoc{FootprintAreaM2: r3(m.FootprintAreaM2), FootprintSource: m.FootprintSource, GroundZM: r3(m.GroundZ),
		EavesZM: r3(m.EavesZ), RidgeZM: r3(m.RidgeZ), HeightM: r3(m.HeightM), RoofAreaFlatM2: r3(m.RoofAreaFlatM2),
		RoofAreaLowM2: r3(m.RoofAreaLowM2), RoofAreaMediumM2: r3(m.RoofAreaMedM2), RoofAreaSteepM2: r3(m.RoofAreaSteepM2),
		RoofAreaM2: r3(m.RoofAreaM2), WallAreaM2: r3(m.WallAreaM2), VolumeM3: r3(m.VolumeM3), VolumeReason: m.VolumeReason,
		HeightSystem: "DHHN2016"}
	return d
}

// r3 rounds to 3 decimals (mm, dm², dm³): more is noise of the float
// arithmetic.
func r3(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := round(*v, 3)
	return &r
}

func ownerDoc(o lod2store.Owner) OwnerDoc {
	d := OwnerDoc{GMLID: o.GMLID, Function: o.Functions, RoofType: o.RoofType, MeasuredHeightM: o.MeasuredHeightM, Storeys: o.Storeys,
		CreationDate: o.CreationDate, MunicipalityKey: o.MunicipalityKey, MunicipalityName: o.MunicipalityName,
		SourceRoof: o.SourceRoof, SourceGround: o.SourceGround, SourcePosition: o.SourcePosition, FootprintDate: o.FootprintDate,
		Addresses: []AddressDoc{}, Generic: o.Generic, Invalid: o.Invalid}
	if o.Part > 0 {
		p := o.ParentGMLID
		d.ParentGMLID = &p
	}
	if d.Function == nil {
		d.Function = []lod2store.Label{}
	}
	if d.Generic == nil {
		d.Generic = []lod2store.Generic{}
	}
	for _, a := range o.Addresses {
		d.Addresses = append(d.Addresses, AddressDoc{a.Street, a.HouseNumber, a.PostalCode, a.Locality, a.Country})
	}
	return d
}

// AddressSearchDoc is the body of GET /v1/addresses.
type AddressSearchDoc struct {
	Query   AddressQueryDoc `json:"query"`
	Count   int             `json:"count"`
	Matches []AddressMatch  `json:"matches"`
}

// AddressQueryDoc is how the server read q.
type AddressQueryDoc struct {
	Street     string `json:"street"`
	Number     string `json:"house_number"`
	PostalCode string `json:"postal_code"`
	Locality   string `json:"locality"`
}

// AddressMatch is one building found.
type AddressMatch struct {
	GMLID   string     `json:"gmlid"`
	BL      string     `json:"bl"`
	Address AddressDoc `json:"address"`
	Point   PointDoc   `json:"point"`
	Score   float64    `json:"score"`
}

// AddressBody is the answer to an address search.
func AddressBody(q lod2store.AddressQuery, hits []lod2store.AddressHit) AddressSearchDoc {
	d := AddressSearchDoc{Query: AddressQueryDoc{q.Street, q.Number, q.PostalCode, q.Locality}, Count: len(hits), Matches: []AddressMatch{}}
	for _, h := range hits {
		d.Matches = append(d.Matches, AddressMatch{GMLID: h.GMLID, BL: h.BL, Score: h.Score,
			Address: AddressDoc{Street: h.Street, HouseNumber: h.HouseNumber, PostalCode: h.PostalCode, Locality: h.Locality, Country: h.Country},
			Point:   PointDoc{"Point", [2]float64{h.Lon, h.Lat}}})
	}
	return d
}
