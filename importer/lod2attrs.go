package importer

import (
	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/citygml/measure"
	"github.com/svc-geodata/svc/lod2store"
)

// convertAttrs maps the attributes of a building and its parts (in file
// order) and the building's derived measures to the store's input form.
func convertAttrs(b *citygml.Building) ([]lod2store.AttrsInput, *lod2store.MeasuresInput) {
	owners := make([]lod2store.AttrsInput, 0, 1+len(b.BuildingParts))
	owners = append(owners, ownerInput(b.ID, "", &b.Attributes))
	for i := range b.BuildingParts {
		p := &b.BuildingParts[i]
		owners = append(owners, ownerInput(p.ID, p.ParentID, &p.Attributes))
	}
	m := measure.Of(b)
	mi := &lod2store.MeasuresInput{
		FootprintAreaM2: m.FootprintAreaM2, FootprintSource: m.FootprintSource.String(),
		GroundZ: m.GroundZM, EavesZ: m.EavesZM, RidgeZ: m.RidgeZM,
		RoofAreaTotalM2: m.RoofAreaTotalM2, WallAreaM2: m.WallAreaM2,
		VolumeM3: m.VolumeM3, VolumeReason: m.VolumeReason,
	}
	copy(mi.RoofAreaM2[:], m.RoofAreaM2[:])
	if !m.Closed && mi.VolumeReason == "" {
		mi.VolumeReason = "not closed"
	}
	return owners, mi
}

func ownerInput(id, parent string, a *citygml.Attributes) lod2store.AttrsInput {
	o := lod2store.AttrsInput{GMLID: id, ParentID: parent, CreationDate: a.CreationDate, Invalid: a.Invalid,
		RoofType: lod2store.Code{Value: a.RoofType.Value, Space: a.RoofType.Space}}
	for _, f := range a.Function {
		o.Functions = append(o.Functions, lod2store.Code{Value: f.Value, Space: f.Space})
	}
	if a.MeasuredHeight.Valid {
		v := a.MeasuredHeight.Value
		o.MeasuredHeightM = &v
	}
	if a.StoreysAboveGround >= 0 {
		n := int64(a.StoreysAboveGround)
		o.Storeys = &n
	}
	for _, ad := range a.Addresses {
		o.Addresses = append(o.Addresses, lod2store.Address{Street: ad.Street, HouseNumber: ad.HouseNumber,
			PostalCode: ad.PostalCode, Locality: ad.Locality, Country: ad.Country})
	}
	for _, g := range a.Generic {
		o.Generic = append(o.Generic, lod2store.Generic{Name: g.Name, Type: g.Type.String(), Value: g.Value, UOM: g.UOM})
	}
	return o
}
